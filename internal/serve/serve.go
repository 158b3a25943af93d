// Package serve is worldprobe's live web viewer of a run: the overview
// (progress and the latest trials), the leaderboard, the models × tasks
// grid and each trial's page with its evidence (failed assertions with
// this page's values against the reference's, state-over-time plots,
// screenshot, frames, video), rendered by internal/report from the run's
// store and folder. Pages follow the run as it goes: the server reads the
// store every Options.Poll and announces each change on a Server-Sent
// Events stream (/events); the pages' small script asks for the page
// again and puts its live parts in place. Nothing is loaded from outside
// the server: the style and scripts are in the pages.
package serve

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/worldprobe/worldprobe/internal/metrics"
	"github.com/worldprobe/worldprobe/internal/report"
	"github.com/worldprobe/worldprobe/internal/result"
	"github.com/worldprobe/worldprobe/internal/store"
	"github.com/worldprobe/worldprobe/internal/trial"
)

//go:embed live.js
var liveJS string

// DefaultAddr is where the viewer listens unless told otherwise: the
// loopback interface only.
const DefaultAddr = "127.0.0.1:8080"

// DefaultPoll is how often the server reads the store for new trials.
const DefaultPoll = 500 * time.Millisecond

// maxStreams bounds the event streams open at once; one more is refused
// with 503.
const maxStreams = 64

// heartbeat is how often an idle event stream gets a comment, so that a
// proxy or the browser does not close it.
const heartbeat = 15 * time.Second

// Options configure a Server.
type Options struct {
	// Run is the run folder (its trials/ folders hold the evidence); empty
	// when only DB is given: the pages then have no trial pages.
	Run string
	// DB is the store to read (OpenDB); empty means Run/results.db.
	DB string
	// Poll is how often the store is read; 0 means DefaultPoll.
	Poll time.Duration
	// Artifacts, when set, holds the run's files (its trials/ folders)
	// instead of the run folder: an artifact store's view of the run
	// (artifactstore.FS under artifactstore.RunPrefix). Run then only
	// names the run in DB and need not exist on this machine.
	Artifacts fs.FS
	// Steps, when set, counts the generation and repair jobs that feed
	// the run (queue.StepCounter); the overview shows them beside the
	// trials, read at every poll.
	Steps func(ctx context.Context) ([]report.StepCount, error)
	// Logger receives diagnostics; nil uses slog.Default().
	Logger *slog.Logger
}

// OpenDB opens the store a --db value names: a SQLite file (a path, or
// sqlite:PATH / file:PATH) or a PostgreSQL database (postgres://…), where
// many runs share the tables and run, the run folder, names the one to
// show (as 'worldprobe run --db' and the workers name it: the folder's
// absolute path). It is the one place the viewer opens a store. A SQLite
// database that does not exist is an error: the viewer never creates one.
func OpenDB(ctx context.Context, dsn, run string) (store.Store, error) {
	if store.IsPostgresURL(dsn) {
		if run == "" {
			return nil, fmt.Errorf("opening %s: a PostgreSQL database holds many runs: give the run folder too (worldprobe serve RUN --db URL)", store.RedactURL(dsn))
		}
		abs, err := filepath.Abs(run)
		if err != nil {
			return nil, fmt.Errorf("opening the run folder: %w", err)
		}
		db, err := store.DialPostgres(ctx, dsn, abs)
		if err != nil {
			return nil, fmt.Errorf("opening %s: %w", store.RedactURL(dsn), err)
		}
		return db, nil
	}
	p, _ := sqlitePath(dsn)
	if _, err := os.Stat(p); err != nil {
		return nil, fmt.Errorf("opening the results database: %w", err)
	}
	return store.OpenSQLite(ctx, p)
}

// sqlitePath is the file a --db value names when it is a SQLite one.
func sqlitePath(dsn string) (string, bool) {
	if strings.Contains(dsn, "://") {
		return "", false
	}
	return strings.TrimPrefix(strings.TrimPrefix(dsn, "sqlite:"), "file:"), true
}

// Server serves one run. It is safe for concurrent use.
type Server struct {
	opts Options
	db   store.Store
	// files are the run's files: the run folder (root) or the artifact
	// store; nil without either.
	files fs.FS
	root  *os.Root
	log   *slog.Logger
	title string

	// sigFiles are the store's files when it is a SQLite file (the database
	// and its write-ahead log): while they and the trials folder are as
	// they were, a reading is skipped (see refresh).
	sigFiles  []string
	lastSig   string
	lastAt    time.Time
	lastSteps []report.StepCount

	mu    sync.Mutex
	snap  *snapshot
	names map[string]string // trial folder name → trial key ("" while unfinished)
	subs  map[chan *snapshot]struct{}
}

// snapshot is one reading of the run: its trials, their folders and the
// leaderboard, with a version that changes whenever any of them does.
type snapshot struct {
	version  string
	page     report.Page
	progress report.Progress
	byDir    map[string]string // trial folder (relative to the run, slashes) → key
}

// New opens the run's store and folder and reads them once.
func New(ctx context.Context, o Options) (*Server, error) {
	if o.Poll <= 0 {
		o.Poll = DefaultPoll
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Run == "" && o.DB == "" {
		return nil, errors.New("nothing to serve: give a run folder or --db")
	}
	s := &Server{opts: o, log: o.Logger, names: map[string]string{}, subs: map[chan *snapshot]struct{}{}}
	s.title = "worldprobe run"
	if o.Artifacts != nil {
		s.files = o.Artifacts
		if o.Run != "" {
			abs, _ := filepath.Abs(o.Run)
			s.title = "worldprobe run: " + filepath.Base(abs)
		}
	} else if o.Run != "" {
		fi, err := os.Stat(o.Run)
		if err != nil {
			return nil, fmt.Errorf("opening the run folder: %w", err)
		}
		if !fi.IsDir() {
			return nil, fmt.Errorf("opening the run folder: %s is not a folder", o.Run)
		}
		if s.root, err = os.OpenRoot(o.Run); err != nil {
			return nil, fmt.Errorf("opening the run folder: %w", err)
		}
		s.files = s.root.FS()
		abs, _ := filepath.Abs(o.Run)
		s.title = "worldprobe run: " + filepath.Base(abs)
	}
	dsn := o.DB
	if dsn == "" {
		dsn = filepath.Join(o.Run, store.ResultsDB)
	}
	db, err := OpenDB(ctx, dsn, o.Run)
	if err != nil {
		s.closeRoot()
		return nil, err
	}
	s.db = db
	if p, ok := sqlitePath(dsn); ok {
		s.sigFiles = []string{p, p + "-wal"}
		if o.Run != "" && o.Artifacts == nil {
			s.sigFiles = append(s.sigFiles, filepath.Join(o.Run, "trials"))
		}
	}
	if err := s.refresh(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func (s *Server) closeRoot() {
	if s.root != nil {
		s.root.Close()
	}
}

// Close releases the store and the run folder.
func (s *Server) Close() error {
	s.closeRoot()
	return s.db.Close()
}

// current is the latest snapshot.
func (s *Server) current() *snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.snap
}

// fullEvery is how often the store is read even when its files look
// unchanged.
const fullEvery = 10 * time.Second

// signature sums up the size and time of the store's files and of the
// trials folder (which changes when a trial's folder appears or goes);
// "" when the store is not a file.
func (s *Server) signature() string {
	if len(s.sigFiles) == 0 {
		return ""
	}
	var b strings.Builder
	for _, f := range s.sigFiles {
		if fi, err := os.Stat(f); err == nil {
			fmt.Fprintf(&b, "%d/%d;", fi.Size(), fi.ModTime().UnixNano())
		} else {
			b.WriteString("-;")
		}
	}
	return b.String()
}

// refresh reads the store and the run folder; when anything changed it
// computes the leaderboard again and tells every event stream. A SQLite
// store is read only when its files or the trials folder changed, or
// fullEvery after the last reading, so an idle run of many trials costs
// a few stat calls per poll.
//
// The generation and repair jobs (Options.Steps) are counted at every
// poll; a change in them is a change of the run.
func (s *Server) refresh(ctx context.Context) error {
	var steps []report.StepCount
	if s.opts.Steps != nil {
		var err error
		if steps, err = s.opts.Steps(ctx); err != nil {
			return fmt.Errorf("counting the generation jobs: %w", err)
		}
	}
	sig := s.signature()
	if sig != "" && sig == s.lastSig && slices.Equal(steps, s.lastSteps) && time.Since(s.lastAt) < fullEvery {
		return nil
	}
	if err := s.read(ctx, steps); err != nil {
		return err
	}
	s.lastSig, s.lastAt, s.lastSteps = sig, time.Now(), steps
	return nil
}

// read reads the store and the run folder, and makes a new snapshot when
// anything changed (steps, the generation jobs' counts, included).
func (s *Server) read(ctx context.Context, steps []report.StepCount) error {
	trials, err := s.db.Trials(ctx)
	if err != nil {
		return fmt.Errorf("reading the trials: %w", err)
	}
	planned, err := s.db.Planned(ctx)
	if err != nil {
		return err
	}
	byDir, running, err := s.scanFolders()
	if err != nil {
		return err
	}
	version := fingerprint(trials, planned, byDir, running, steps)
	s.mu.Lock()
	same := s.snap != nil && s.snap.version == version
	s.mu.Unlock()
	if same {
		return nil
	}
	dirs := map[string]string{}
	for d, k := range byDir {
		dirs[k] = d
	}
	board, err := report.NewLeaderboard(s.title, "", trials, metrics.BoardOptions{})
	if err != nil {
		return err
	}
	snap := &snapshot{version: version, byDir: byDir,
		page:     report.Page{Title: s.title, Trials: trials, Board: board, Dirs: dirs},
		progress: report.NewProgress(trials, planned, running, time.Now().Format("15:04:05"))}
	snap.progress.Steps = steps
	s.mu.Lock()
	s.snap = snap
	for ch := range s.subs {
		// A stream that has not taken the last change yet gets this one
		// instead: the page only needs the newest.
		select {
		case <-ch:
		default:
		}
		ch <- snap
	}
	s.mu.Unlock()
	return nil
}

// scanFolders maps the run's trial folders to their trials' keys (each
// result.json read once) and counts the folders without a result yet.
func (s *Server) scanFolders() (map[string]string, int, error) {
	byDir := map[string]string{}
	if s.files == nil {
		return byDir, 0, nil
	}
	fsys := s.files
	entries, err := fs.ReadDir(fsys, "trials")
	if errors.Is(err, fs.ErrNotExist) {
		return byDir, 0, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("reading the run's trial folders: %w", err)
	}
	running := 0
	seen := map[string]bool{}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		name := e.Name()
		seen[name] = true
		key := s.names[name]
		if key == "" {
			if t, err := trial.ReadResult(fsys, path.Join("trials", name)); err == nil {
				key = t.Key
			}
			s.names[name] = key
		}
		if key == "" {
			running++
			continue
		}
		byDir["trials/"+name] = key
	}
	for name := range s.names {
		if !seen[name] {
			delete(s.names, name)
		}
	}
	return byDir, running, nil
}

// fingerprint is the version of a reading: it changes when a trial is
// added, removed or judged again, the plan changes, or a folder appears
// or finishes.
func fingerprint(trials []*result.Trial, planned int, byDir map[string]string, running int, steps []report.StepCount) string {
	h := sha256.New()
	fmt.Fprintf(h, "planned %d\n", planned)
	for _, t := range trials {
		fmt.Fprintf(h, "%s\x00%s\x00%t\x00%g\x00%s\x00%d\x00%g\n", t.Key, t.Outcome, t.Pass, t.VCov, t.StartedAt.Format(time.RFC3339Nano), t.Retries, t.DurationMs)
	}
	dirs := make([]string, 0, len(byDir))
	for d, k := range byDir {
		dirs = append(dirs, d+"\x00"+k)
	}
	sort.Strings(dirs)
	fmt.Fprintf(h, "%s\n%d", strings.Join(dirs, "\n"), running)
	for _, c := range steps {
		fmt.Fprintf(h, "\n%s %d %d %d %d", c.Kind, c.Queued, c.Running, c.Done, c.GivenUp)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// Watch reads the store every Options.Poll until ctx ends. A reading
// that fails is logged and tried again at the next tick.
func (s *Server) Watch(ctx context.Context) {
	t := time.NewTicker(s.opts.Poll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := s.refresh(ctx); err != nil && ctx.Err() == nil {
				s.log.Warn("reading the run", "err", err)
			}
		}
	}
}

// Serve answers on ln until ctx ends, watching the store meanwhile, then
// shuts down: open event streams end, requests in flight get up to five
// seconds.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	srv := &http.Server{Handler: s.Handler(ln.Addr()), ReadHeaderTimeout: 10 * time.Second,
		BaseContext: func(net.Listener) context.Context { return ctx }}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		s.Watch(ctx)
	}()
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	var err error
	select {
	case err = <-errc:
		cancel()
	case <-ctx.Done():
		// Cancelling ctx ended the event streams (their requests' context
		// derives from it); Shutdown waits for the rest.
		sctx, scancel := context.WithTimeout(context.Background(), 5*time.Second)
		err = srv.Shutdown(sctx)
		scancel()
		if err != nil {
			err = fmt.Errorf("shutting the viewer down: %w", err)
		}
	}
	wg.Wait()
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// TrialURL is the address of a trial's page: its folder under /run/.
func TrialURL(dir string) string {
	return (&url.URL{Path: "/run/" + strings.Trim(filepath.ToSlash(dir), "/") + "/"}).EscapedPath()
}
