package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/result"
	"github.com/worldprobe/worldprobe/internal/store"
)

func tinySuite() string { return filepath.Join("..", "run", "testdata", "suite") }

func readTrials(t *testing.T, out string) map[string]*result.Trial {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(out, "trials", "*", "result.json"))
	require.NoError(t, err)
	trials := map[string]*result.Trial{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		tr := &result.Trial{}
		require.NoError(t, json.Unmarshal(b, tr), "file %s", f)
		trials[filepath.Base(filepath.Dir(f))] = tr
	}
	return trials
}

func TestRunOracleFixturesResumeAndRerun(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run")
	code, stdout, stderr := execute(t, "run", tinySuite(), "--oracle", "--fixtures", "--out", out)
	require.Equal(t, ExitOK, code, "stderr: %s", stderr)
	require.Contains(t, stdout, "oracle                1  100.0%")
	require.Contains(t, stdout, "\nFixtures: all 1 failed where their expect.yaml says\n")
	require.Regexp(t, `(?s)Fixtures: .*oracle +1 +100\.0%.*\n2 trials \(2 run, 0 kept\) · results: [^\n]* · report: [^\n]*\n$`, stdout,
		"the fixtures' check, then the leaderboard, then where the results are: the summary is the last thing printed")
	require.FileExists(t, filepath.Join(out, "report.html"))
	require.FileExists(t, filepath.Join(out, "results.db"))
	st, err := os.Stat(out)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o750), st.Mode().Perm(), "a new run folder is closed to other users (the browser's included)")
	lockRaw, err := os.ReadFile(filepath.Join(out, "lock.json"))
	require.NoError(t, err)
	var lock struct {
		Sandbox struct {
			On   bool
			User string
		}
	}
	require.NoError(t, json.Unmarshal(lockRaw, &lock))
	require.True(t, lock.Sandbox.On, "lock.json records Chromium's sandbox: %s", lockRaw)
	require.NotEmpty(t, lock.Sandbox.User)
	page, err := os.ReadFile(filepath.Join(out, "report.html"))
	require.NoError(t, err)
	require.Contains(t, string(page), "browser: Chromium&#39;s sandbox (namespaces, seccomp-bpf), as "+lock.Sandbox.User)
	require.NotContains(t, string(page), "had no sandbox")
	trials := readTrials(t, out)
	require.Len(t, trials, 2)
	oracle := trials["simulation_tiny__oracle__solution__s0"]
	require.NotNil(t, oracle)
	require.True(t, oracle.Pass)
	require.Equal(t, 1.0, oracle.VCov)
	require.Equal(t, "ok", oracle.Outcome)
	require.FileExists(t, filepath.Join(out, "trials", "simulation_tiny__oracle__solution__s0", "screenshot.png"))
	// trace.jsonl lists every state the contract read; state_hash is its digest.
	traceFile := filepath.Join(out, "trials", "simulation_tiny__oracle__solution__s0", "trace.jsonl")
	raw, err := os.ReadFile(traceFile)
	require.NoError(t, err)
	sum := sha256.Sum256(raw)
	require.Equal(t, hex.EncodeToString(sum[:]), oracle.StateHash)
	require.Contains(t, oracle.Artifacts, "trace.jsonl")
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	var first struct {
		Probe, Kind string
		State       map[string]any
	}
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &first))
	require.Equal(t, "interface", first.Probe)
	require.Equal(t, "state", first.Kind)
	require.Contains(t, first.State, "x")
	require.Greater(t, len(lines), 1, "the contract's snapshots and assertions are traced too")
	frozen := trials["simulation_tiny__fixtures__frozen__s0"]
	require.False(t, frozen.Pass)
	require.Equal(t, []result.Assertion{{Probe: "moves_at_one_metre_per_second", Level: "transition", Status: "fail",
		Message: frozen.Failed()[0].Message, Expr: "approx(s.x - before.x, 1.0, 0.05)", Line: 15}}, frozen.Failed())
	// Each trial has its page in its folder, linked from the report's
	// grid; the failed one plots the x it read against the reference's.
	require.Contains(t, string(page), `href="trials/simulation_tiny__fixtures__frozen__s0/index.html"`)
	frozenPage, err := os.ReadFile(filepath.Join(out, "trials", "simulation_tiny__fixtures__frozen__s0", "index.html"))
	require.NoError(t, err)
	require.Contains(t, string(frozenPage), `<a href="../simulation_tiny__oracle__solution__s0/index.html">reference trial (oracle/solution sample 0)</a>`)
	require.Contains(t, string(frozenPage), "<title>x in probe moves_at_one_metre_per_second, per frame: this page against the reference</title>")
	require.FileExists(t, filepath.Join(out, "trials", "simulation_tiny__oracle__solution__s0", "index.html"))

	// The same command again keeps everything.
	code, stdout, stderr = execute(t, "run", tinySuite(), "--oracle", "--fixtures", "--out", out)
	require.Equal(t, ExitOK, code, stderr)
	require.Contains(t, stderr, "resuming: 2 finished trials kept, 0 to run")
	require.Contains(t, stdout, "2 trials (0 run, 2 kept)")

	// --rerun fail runs the failing fixture again, nothing else.
	code, stdout, stderr = execute(t, "run", tinySuite(), "--oracle", "--fixtures", "--out", out, "--rerun", "fail")
	require.Equal(t, ExitOK, code, stderr)
	require.Contains(t, stdout, "2 trials (1 run, 1 kept)")

	// Another configuration in the same folder is refused.
	code, _, stderr = execute(t, "run", tinySuite(), "--oracle", "--out", out)
	require.Equal(t, ExitInfrastructure, code)
	require.Contains(t, stderr, "different configuration")
}

// TestKill9LosesNoFinishedTrial kills the real binary mid-run and resumes.
func TestKill9LosesNoFinishedTrial(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run")
	args := []string{"run", tinySuite(), "--oracle", "--repeat", "4", "--jobs", "1", "--out", out, "--web", webDir(t)}
	cmd := worldprobeCommand(t, args...)
	require.NoError(t, cmd.Start())
	deadline := time.Now().Add(120 * time.Second)
	for time.Now().Before(deadline) {
		if len(readTrials(t, out)) >= 2 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()
	before := readTrials(t, out)
	require.GreaterOrEqual(t, len(before), 2)
	require.Less(t, len(before), 4, "the run was killed before it finished")
	// The trials the killed process was judging are still marked running
	// in its queue (with --jobs 1: the one it was judging, and the last
	// one finished when River had not yet marked it done).
	db, err := store.SQLiteDB(filepath.Join(out, "queue.db"))
	require.NoError(t, err)
	var running int
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM river_job WHERE state = 'running'`).Scan(&running))
	db.Close()
	t.Logf("trials still marked running in the killed run's queue: %d", running)

	res, err := worldprobeCommand(t, args...).CombinedOutput()
	require.NoError(t, err, string(res))
	require.Contains(t, string(res), "resuming: "+itoa(len(before))+" finished trials kept")
	// The resumed run takes it back at once, rather than waiting for
	// River's rescue (15 minutes).
	if running > 0 {
		require.Contains(t, string(res), fmt.Sprintf("%s left marked running by a process that ended (killed?): taken up again\n", plural(running, "trial")))
	} else {
		require.NotContains(t, string(res), "left marked running")
	}
	after := readTrials(t, out)
	require.Len(t, after, 4)
	for name, tr := range before {
		require.Equal(t, tr.Key, after[name].Key)
		require.Equal(t, tr.StartedAt, after[name].StartedAt, "finished trial %s was kept, not rerun", name)
	}
	for _, tr := range after {
		require.True(t, tr.Pass)
		require.Equal(t, after["simulation_tiny__oracle__solution__s0"].StateHash, tr.StateHash,
			"every repeat of the same page reads the same states")
	}
	entries, _ := os.ReadDir(filepath.Join(out, "trials"))
	for _, e := range entries {
		require.False(t, strings.HasSuffix(e.Name(), ".tmp"))
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }
