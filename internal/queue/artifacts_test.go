package queue

import (
	"context"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/artifactstore"
	"github.com/worldprobe/worldprobe/internal/serve"
	"github.com/worldprobe/worldprobe/internal/store"
)

// A worker with an artifact store copies each judged trial's folder into
// it under the run folder's path, before the result is saved; the viewer
// serves the trial's files from the store, with the run folder's trials
// gone from this machine.
func TestWorkerCopiesTrialsIntoTheArtifactStore(t *testing.T) {
	p := plan(t)
	ctx := context.Background()
	st, err := artifactstore.NewDir(filepath.Join(t.TempDir(), "artifacts"))
	require.NoError(t, err)
	defer st.Close()
	q, err := OpenSQLite(ctx, filepath.Join(t.TempDir(), "queue.db"), Config{Workers: 2, Runner: runner(), Artifacts: st})
	require.NoError(t, err)
	defer q.Close()
	require.NoError(t, q.Start(ctx))
	sum, out := execute(t, p, &Executor{Queue: q})
	abs, err := filepath.Abs(out)
	require.NoError(t, err)
	prefix := artifactstore.RunPrefix(abs)
	var want []string
	for _, tr := range sum.Trials {
		dir := filepath.Join(out, filepath.FromSlash(sum.Dirs[tr.Key]))
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return err
			}
			rel, _ := filepath.Rel(out, path)
			want = append(want, prefix+"/"+filepath.ToSlash(rel))
			return nil
		})
		require.NoError(t, err)
	}
	got, err := st.List(ctx, prefix)
	require.NoError(t, err)
	require.ElementsMatch(t, want, got, "every file of every trial folder")
	require.Len(t, sum.Trials, 2)

	// The viewer, reading the files from the store only.
	local := map[string][]byte{}
	for _, tr := range sum.Trials {
		name := sum.Dirs[tr.Key] + "/result.json"
		b, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(name)))
		require.NoError(t, err)
		local[name] = b
	}
	require.NoError(t, os.RemoveAll(filepath.Join(out, "trials")))
	files, err := fs.Sub(artifactstore.FS(ctx, st), prefix)
	require.NoError(t, err)
	srv, err := serve.New(ctx, serve.Options{Run: out, DB: filepath.Join(out, store.ResultsDB), Artifacts: files})
	require.NoError(t, err)
	defer srv.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go srv.Serve(sctx, ln)
	for name, b := range local {
		resp, err := http.Get("http://" + ln.Addr().String() + "/run/" + name)
		require.NoError(t, err)
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode, name)
		require.Equal(t, string(b), string(body), name)
	}
	resp, err := http.Get("http://" + ln.Addr().String() + "/run/trials/none/result.json")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
}
