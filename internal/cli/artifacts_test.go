package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/artifactstore"
	"github.com/worldprobe/worldprobe/internal/artifactstore/s3test"
	"github.com/worldprobe/worldprobe/internal/report"
	"github.com/worldprobe/worldprobe/internal/testenv"
)

// localFiles lists the files below dir, slash-separated and relative to
// it, sorted.
func localFiles(t *testing.T, dir string) []string {
	t.Helper()
	var names []string
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		names = append(names, filepath.ToSlash(rel))
		return err
	}))
	sort.Strings(names)
	return names
}

// runWithArtifacts runs the tiny suite's oracle and fixture with
// --executor executor (the pool or River) and --artifacts where (and --video with video), and checks that every file a trial writes
// reached the store (the trial pages report.html links are the report's,
// written after); then, with the trial folders gone from the run folder
// (workers elsewhere, no shared mount), that the same command fetches
// them back from the store, keeps them without judging again, and writes
// a report whose trial pages show their screenshot, video and trace.
func runWithArtifacts(t *testing.T, executor, where string, env map[string]string, video bool) {
	ctx := context.Background()
	env = maps.Clone(env)
	if env == nil {
		env = map[string]string{}
	}
	env[EnvWeb] = webDir(t)
	out := filepath.Join(t.TempDir(), "run")
	args := []string{"run", tinySuite(), "--oracle", "--fixtures", "--executor", executor, "--jobs", "1", "--artifacts", where, "--out", out}
	kinds := []string{".json", ".png", ".jsonl"}
	if video {
		args = append(args, "--video")
		kinds = append(kinds, ".webm")
	}
	code, stdout, stderr := executeIn(ctx, env, args...)
	require.Equal(t, ExitOK, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	require.NotContains(t, stderr, "fetched", "the run folder had every trial")
	require.Contains(t, stdout, "(2 run, 0 kept)")

	st, err := artifactstore.Open(ctx, where, func(k string) string { return env[k] })
	require.NoError(t, err)
	abs, err := filepath.Abs(out)
	require.NoError(t, err)
	prefix := artifactstore.RunPrefix(abs)
	stored, err := st.List(ctx, prefix)
	require.NoError(t, err)
	var want []string
	for _, n := range localFiles(t, out) {
		if strings.HasPrefix(n, "trials/") && filepath.Base(n) != report.TrialPage {
			want = append(want, prefix+"/"+n)
		}
	}
	require.Equal(t, want, stored, "every file of every trial folder, nothing else")
	var exts []string
	for _, n := range stored {
		if strings.Contains(n, "__oracle__") {
			exts = append(exts, filepath.Ext(n))
		}
	}
	require.Subset(t, exts, kinds, "result, screenshot, trace (and video): %v", stored)

	trials, err := filepath.Glob(filepath.Join(out, "trials", "*"))
	require.NoError(t, err)
	require.Len(t, trials, 2)
	before := map[string][]byte{}
	for _, tr := range trials {
		for _, n := range localFiles(t, tr) {
			b, err := os.ReadFile(filepath.Join(tr, n))
			require.NoError(t, err)
			before[filepath.Base(tr)+"/"+n] = b
		}
		require.NoError(t, os.RemoveAll(tr))
	}
	require.NoError(t, os.Remove(filepath.Join(out, "report.html")))

	code, stdout, stderr = executeIn(ctx, env, args...)
	require.Equal(t, ExitOK, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	require.Contains(t, stderr, fmt.Sprintf("fetched 2 finished trial folders from %s", st))
	require.Contains(t, stdout, "(0 run, 2 kept)")
	for name, b := range before {
		got, err := os.ReadFile(filepath.Join(out, "trials", filepath.FromSlash(name)))
		require.NoError(t, err, name)
		if filepath.Base(name) != report.TrialPage {
			require.Equal(t, b, got, name)
		}
	}
	html, err := os.ReadFile(filepath.Join(out, "report.html"))
	require.NoError(t, err)
	for _, tr := range trials {
		name := filepath.Base(tr)
		require.Contains(t, string(html), "trials/"+name+"/"+report.TrialPage)
		if strings.Contains(name, "__oracle__") {
			page, err := os.ReadFile(filepath.Join(tr, report.TrialPage))
			require.NoError(t, err)
			require.Contains(t, string(page), `src="screenshot.png"`)
			if video {
				require.Contains(t, string(page), `.webm"`)
			}
			require.Contains(t, string(page), `href="trace.jsonl"`)
		}
	}
}

// A local run (the in-process pool) whose trial folders went to a shared
// folder (--artifacts DIR); TestRunWithArtifactsInS3 (slow) is the same
// through River with a bucket and videos, and queue's
// TestWorkerCopiesTrialsIntoTheArtifactStore River's workers with a folder.
func TestRunFetchesTrialsFromTheArtifactStore(t *testing.T) {
	runWithArtifacts(t, "pool", filepath.Join(t.TempDir(), "artifacts"), nil, false)
}

// failingStore fails every call: a store that must not be asked.
type failingStore struct{ artifactstore.Store }

func (failingStore) List(context.Context, string) ([]string, error) {
	return nil, errors.New("asked")
}
func (failingStore) String() string { return "failing" }

func TestFetchTrials(t *testing.T) {
	ctx := context.Background()
	out := filepath.Join(t.TempDir(), "run")
	abs, _ := filepath.Abs(out)
	prefix := artifactstore.RunPrefix(abs)
	st, err := artifactstore.NewDir(filepath.Join(t.TempDir(), "store"))
	require.NoError(t, err)
	defer st.Close()
	put := func(name, text string) {
		require.NoError(t, st.Put(ctx, prefix+"/"+name, strings.NewReader(text), int64(len(text))))
	}
	result := func(key string) string { return fmt.Sprintf(`{"key":%q,"outcome":"ok","pass":true}`, key) }
	write := func(name, text string) {
		p := filepath.Join(out, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	put("trials/a/result.json", result("ka"))
	put("trials/a/screenshot.png", "png a")
	put("trials/b/result.json", result("kb"))
	put("trials/b/trace.jsonl", "trace b")
	put("trials/c/result.json", result("another key"))
	put("trials/d/screenshot.png", "no result: unfinished")
	write("trials/b/trace.jsonl", "cut short")  // an attempt cut short here
	write("trials/e/result.json", result("ke")) // finished here
	write("trials/e/screenshot.png", "png e")

	want := map[string]string{"ka": "trials/a", "kb": "trials/b", "kc": "trials/c", "kd": "trials/d", "ke": "trials/e", "kf": "trials/f"}
	got, err := fetchTrials(ctx, st, out, want)
	require.NoError(t, err)
	require.Equal(t, []string{"trials/a", "trials/b"}, got)
	require.Equal(t, []string{"trials/a/result.json", "trials/a/screenshot.png", "trials/b/result.json", "trials/b/trace.jsonl",
		"trials/e/result.json", "trials/e/screenshot.png"}, localFiles(t, out))
	b, err := os.ReadFile(filepath.Join(out, "trials", "b", "trace.jsonl"))
	require.NoError(t, err)
	require.Equal(t, "trace b", string(b), "the store's copy replaces the one cut short")

	// Every trial finished here: the store is not asked.
	got, err = fetchTrials(ctx, failingStore{}, out, map[string]string{"ka": "trials/a", "ke": "trials/e"})
	require.NoError(t, err)
	require.Empty(t, got)
	_, err = fetchTrials(ctx, failingStore{}, out, map[string]string{"kf": "trials/f"})
	require.ErrorContains(t, err, "asked")
}

// The same through River with a real S3-compatible server (SeaweedFS on
// loopback) and videos: the whole small run with --artifacts s3://…, its endpoint and
// keys from the environment.
func TestRunWithArtifactsInS3(t *testing.T) {
	testenv.Slow(t)
	srv := s3test.Start(t)
	runWithArtifacts(t, "river", "s3://"+s3test.Bucket+"/e2e", srv.Env(), true)
}
