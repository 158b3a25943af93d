// Package s3test starts a throwaway S3-compatible server for tests:
// SeaweedFS's 'weed server -s3' on loopback ports in a temporary folder,
// with one identity and one bucket, stopped when the test ends. No S3
// server is packaged in Debian here, so weed is built once from the Go
// module proxy into the user's cache folder (minutes), or taken from
// $WORLDPROBE_WEED.
package s3test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/worldprobe/worldprobe/internal/artifactstore"
)

// SeaweedVersion is the SeaweedFS release built from the Go module proxy.
const SeaweedVersion = "v0.0.0-20261109003541-7506e5f91cd6"

// EnvWeed names a weed binary to use instead of building one.
const EnvWeed = "WORLDPROBE_WEED"

// The server's one identity and its bucket.
const (
	AccessKey = "worldprobe-test-key"
	SecretKey = "worldprobe-test-SECRET-9d2e"
	Bucket    = "runs"
)

// Server is a running S3-compatible server.
type Server struct {
	// Endpoint is its URL, http://127.0.0.1:PORT.
	Endpoint string
}

// Env is the environment a store opened on the server reads
// (artifactstore.EnvS3Endpoint and the credentials).
func (s *Server) Env() map[string]string {
	return map[string]string{
		artifactstore.EnvS3Endpoint: s.Endpoint,
		artifactstore.EnvAccessKey:  AccessKey,
		artifactstore.EnvSecretKey:  SecretKey,
	}
}

// Client is a client of the server with its identity.
func (s *Server) Client(t testing.TB) *minio.Client {
	t.Helper()
	c, err := minio.New(s.Endpoint[len("http://"):], &minio.Options{Creds: credentials.NewStaticV4(AccessKey, SecretKey, "")})
	check(t, err, "")
	return c
}

// WeedBinary is SeaweedFS's weed: $WORLDPROBE_WEED, or the one built
// before into the user's cache folder, or one built now (minutes: the
// module's source from the Go module proxy, built as a main module since
// its go.mod has a replace directive that 'go install pkg@version'
// refuses).
func WeedBinary(t testing.TB) string {
	t.Helper()
	if p := os.Getenv(EnvWeed); p != "" {
		return p
	}
	cache, err := os.UserCacheDir()
	check(t, err, "")
	bin := filepath.Join(cache, "worldprobe", "seaweedfs-"+SeaweedVersion, "weed")
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	out, err := exec.Command("go", "mod", "download", "-json", "github.com/seaweedfs/seaweedfs@"+SeaweedVersion).Output()
	check(t, err, "downloading SeaweedFS from the Go module proxy")
	var mod struct{ Dir string }
	check(t, json.Unmarshal(out, &mod), "")
	src := filepath.Join(t.TempDir(), "seaweedfs")
	check(t, os.CopyFS(src, os.DirFS(mod.Dir)), "")
	cmd := exec.Command("go", "build", "-o", bin, "./weed")
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	b, err := cmd.CombinedOutput()
	check(t, err, "building weed: "+string(b))
	return bin
}

// freePorts returns n free loopback ports p whose p+10000 (SeaweedFS's
// gRPC ports by convention) is free too.
func freePorts(t testing.TB, n int) []int {
	t.Helper()
	var ports []int
	var held []net.Listener
	defer func() {
		for _, l := range held {
			l.Close()
		}
	}()
	for len(ports) < n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		check(t, err, "")
		held = append(held, l)
		p := l.Addr().(*net.TCPAddr).Port
		if p+10000 > 65535 {
			continue
		}
		g, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p+10000))
		if err != nil {
			continue
		}
		held = append(held, g)
		ports = append(ports, p)
	}
	return ports
}

// Start starts 'weed server -s3' on loopback ports in a temporary folder,
// with one identity (AccessKey, SecretKey), and makes Bucket. The server
// stops with the test.
func Start(t testing.TB) *Server {
	t.Helper()
	bin := WeedBinary(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "s3.json")
	check(t, os.WriteFile(cfg, []byte(`{"identities":[{"name":"worldprobe","credentials":[{"accessKey":"`+AccessKey+
		`","secretKey":"`+SecretKey+`"}],"actions":["Admin","Read","Write","List","Tagging"]}]}`), 0o600), "")
	data := filepath.Join(dir, "data")
	check(t, os.MkdirAll(data, 0o755), "")
	p := freePorts(t, 4)
	cmd := exec.Command(bin, "server", "-dir="+data, "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
		fmt.Sprint("-master.port=", p[0]), fmt.Sprint("-master.port.grpc=", p[0]+10000),
		fmt.Sprint("-volume.port=", p[1]), fmt.Sprint("-volume.port.grpc=", p[1]+10000), "-volume.max=4",
		"-filer", fmt.Sprint("-filer.port=", p[2]), fmt.Sprint("-filer.port.grpc=", p[2]+10000),
		"-s3", fmt.Sprint("-s3.port=", p[3]), fmt.Sprint("-s3.port.grpc=", p[3]+10000), "-s3.config="+cfg,
		"-master.volumeSizeLimitMB=64")
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	cmd.Dir = dir
	check(t, cmd.Start(), "")
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	s := &Server{Endpoint: fmt.Sprintf("http://127.0.0.1:%d", p[3])}
	client := s.Client(t)
	ctx := context.Background()
	deadline := time.Now().Add(3 * time.Minute)
	for {
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		err := client.MakeBucket(cctx, Bucket, minio.MakeBucketOptions{})
		cancel()
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("SeaweedFS's S3 gateway never made the bucket: %v\n%s", err, logs.String())
		}
		time.Sleep(500 * time.Millisecond)
	}
	return s
}

// check fails t at once on err, with what was being done.
func check(t testing.TB, err error, doing string) {
	t.Helper()
	if err != nil {
		if doing != "" {
			t.Fatalf("%s: %v", doing, err)
		}
		t.Fatal(err)
	}
}
