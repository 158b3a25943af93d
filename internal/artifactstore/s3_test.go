package artifactstore_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/artifactstore"
	"github.com/worldprobe/worldprobe/internal/artifactstore/storetest"
	"github.com/worldprobe/worldprobe/internal/testenv"
)

// seaweedVersion is the SeaweedFS release the S3 test builds from the Go
// module proxy (its 'weed server -s3' is a real S3-compatible server).
const seaweedVersion = "v0.0.0-20261109003541-7506e5f91cd6"

// envWeed names a weed binary to use instead of building one.
const envWeed = "WORLDPROBE_WEED"

// weedBinary is SeaweedFS's weed: $WORLDPROBE_WEED, or the one built
// before into the user's cache folder, or one built now (minutes: the
// module's source from the Go module proxy, built as a main module since
// its go.mod has a replace directive that 'go install pkg@version'
// refuses).
func weedBinary(t *testing.T) string {
	t.Helper()
	if p := os.Getenv(envWeed); p != "" {
		return p
	}
	cache, err := os.UserCacheDir()
	require.NoError(t, err)
	bin := filepath.Join(cache, "worldprobe", "seaweedfs-"+seaweedVersion, "weed")
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	out, err := exec.Command("go", "mod", "download", "-json", "github.com/seaweedfs/seaweedfs@"+seaweedVersion).Output()
	require.NoError(t, err, "downloading SeaweedFS from the Go module proxy")
	var mod struct{ Dir string }
	require.NoError(t, json.Unmarshal(out, &mod))
	src := filepath.Join(t.TempDir(), "seaweedfs")
	require.NoError(t, os.CopyFS(src, os.DirFS(mod.Dir)))
	cmd := exec.Command("go", "build", "-o", bin, "./weed")
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	b, err := cmd.CombinedOutput()
	require.NoError(t, err, "building weed: %s", b)
	return bin
}

// freePorts returns n free loopback ports p whose p+10000 (SeaweedFS's
// gRPC ports by convention) is free too.
func freePorts(t *testing.T, n int) []int {
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
		require.NoError(t, err)
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

const (
	testAccessKey = "worldprobe-test-key"
	testSecretKey = "worldprobe-test-SECRET-9d2e"
	testBucket    = "runs"
)

// startSeaweed starts 'weed server -s3' on loopback ports in a temporary
// folder, with one identity (testAccessKey), and makes testBucket; it
// returns the S3 endpoint URL. The server stops with the test.
func startSeaweed(t *testing.T) string {
	t.Helper()
	bin := weedBinary(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "s3.json")
	require.NoError(t, os.WriteFile(cfg, []byte(`{"identities":[{"name":"worldprobe","credentials":[{"accessKey":"`+testAccessKey+
		`","secretKey":"`+testSecretKey+`"}],"actions":["Admin","Read","Write","List","Tagging"]}]}`), 0o600))
	data := filepath.Join(dir, "data")
	require.NoError(t, os.MkdirAll(data, 0o755))
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
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	endpoint := fmt.Sprintf("127.0.0.1:%d", p[3])
	client, err := minio.New(endpoint, &minio.Options{Creds: credentials.NewStaticV4(testAccessKey, testSecretKey, "")})
	require.NoError(t, err)
	ctx := context.Background()
	deadline := time.Now().Add(3 * time.Minute)
	for {
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		err = client.MakeBucket(cctx, testBucket, minio.MakeBucketOptions{})
		cancel()
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("SeaweedFS's S3 gateway never made the bucket: %v\n%s", err, logs.String())
		}
		time.Sleep(500 * time.Millisecond)
	}
	return "http://" + endpoint
}

// The bucket store passes the conformance suite against a real
// S3-compatible server (SeaweedFS's S3 gateway on loopback), with its
// endpoint and credentials from the environment; a wrong secret is
// refused by the server.
func TestS3Conformance(t *testing.T) {
	testenv.Slow(t)
	endpoint := startSeaweed(t)
	env := map[string]string{artifactstore.EnvS3Endpoint: endpoint, artifactstore.EnvAccessKey: testAccessKey, artifactstore.EnvSecretKey: testSecretKey}
	getenv := func(k string) string { return env[k] }
	ctx := context.Background()
	var n atomic.Int32
	storetest.Run(t, func(t *testing.T) artifactstore.Store {
		s, err := artifactstore.Open(ctx, fmt.Sprintf("s3://%s/conformance/%d", testBucket, n.Add(1)), getenv)
		require.NoError(t, err)
		return s
	})

	_, err := artifactstore.Open(ctx, "s3://no-such-bucket/x", getenv)
	require.ErrorContains(t, err, "no such bucket")
	env[artifactstore.EnvSecretKey] = "wrong"
	_, err = artifactstore.Open(ctx, "s3://"+testBucket+"/x", getenv)
	if err == nil {
		s, _ := artifactstore.S3FromEnv(ctx, "s3://"+testBucket+"/x", getenv)
		err = s.Put(ctx, "a.txt", strings.NewReader("a"), 1)
	}
	require.Error(t, err, "a wrong secret is refused")
	require.NotContains(t, err.Error(), testSecretKey)

	// Served as a viewer serves a trial's video: a Range request.
	env[artifactstore.EnvSecretKey] = testSecretKey
	s, err := artifactstore.Open(ctx, "s3://"+testBucket+"/served", getenv)
	require.NoError(t, err)
	require.NoError(t, s.Put(ctx, "trials/t/video.webm", strings.NewReader("0123456789"), 10))
	srv := http.FileServerFS(artifactstore.FS(ctx, s))
	req, _ := http.NewRequest("GET", "/trials/t/video.webm", nil)
	req.Header.Set("Range", "bytes=3-6")
	w := httptest.NewRecorder()
	srv.ServeHTTP(w, req)
	require.Equal(t, http.StatusPartialContent, w.Code)
	require.Equal(t, "3456", w.Body.String())
}
