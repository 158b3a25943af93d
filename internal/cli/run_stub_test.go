package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/atomicfile"
	"github.com/worldprobe/worldprobe/internal/result"
	"github.com/worldprobe/worldprobe/internal/run"
	"github.com/worldprobe/worldprobe/internal/trial"
)

// stubExecutor judges without a browser, the way an executor must: a
// result.json per spec, a no_candidate crash for a spec without a page,
// a pass otherwise. After cancelAfter trials (when set) it calls cancel,
// as an interrupt would.
type stubExecutor struct {
	cancelAfter int
	cancel      func()
	judged      int
}

func (e *stubExecutor) Execute(ctx context.Context, runDir string, specs []trial.Spec, done func(trial.Spec, *result.Trial) error) error {
	for _, s := range specs {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		t := &result.Trial{Key: s.Key, Task: s.Task, Category: strings.Split(s.Task, "/")[0], Model: s.Model, Repair: s.Repair, Candidate: s.Candidate,
			Sample: s.Sample, Outcome: result.OutcomeOK, Pass: true, VCov: 1, Assertions: []result.Assertion{}}
		if s.Page == "" {
			t.Outcome, t.CrashKind, t.Pass, t.VCov, t.Attribution = result.OutcomeCrash, result.CrashNoCandidate, false, 0, "crash"
		}
		if err := os.MkdirAll(filepath.Join(runDir, s.Dir), 0o755); err != nil {
			return err
		}
		if err := atomicfile.WriteJSON(filepath.Join(runDir, s.Dir, trial.ResultFile), t); err != nil {
			return err
		}
		if err := done(s, t); err != nil {
			return err
		}
		e.judged++
		if e.cancel != nil && e.judged == e.cancelAfter {
			e.cancel()
		}
	}
	return nil
}

// executeStub runs the CLI in-process with exec judging run's trials.
func executeStub(ctx context.Context, t *testing.T, exec run.Executor, args ...string) (ExitCode, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Execute(ctx, args, IO{In: strings.NewReader(""), Out: &out, ErrOut: &errOut, Getenv: func(string) string { return "" }, executor: exec})
	return code, out.String(), errOut.String()
}

// stubSuite copies tasks of the starter suite (and the tiny test task)
// into a suite folder the test may change.
func stubSuite(t *testing.T, ids ...string) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "suite")
	for _, id := range ids {
		src := filepath.Join("..", "..", "suites", "starter", filepath.FromSlash(id))
		if id == "simulation/tiny" {
			src = filepath.Join(tinySuite(), "simulation", "tiny")
		}
		require.NoError(t, os.CopyFS(filepath.Join(root, filepath.FromSlash(id)), os.DirFS(src)))
	}
	return root
}

func writePage(t *testing.T, path string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte("<!doctype html><canvas></canvas>"), 0o644))
}

// A --candidates folder without a page for half the tasks or more is
// refused before anything runs, naming where the pages were looked for
// and what the folder holds; --allow-missing judges it with a warning
// before and after; fewer missing pages need no flag.
func TestRunRefusesAFolderMissingMostPages(t *testing.T) {
	suite := stubSuite(t, "simulation/bouncing-ball", "application/counter-panel")
	gpt := filepath.Join(t.TempDir(), "gpt")
	writePage(t, filepath.Join(gpt, "bouncing-ball", "index.html")) // the category is missing
	out := filepath.Join(t.TempDir(), "run")
	hint := "check the --candidates folders, or give --allow-missing to judge each missing page as a no_candidate crash (scored 0)\n"

	code, stdout, stderr := executeStub(context.Background(), t, &stubExecutor{}, "run", suite, "--candidates", "gpt="+gpt, "--out", out)
	require.Equal(t, ExitUsage, code)
	require.Empty(t, stdout)
	gptMissing := "model gpt (--candidates gpt=" + gpt + ") has no page for any of its 2 tasks: looked for " +
		gpt + "/<task-id>/index.html or " + gpt + "/<task-id>.html (for task application/counter-panel: " +
		gpt + "/application/counter-panel/index.html or " + gpt + "/application/counter-panel.html); the folder holds bouncing-ball/"
	require.Equal(t, "worldprobe: "+gptMissing+"\n"+hint, stderr)
	require.NoDirExists(t, out, "nothing ran")

	// Half of them: still refused. Two such folders are both named.
	writePage(t, filepath.Join(gpt, "simulation", "bouncing-ball.html"))
	empty := filepath.Join(t.TempDir(), "empty")
	require.NoError(t, os.Mkdir(empty, 0o755))
	code, _, stderr = executeStub(context.Background(), t, &stubExecutor{}, "run", suite, "--candidates", "gpt="+gpt, "--candidates", empty, "--out", out)
	require.Equal(t, ExitUsage, code)
	gptHalf := "model gpt (--candidates gpt=" + gpt + ") has no page for 1 of 2 tasks: looked for " +
		gpt + "/<task-id>/index.html or " + gpt + "/<task-id>.html (for task application/counter-panel: " +
		gpt + "/application/counter-panel/index.html or " + gpt + "/application/counter-panel.html); the folder holds bouncing-ball/, simulation/"
	emptyAll := "model empty (--candidates empty=" + empty + ") has no page for any of its 2 tasks: looked for " +
		empty + "/<task-id>/index.html or " + empty + "/<task-id>.html (for task application/counter-panel: " +
		empty + "/application/counter-panel/index.html or " + empty + "/application/counter-panel.html); the folder is empty"
	require.Equal(t, "worldprobe: "+gptHalf+"\n"+emptyAll+"\n"+hint, stderr)

	// --allow-missing judges them, and says so before and after.
	code, stdout, stderr = executeStub(context.Background(), t, &stubExecutor{}, "run", suite, "--candidates", "gpt="+gpt, "--allow-missing", "--out", out)
	require.Equal(t, ExitOK, code, stderr)
	require.True(t, strings.HasPrefix(stderr, "WARNING: "+gptHalf+" (--allow-missing: each is judged as a no_candidate crash, scored 0)\n"), stderr)
	require.True(t, strings.HasSuffix(stderr, "WARNING: model gpt had no page for 1 of 2 tasks: judged as no_candidate crashes, scored 0 (--allow-missing; the pages were looked for in "+gpt+")\n"), stderr)
	require.Contains(t, stdout, "gpt                   2   50.0%")
	require.Contains(t, stdout, "2 trials (2 run, 0 kept)")

	// One of three missing: no flag needed, no warning.
	suite3 := stubSuite(t, "simulation/bouncing-ball", "application/counter-panel", "simulation/tiny")
	writePage(t, filepath.Join(gpt, "simulation", "tiny", "index.html"))
	code, _, stderr = executeStub(context.Background(), t, &stubExecutor{}, "run", suite3, "--candidates", "gpt="+gpt, "--out", filepath.Join(t.TempDir(), "run3"))
	require.Equal(t, ExitOK, code, stderr)
	require.NotContains(t, stderr, "WARNING")
}

// Interrupted, run keeps the finished trials, says how many of how many,
// writes a partial report over them, prints the command that resumes
// (without --rerun and --update-changed, which were applied already) and
// exits with the infrastructure code; that command resumes.
func TestRunInterruptedSaysHowToResume(t *testing.T) {
	suite := stubSuite(t, "simulation/bouncing-ball", "application/counter-panel")
	gpt := filepath.Join(t.TempDir(), "gpt")
	writePage(t, filepath.Join(gpt, "simulation", "bouncing-ball", "index.html"))
	writePage(t, filepath.Join(gpt, "application", "counter-panel.html"))
	out := filepath.Join(t.TempDir(), "run")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	exec := &stubExecutor{cancelAfter: 1, cancel: cancel}
	code, stdout, stderr := executeStub(ctx, t, exec, "run", suite, "--oracle", "--rerun", "fail", "--candidates", "gpt="+gpt, "--out", out, "--update-changed")
	require.Equal(t, ExitInfrastructure, code)
	resume := "worldprobe run " + suite + " --candidates gpt=" + gpt + " --oracle --out " + out
	require.True(t, strings.HasSuffix(stderr, "1 trials in 0s\n"+
		"run interrupted (context canceled)\n"+
		"1 of 4 planned trials finished and kept (1 run now, 0 from before), 3 not run\n"+
		"partial report over the finished trials: "+out+"/report.html\n"+
		"resume with: "+resume+"\n"), stderr)
	require.Contains(t, stdout, "gpt                   1  100.0%")
	require.True(t, strings.HasSuffix(stdout, "\npartial: 1 of 4 planned trials (1 run, 0 kept) · results: "+out+"/results.db · report: "+out+"/report.html\n"), stdout)
	page, err := os.ReadFile(filepath.Join(out, "report.html"))
	require.NoError(t, err)
	require.Contains(t, string(page), "<title>worldprobe run: suite (partial)</title>")
	require.Contains(t, string(page), `<p class="warn">Partial report: run interrupted (context canceled) with 1 of 4 planned trials finished; the scores cover those only. Resume with: `+resume+"</p>")

	args := strings.Fields(resume)[1:]
	code, stdout, stderr = executeStub(context.Background(), t, &stubExecutor{}, args...)
	require.Equal(t, ExitOK, code, stderr)
	require.Contains(t, stderr, "resuming: 1 finished trial kept, 3 to run\n")
	require.Contains(t, stdout, "4 trials (3 run, 1 kept)")
	page, err = os.ReadFile(filepath.Join(out, "report.html"))
	require.NoError(t, err)
	require.NotContains(t, string(page), "Partial report")
}

// Resuming through the command: an added model runs, a changed task is
// refused with what differs and what --update-changed would do (exit 3),
// and --update-changed judges only that task's trials again.
func TestRunResumeThroughTheCommand(t *testing.T) {
	suite := stubSuite(t, "simulation/bouncing-ball", "application/counter-panel")
	out := filepath.Join(t.TempDir(), "run")
	code, _, stderr := executeStub(context.Background(), t, &stubExecutor{}, "run", suite, "--oracle", "--out", out)
	require.Equal(t, ExitOK, code, stderr)

	gpt := filepath.Join(t.TempDir(), "gpt")
	writePage(t, filepath.Join(gpt, "simulation", "bouncing-ball", "index.html"))
	writePage(t, filepath.Join(gpt, "application", "counter-panel", "index.html"))
	code, stdout, stderr := executeStub(context.Background(), t, &stubExecutor{}, "run", suite, "--oracle", "--candidates", "gpt="+gpt, "--out", out)
	require.Equal(t, ExitOK, code, stderr)
	require.Contains(t, stderr, "resuming: added: model gpt (--candidates gpt="+gpt+"): 2 trials to run\nresuming: 2 finished trials kept, 2 to run\n")
	require.Contains(t, stdout, "4 trials (2 run, 2 kept)")

	before, err := os.ReadFile(filepath.Join(out, "lock.json"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(suite, "application", "counter-panel", "brief.md"), []byte("# another brief\n"), 0o644))
	code, _, stderr = executeStub(context.Background(), t, &stubExecutor{}, "run", suite, "--oracle", "--candidates", "gpt="+gpt, "--out", out)
	require.Equal(t, ExitInfrastructure, code)
	require.Regexp(t, `^run `+suite+`: 2 tasks, 4 trials, \d+ jobs → `+out+`
worldprobe: the run folder was made with a different configuration \(`+out+`\):
  changed: task application/counter-panel: its folder changed \(digest [0-9a-f]{12} → [0-9a-f]{12}\): 2 trials to judge again
run the same command with --update-changed: it judges again the 2 trials of the changed tasks and pages and keeps the other 2 finished trials; or use another --out folder
$`, stderr)
	after, err := os.ReadFile(filepath.Join(out, "lock.json"))
	require.NoError(t, err)
	require.Equal(t, string(before), string(after), "a refused resume leaves the folder as it was")

	code, stdout, stderr = executeStub(context.Background(), t, &stubExecutor{}, "run", suite, "--oracle", "--candidates", "gpt="+gpt, "--out", out, "--update-changed")
	require.Equal(t, ExitOK, code, stderr)
	require.Contains(t, stderr, "resuming: 2 finished trials kept, 2 to run\n")
	require.Contains(t, stdout, "4 trials (2 run, 2 kept)")
}
