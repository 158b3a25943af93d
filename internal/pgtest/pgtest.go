// Package pgtest starts throwaway PostgreSQL servers for tests: Debian's
// postgresql package (initdb and postgres from /usr/lib/postgresql/<v>/bin),
// a cluster in a temporary folder, listening on a free loopback port only
// (no Unix socket), stopped and removed when the test ends. It is never a
// system service.
//
// PostgreSQL refuses to run as root ("initdb: cannot be run as root"), so
// when the tests run as root the cluster belongs to the unprivileged user
// nobody: its folder is created under the system's temporary folder (a
// test's t.TempDir() is closed to other users) and handed to nobody, and
// initdb and postgres are started through setpriv(1) with nobody's user
// and group and no supplementary groups. As any other user they run as that
// user in t.TempDir().
package pgtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvBin names the environment variable that points at the folder holding
// initdb and postgres, when they are not in /usr/lib/postgresql/<v>/bin.
const EnvBin = "WORLDPROBE_PG_BIN"

// unprivileged is the user the cluster runs as when the tests run as root.
const unprivileged = "nobody"

// Server is one running throwaway PostgreSQL cluster.
type Server struct {
	// Port is the loopback port it listens on.
	Port int
	// dir is the cluster's folder, tempDir the test's (the same when
	// not running as root).
	dir, tempDir string
	cmd          *exec.Cmd
	exited       chan error
	log          *bytes.Buffer
	mu           sync.Mutex
	n            int
}

// BinDir finds the folder holding initdb and postgres: $WORLDPROBE_PG_BIN,
// else the newest /usr/lib/postgresql/<version>/bin, else the folder of
// initdb on the PATH. The error says how to install them.
func BinDir() (string, error) {
	has := func(dir string) bool {
		for _, b := range []string{"initdb", "postgres"} {
			if st, err := os.Stat(filepath.Join(dir, b)); err != nil || st.IsDir() {
				return false
			}
		}
		return true
	}
	if d := os.Getenv(EnvBin); d != "" {
		if !has(d) {
			return "", fmt.Errorf("$%s=%s holds no initdb and postgres", EnvBin, d)
		}
		return d, nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if has(d) {
			return d, nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil && has(filepath.Dir(p)) {
		return filepath.Dir(p), nil
	}
	return "", errors.New("PostgreSQL's initdb and postgres not found (run 'make setup': it installs Debian's postgresql package; or set $" + EnvBin + ")")
}

// version is the major version in /usr/lib/postgresql/<v>/bin.
func version(binDir string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return v
}

// Start starts a server for t and stops it, removing its files, when t
// ends. It skips t, saying how to install them, only when the PostgreSQL
// binaries are missing; any other problem fails t.
func Start(t testing.TB) *Server {
	t.Helper()
	bin, err := BinDir()
	if err != nil {
		t.Skipf("PostgreSQL tests skipped: %v", err)
	}
	s, err := start(bin, t.TempDir())
	if err != nil {
		t.Fatalf("starting PostgreSQL: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Errorf("stopping PostgreSQL: %v", err)
		}
	})
	return s
}

// credential is who runs the cluster: nil for the current user, nobody's
// ids when running as root.
func credential() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup(unprivileged)
	if err != nil {
		return nil, fmt.Errorf("running as root, PostgreSQL needs an unprivileged user: %w", err)
	}
	uid, err1 := strconv.Atoi(u.Uid)
	gid, err2 := strconv.Atoi(u.Gid)
	if err := errors.Join(err1, err2); err != nil {
		return nil, fmt.Errorf("user %s: %w", unprivileged, err)
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

// command runs bin/name with args as cred (through setpriv when set).
func command(cred *syscall.Credential, bin, name string, args ...string) *exec.Cmd {
	path := filepath.Join(bin, name)
	if cred == nil {
		return exec.Command(path, args...)
	}
	// setpriv changes the ids and then execs: the server's process is
	// this command's, so stopping it stops PostgreSQL, and the parent
	// death signal (set after the ids change) stops it if the test
	// binary dies.
	all := append([]string{"--reuid=" + strconv.Itoa(int(cred.Uid)), "--regid=" + strconv.Itoa(int(cred.Gid)), "--clear-groups",
		"--pdeathsig=KILL", "--", path}, args...)
	return exec.Command("setpriv", all...)
}

func start(bin, tempDir string) (*Server, error) {
	cred, err := credential()
	if err != nil {
		return nil, err
	}
	dir := tempDir
	if cred != nil {
		// t.TempDir() is closed to nobody: make the cluster's folder in
		// the shared temporary folder and hand it over.
		if dir, err = os.MkdirTemp("", "worldprobe-pg-"); err != nil {
			return nil, fmt.Errorf("creating the cluster folder: %w", err)
		}
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("handing the cluster folder to %s: %w", unprivileged, err)
		}
	}
	data := filepath.Join(dir, "data")
	initdb := command(cred, bin, "initdb", "-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C")
	initdb.Dir = dir
	if out, err := initdb.CombinedOutput(); err != nil {
		cleanup(dir, tempDir)
		return nil, fmt.Errorf("initdb: %w\n%s", err, out)
	}
	port, err := freePort()
	if err != nil {
		cleanup(dir, tempDir)
		return nil, err
	}
	s := &Server{Port: port, dir: dir, log: &bytes.Buffer{}}
	s.cmd = command(cred, bin, "postgres", "-D", data, "-p", strconv.Itoa(port),
		"-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=",
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off", "-c", "max_connections=100")
	s.cmd.Dir = dir
	s.cmd.Stdout, s.cmd.Stderr = &syncWriter{buf: s.log, mu: &s.mu}, &syncWriter{buf: s.log, mu: &s.mu}
	if err := s.cmd.Start(); err != nil {
		cleanup(dir, tempDir)
		return nil, fmt.Errorf("starting postgres: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- s.cmd.Wait() }()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for {
		conn, err := pgx.Connect(ctx, s.url("postgres"))
		if err == nil {
			conn.Close(ctx)
			break
		}
		select {
		case werr := <-exited:
			cleanup(dir, tempDir)
			return nil, fmt.Errorf("postgres exited before accepting connections (%v):\n%s", werr, s.logText())
		case <-ctx.Done():
			s.cmd.Process.Kill()
			<-exited
			cleanup(dir, tempDir)
			return nil, fmt.Errorf("postgres did not accept connections within 60 s (%v):\n%s", err, s.logText())
		case <-time.After(50 * time.Millisecond):
		}
	}
	s.exited = exited
	s.tempDir = tempDir
	return s, nil
}

// cleanup removes the cluster's folder when it is not the test's own.
func cleanup(dir, tempDir string) {
	if dir != tempDir {
		os.RemoveAll(dir)
	}
}

// freePort is a loopback TCP port nothing listens on now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free loopback port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func (s *Server) url(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", s.Port, db)
}

func (s *Server) logText() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.TrimSpace(s.log.String())
}

// NewDB creates an empty database on s and returns its URL
// (postgres://postgres@127.0.0.1:PORT/NAME?sslmode=disable).
func (s *Server) NewDB(t testing.TB) string {
	t.Helper()
	url, err := s.CreateDB(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return url
}

// CreateDB creates an empty database on s and returns its URL.
func (s *Server) CreateDB(ctx context.Context) (string, error) {
	s.mu.Lock()
	s.n++
	name := fmt.Sprintf("worldprobe_%d", s.n)
	s.mu.Unlock()
	conn, err := pgx.Connect(ctx, s.url("postgres"))
	if err != nil {
		return "", fmt.Errorf("connecting to the test server: %w", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		return "", fmt.Errorf("creating database %s: %w", name, err)
	}
	return s.url(name), nil
}

// Stop shuts the server down (a fast shutdown: open sessions are ended)
// and removes its files.
func (s *Server) Stop() error {
	defer cleanup(s.dir, s.tempDir)
	if err := s.cmd.Process.Signal(syscall.SIGINT); err != nil {
		return fmt.Errorf("signalling postgres: %w", err)
	}
	select {
	case <-s.exited:
		return nil
	case <-time.After(30 * time.Second):
		s.cmd.Process.Kill()
		<-s.exited
		return fmt.Errorf("postgres did not shut down within 30 s; killed:\n%s", s.logText())
	}
}

// syncWriter serialises the server's two output streams into one buffer.
type syncWriter struct {
	buf *bytes.Buffer
	mu  *sync.Mutex
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}
