package artifactstore_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/artifactstore"
	"github.com/worldprobe/worldprobe/internal/artifactstore/s3test"
	"github.com/worldprobe/worldprobe/internal/artifactstore/storetest"
	"github.com/worldprobe/worldprobe/internal/testenv"
)

// The bucket store passes the conformance suite against a real
// S3-compatible server (SeaweedFS's S3 gateway on loopback), with its
// endpoint and credentials from the environment; a wrong secret is
// refused by the server.
func TestS3Conformance(t *testing.T) {
	testenv.Slow(t)
	env := s3test.Start(t).Env()
	getenv := func(k string) string { return env[k] }
	ctx := context.Background()
	var n atomic.Int32
	storetest.Run(t, func(t *testing.T) artifactstore.Store {
		s, err := artifactstore.Open(ctx, fmt.Sprintf("s3://%s/conformance/%d", s3test.Bucket, n.Add(1)), getenv)
		require.NoError(t, err)
		return s
	})

	_, err := artifactstore.Open(ctx, "s3://no-such-bucket/x", getenv)
	require.ErrorContains(t, err, "no such bucket")
	env[artifactstore.EnvSecretKey] = "wrong"
	_, err = artifactstore.Open(ctx, "s3://"+s3test.Bucket+"/x", getenv)
	if err == nil {
		s, _ := artifactstore.S3FromEnv(ctx, "s3://"+s3test.Bucket+"/x", getenv)
		err = s.Put(ctx, "a.txt", strings.NewReader("a"), 1)
	}
	require.Error(t, err, "a wrong secret is refused")
	require.NotContains(t, err.Error(), s3test.SecretKey)

	// Served as a viewer serves a trial's video: a Range request.
	env[artifactstore.EnvSecretKey] = s3test.SecretKey
	s, err := artifactstore.Open(ctx, "s3://"+s3test.Bucket+"/served", getenv)
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
