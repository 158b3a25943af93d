package run

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/atomicfile"
	"github.com/worldprobe/worldprobe/internal/result"
	"github.com/worldprobe/worldprobe/internal/store"
	"github.com/worldprobe/worldprobe/internal/task"
	"github.com/worldprobe/worldprobe/internal/testenv"
	"github.com/worldprobe/worldprobe/internal/trial"
)

// starterTasks loads two small starter tasks into a copy the test may
// change.
func starterTasks(t *testing.T) []*task.Task {
	t.Helper()
	root := t.TempDir()
	var out []*task.Task
	for _, id := range []string{"simulation/bouncing-ball", "application/counter-panel"} {
		src := filepath.Join("..", "..", "suites", "starter", filepath.FromSlash(id))
		dst := filepath.Join(root, filepath.FromSlash(id))
		require.NoError(t, os.CopyFS(dst, os.DirFS(src)))
		tk, err := task.Load(dst)
		require.NoError(t, err)
		out = append(out, tk)
	}
	return out
}

// A planned trial is plain data: it survives JSON, its paths are relative
// to the run folder, and a loader on the other side gets back the same
// task and page — or refuses them when they changed since planning.
func TestSpecIsPlainDataThatResolvesBack(t *testing.T) {
	tasks := starterTasks(t)
	models := t.TempDir()
	page := filepath.Join(models, "simulation", "bouncing-ball", "index.html")
	require.NoError(t, os.MkdirAll(filepath.Dir(page), 0o755))
	require.NoError(t, os.WriteFile(page, []byte("<!doctype html><canvas></canvas>"), 0o644))
	plan, err := Plan(tasks, []Source{{Model: "oracle", Oracle: true}, {Model: "m", Dir: models}}, 1)
	require.NoError(t, err)
	require.Len(t, plan, 4, "2 tasks × (oracle + model); the model has a page for one task only")

	runDir := filepath.Join(t.TempDir(), "run")
	require.NoError(t, os.MkdirAll(runDir, 0o755))
	loader := &trial.Loader{RunDir: runDir}
	for _, p := range plan {
		s, err := p.Spec(runDir)
		require.NoError(t, err)
		b, err := json.Marshal(s)
		require.NoError(t, err)
		var back trial.Spec
		require.NoError(t, json.Unmarshal(b, &back))
		require.Equal(t, s, back, "a spec round-trips through JSON")
		require.False(t, filepath.IsAbs(s.TaskDir), s.TaskDir)
		require.True(t, strings.HasPrefix(s.Dir, "trials/"), s.Dir)
		if p.Page == "" {
			require.Empty(t, s.Page)
			continue
		}
		require.False(t, filepath.IsAbs(s.Page), s.Page)
		in, err := loader.Input(back)
		require.NoError(t, err)
		require.Equal(t, p.Task.ID, in.Task.ID)
		require.Equal(t, p.Params, in.Params)
		abs, _ := filepath.Abs(p.Page)
		require.Equal(t, abs, in.Page)
	}

	// A candidate edited after planning is refused, not judged.
	for _, p := range plan {
		if p.Model == "m" && p.Page != "" {
			require.NoError(t, os.WriteFile(page, []byte("<!doctype html><p>changed</p>"), 0o644))
			s, err := p.Spec(runDir)
			require.NoError(t, err)
			_, err = (&trial.Loader{RunDir: runDir}).Input(s)
			require.ErrorContains(t, err, "changed since the run was planned")
		}
	}
	// So is a task folder.
	s, err := plan[0].Spec(runDir)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(plan[0].Task.Dir, "brief.md"), []byte("# another brief\n"), 0o644))
	_, err = (&trial.Loader{RunDir: runDir}).Input(s)
	require.ErrorContains(t, err, "task "+plan[0].Task.ID+" changed since the run was planned")
}

// stubExecutor stands in for the browser: it writes a result.json per
// spec the way an executor must, and can fail at one spec.
type stubExecutor struct {
	mu     sync.Mutex
	judged []string
	failAt string
	// after, when set, is called after each finished trial.
	after func()
}

var errStub = errors.New("the browser went away")

func (e *stubExecutor) Execute(ctx context.Context, runDir string, specs []trial.Spec, done func(trial.Spec, *result.Trial) error) error {
	for _, s := range specs {
		if s.Candidate == e.failAt {
			// Half a trial: its folder exists, its result does not.
			if err := os.MkdirAll(filepath.Join(runDir, s.Dir), 0o755); err != nil {
				return err
			}
			return errStub
		}
		t := &result.Trial{Key: s.Key, Task: s.Task, Model: s.Model, Candidate: s.Candidate, Sample: s.Sample,
			Outcome: result.OutcomeOK, Pass: true, VCov: 1, Assertions: []result.Assertion{}}
		if s.Page == "" { // as trial.RunSpec does
			t.Outcome, t.CrashKind, t.Pass, t.VCov = result.OutcomeCrash, result.CrashNoCandidate, false, 0
		}
		if err := os.MkdirAll(filepath.Join(runDir, s.Dir), 0o755); err != nil {
			return err
		}
		if err := atomicfile.WriteJSON(filepath.Join(runDir, s.Dir, trial.ResultFile), t); err != nil {
			return err
		}
		e.mu.Lock()
		e.judged = append(e.judged, s.Task+"/"+s.Candidate)
		e.mu.Unlock()
		if err := done(s, t); err != nil {
			return err
		}
		if e.after != nil {
			e.after()
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return nil
}

// Execute keeps every finished trial across a failure and resumes with
// only what is left; an unfinished trial's folder is started again; a run
// folder made with another configuration is refused.
func TestExecuteResumesThroughItsExecutor(t *testing.T) {
	tasks := starterTasks(t)
	plan, err := Plan(tasks, []Source{{Model: "oracle", Oracle: true}, {Model: "fixtures", Fixtures: true}}, 1)
	require.NoError(t, err)
	require.Greater(t, len(plan), 4)
	out := filepath.Join(t.TempDir(), "run")
	cfg := Config{Suite: "starter", Tasks: []string{tasks[0].ID, tasks[1].ID}, Sources: []Source{{Model: "oracle", Oracle: true}}, Repeat: 1}
	failAt := plan[3].Candidate

	first := &stubExecutor{failAt: failAt}
	sum, err := Execute(context.Background(), Options{Out: out, Config: cfg, Plan: plan, Executor: first})
	require.ErrorIs(t, err, errStub)
	require.Equal(t, 3, sum.Ran, "the three trials before the failure finished")
	require.DirExists(t, filepath.Join(out, "trials", plan[3].Dir()), "the failed trial left a folder without a result")
	kept, err := ReadTrials(out)
	require.NoError(t, err)
	require.Len(t, kept, 3, "ReadTrials skips the folder without a result")
	for _, p := range plan[:3] {
		require.True(t, slices.ContainsFunc(kept, func(t *result.Trial) bool { return t.Key == p.Key }), p.Key)
	}
	_, err = ReadTrials(filepath.Join(out, "trials"))
	require.ErrorContains(t, err, "reading the run folder")

	var progress bytes.Buffer
	second := &stubExecutor{}
	sum, err = Execute(context.Background(), Options{Out: out, Config: cfg, Plan: plan, Executor: second, Progress: &progress})
	require.NoError(t, err)
	require.Equal(t, 3, sum.Kept)
	require.Equal(t, len(plan)-3, sum.Ran)
	require.Len(t, second.judged, len(plan)-3, "only what was left is judged again")
	require.Contains(t, progress.String(), "resuming: 3 finished trials kept")
	require.Len(t, sum.Trials, len(plan))
	// Every trial, kept or judged now, is named with its folder.
	require.Len(t, sum.Dirs, len(plan))
	for _, p := range plan {
		require.Equal(t, "trials/"+p.Dir(), sum.Dirs[p.Key], p.Key)
	}

	db, err := store.OpenSQLite(context.Background(), filepath.Join(out, "results.db"))
	require.NoError(t, err)
	defer db.Close()
	stored, err := db.Trials(context.Background())
	require.NoError(t, err)
	require.Len(t, stored, len(plan), "every trial is in the database once")

	other := cfg
	other.Suite = "elsewhere"
	_, err = Execute(context.Background(), Options{Out: out, Config: other, Plan: plan, Executor: &stubExecutor{}})
	require.ErrorIs(t, err, ErrConfigChanged)
	require.EqualError(t, err, "the run folder was made with a different configuration ("+out+"):\n"+
		"  refused: suite: starter → elsewhere\n"+
		"what is refused cannot be resumed: run with the configuration the folder was made with, use another --out folder, or remove "+out+" to start over")
}

// An interrupted run says so and how to resume.
func TestExecuteInterrupted(t *testing.T) {
	tasks := starterTasks(t)
	plan, err := Plan(tasks, []Source{{Model: "oracle", Oracle: true}}, 1)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sum, err := Execute(ctx, Options{Out: filepath.Join(t.TempDir(), "run"), Config: Config{Repeat: 1}, Plan: plan, Executor: &stubExecutor{after: cancel}})
	require.ErrorIs(t, err, context.Canceled)
	require.EqualError(t, err, "run interrupted with 1 of 2 planned trials finished (they are kept; run the same command to resume): context canceled")
	require.Equal(t, 1, sum.Ran, "the trial that finished is kept")
	require.Equal(t, 2, sum.Planned)
	require.Len(t, sum.Trials, 1)
}

// Without a runner the local executor has nothing to judge with.
func TestLocalNeedsAJudge(t *testing.T) {
	err := (&Local{}).Execute(context.Background(), t.TempDir(), []trial.Spec{{Key: "k"}}, nil)
	require.ErrorContains(t, err, "no runner")
}

// The local executor judges in the real browser: the reference passes, a
// task the model wrote no page for is a no_candidate crash that scores
// zero, and each trial's folder holds its result.json.
func TestLocalJudgesInTheBrowser(t *testing.T) {
	b, res, err := testenv.Start(2)
	require.NoError(t, err)
	defer b.Close()
	tasks := starterTasks(t)[1:] // counter-panel
	plan, err := Plan(tasks, []Source{{Model: "oracle", Oracle: true}, {Model: "absent", Dir: t.TempDir()}}, 1)
	require.NoError(t, err)
	out := filepath.Join(t.TempDir(), "run")
	sum, err := Execute(context.Background(), Options{Out: out, Config: Config{Repeat: 1}, Plan: plan,
		Runner: &trial.Runner{Browser: b, Resolver: res}, Jobs: 2})
	require.NoError(t, err)
	require.Len(t, sum.Trials, 2)
	byModel := map[string]*result.Trial{}
	for _, tr := range sum.Trials {
		byModel[tr.Model] = tr
		require.FileExists(t, filepath.Join(out, "trials", strings.ReplaceAll(tr.Task, "/", "_")+"__"+tr.Model+"__"+tr.Candidate+"__s0", trial.ResultFile))
	}
	require.Equal(t, result.OutcomeOK, byModel["oracle"].Outcome)
	require.True(t, byModel["oracle"].Pass, "%+v", byModel["oracle"].Assertions)
	require.NotEmpty(t, byModel["oracle"].StateHash)
	require.Equal(t, result.OutcomeCrash, byModel["absent"].Outcome)
	require.Equal(t, result.CrashNoCandidate, byModel["absent"].CrashKind)
	require.False(t, byModel["absent"].Pass)
}

// countingStore counts the saves of each key.
type countingStore struct {
	store.Store
	mu    sync.Mutex
	saves map[string]int
}

func (c *countingStore) Save(ctx context.Context, t *result.Trial) error {
	c.mu.Lock()
	c.saves[t.Key]++
	c.mu.Unlock()
	return c.Store.Save(ctx, t)
}

func (c *countingStore) counts() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.saves)
}

// savingExecutor is a stubExecutor whose workers save each result in
// their store, as River's do.
type savingExecutor struct {
	stubExecutor
	st    *countingStore
	local bool
}

func (e *savingExecutor) Results(ctx context.Context, runDir string) (store.Store, bool, error) {
	return e.st, e.local, nil
}

func (e *savingExecutor) Execute(ctx context.Context, runDir string, specs []trial.Spec, done func(trial.Spec, *result.Trial) error) error {
	return e.stubExecutor.Execute(ctx, runDir, specs, func(s trial.Spec, t *result.Trial) error {
		if err := e.st.Save(ctx, t); err != nil {
			return err
		}
		return done(s, t)
	})
}

func countingSQLite(t *testing.T, path string) *countingStore {
	t.Helper()
	s, err := store.OpenSQLite(context.Background(), path)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return &countingStore{Store: s, saves: map[string]int{}}
}

func planned(t *testing.T, s store.Store) int {
	t.Helper()
	n, err := s.Planned(context.Background())
	require.NoError(t, err)
	return n
}

// An executor whose workers save into the run folder's results.db
// (River on SQLite) has each result saved once, by its worker; one whose
// workers save into a shared database (PostgreSQL; a second SQLite file
// stands in for it here) gets the trials kept from before copied there
// once, and every result is in results.db too. Both stores hold the
// plan's size.
func TestResultsAreSavedOnce(t *testing.T) {
	ctx := context.Background()
	tasks := starterTasks(t)
	plan, err := Plan(tasks, []Source{{Model: "oracle", Oracle: true}, {Model: "fixtures", Fixtures: true}}, 1)
	require.NoError(t, err)
	cfg := Config{Suite: "starter", Tasks: []string{tasks[0].ID, tasks[1].ID}, Repeat: 1}
	once := map[string]int{}
	for _, p := range plan {
		once[p.Key] = 1
	}

	t.Run("local", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "run")
		require.NoError(t, CreateFolder(out))
		e := &savingExecutor{st: countingSQLite(t, filepath.Join(out, store.ResultsDB)), local: true}
		sum, err := Execute(ctx, Options{Out: out, Config: cfg, Plan: plan, Executor: e})
		require.NoError(t, err)
		require.Equal(t, len(plan), sum.Ran)
		require.Equal(t, once, e.st.counts())
		require.Equal(t, len(plan), planned(t, e.st))
	})

	t.Run("shared", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "run")
		_, err := Execute(ctx, Options{Out: out, Config: cfg, Plan: plan, Executor: &stubExecutor{failAt: plan[3].Candidate}})
		require.ErrorIs(t, err, errStub)
		e := &savingExecutor{st: countingSQLite(t, filepath.Join(t.TempDir(), "shared.db"))}
		sum, err := Execute(ctx, Options{Out: out, Config: cfg, Plan: plan, Executor: e})
		require.NoError(t, err)
		require.Equal(t, [2]int{3, len(plan) - 3}, [2]int{sum.Kept, sum.Ran})
		require.Equal(t, once, e.st.counts(), "the 3 kept trials copied, the others saved by their workers")
		require.Equal(t, len(plan), planned(t, e.st))
		// Nothing left to run: nothing saved again.
		_, err = Execute(ctx, Options{Out: out, Config: cfg, Plan: plan, Executor: e})
		require.NoError(t, err)
		require.Equal(t, once, e.st.counts())
		db := countingSQLite(t, filepath.Join(out, store.ResultsDB))
		stored, err := db.Trials(ctx)
		require.NoError(t, err)
		require.Len(t, stored, len(plan))
		require.Equal(t, len(plan), planned(t, db))
	})
}

// Fetch is asked, once the folder is accepted, for the planned trials it
// does not hold finished; what it puts there is kept, not judged again.
// A folder refused for another configuration is not fetched into.
func TestExecuteKeepsFetchedTrials(t *testing.T) {
	tasks := starterTasks(t)
	plan, err := Plan(tasks, []Source{{Model: "oracle", Oracle: true}}, 1)
	require.NoError(t, err)
	require.Len(t, plan, 2)
	elsewhere := filepath.Join(t.TempDir(), "elsewhere")
	cfg := Config{Suite: "starter", Repeat: 1}
	// The trials as judged on another machine's copy of the run folder.
	_, err = Execute(context.Background(), Options{Out: elsewhere, Config: cfg, Plan: plan, Executor: &stubExecutor{}})
	require.NoError(t, err)

	out := filepath.Join(t.TempDir(), "run")
	// The first trial finished here; the second's attempt was cut short.
	_, err = Execute(context.Background(), Options{Out: out, Config: cfg, Plan: plan[:1], Executor: &stubExecutor{}})
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Join(out, "trials", plan[1].Dir()), 0o755))
	var asked []map[string]string
	fetch := func(ctx context.Context, want map[string]string) ([]string, error) {
		asked = append(asked, want)
		var got []string
		for _, dir := range want {
			require.NoError(t, os.RemoveAll(filepath.Join(out, dir)))
			require.NoError(t, os.CopyFS(filepath.Join(out, dir), os.DirFS(filepath.Join(elsewhere, dir))))
			got = append(got, dir)
		}
		return got, nil
	}
	other := cfg
	other.Suite = "another"
	_, err = Execute(context.Background(), Options{Out: out, Config: other, Plan: plan, Executor: &stubExecutor{}, Fetch: fetch})
	require.ErrorIs(t, err, ErrConfigChanged)
	require.Empty(t, asked, "a refused folder is left as it was")

	judge := &stubExecutor{}
	sum, err := Execute(context.Background(), Options{Out: out, Config: cfg, Plan: plan, Executor: judge, Fetch: fetch})
	require.NoError(t, err)
	require.Equal(t, []map[string]string{{plan[1].Key: "trials/" + plan[1].Dir()}}, asked)
	require.Empty(t, judge.judged)
	require.Equal(t, 2, sum.Kept)
	require.Len(t, sum.Trials, 2)
}
