package run

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/store"
	"github.com/worldprobe/worldprobe/internal/task"
)

// resumeFixture is a run folder judged with a stub executor, and the
// means to run it again with another configuration.
type resumeFixture struct {
	t      *testing.T
	tasks  []*task.Task // bouncing-ball, counter-panel
	models string       // model m's candidates folder
	out    string
}

func newResumeFixture(t *testing.T) *resumeFixture {
	f := &resumeFixture{t: t, tasks: starterTasks(t), models: t.TempDir(), out: filepath.Join(t.TempDir(), "run")}
	f.page("simulation/bouncing-ball/index.html", "<!doctype html><canvas></canvas>")
	return f
}

// page writes a file of model m's candidates folder.
func (f *resumeFixture) page(rel, body string) {
	p := filepath.Join(f.models, filepath.FromSlash(rel))
	require.NoError(f.t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(f.t, os.WriteFile(p, []byte(body), 0o644))
}

var oracle = Source{Model: "oracle", Oracle: true}

func (f *resumeFixture) m() Source { return Source{Model: "m", Dir: f.models} }

// run plans tasks × sources × repeat as the command does and executes it.
func (f *resumeFixture) run(tasks []*task.Task, sources []Source, repeat int, update bool) (*Summary, string, []Planned, error) {
	f.t.Helper()
	plan, err := Plan(tasks, sources, repeat)
	require.NoError(f.t, err)
	cfg := Config{Suite: "/suites/starter", Sources: sources, Repeat: repeat}
	for _, tk := range tasks {
		cfg.Tasks = append(cfg.Tasks, tk.ID)
	}
	var progress bytes.Buffer
	sum, err := Execute(context.Background(), Options{Out: f.out, Config: cfg, Plan: plan, Executor: &stubExecutor{},
		UpdateChanged: update, Progress: &progress, Worldprobe: "v1", Chromium: "120"})
	return sum, progress.String(), plan, err
}

// stored lists the finished trials of the run folder (folder names) and
// the keys in its database.
func (f *resumeFixture) stored() ([]string, []string) {
	f.t.Helper()
	entries, err := os.ReadDir(filepath.Join(f.out, "trials"))
	require.NoError(f.t, err)
	var dirs []string
	for _, e := range entries {
		require.FileExists(f.t, filepath.Join(f.out, "trials", e.Name(), "result.json"))
		dirs = append(dirs, e.Name())
	}
	db, err := store.OpenSQLite(context.Background(), filepath.Join(f.out, "results.db"))
	require.NoError(f.t, err)
	defer db.Close()
	ts, err := db.Trials(context.Background())
	require.NoError(f.t, err)
	var keys []string
	for _, t := range ts {
		keys = append(keys, t.Key)
	}
	return dirs, keys
}

func keysOf(plan []Planned) []string {
	var out []string
	for _, p := range plan {
		out = append(out, p.Key)
	}
	sort.Strings(out)
	return out
}

// Adding a model, a page where there was none, or samples resumes: their
// trials are run, every finished one is kept, and the progress says what
// was added.
func TestResumeTakesInAdditions(t *testing.T) {
	f := newResumeFixture(t)
	sum, progress, _, err := f.run(f.tasks, []Source{oracle}, 1, false)
	require.NoError(t, err)
	require.Equal(t, 2, sum.Ran)
	require.NotContains(t, progress, "resuming")

	// Model m, with a page for bouncing-ball only.
	sum, progress, _, err = f.run(f.tasks, []Source{oracle, f.m()}, 1, false)
	require.NoError(t, err)
	require.Equal(t, []int{2, 2}, []int{sum.Kept, sum.Ran})
	require.Equal(t, "resuming: added: model m (--candidates m="+f.models+"): 2 trials to run\n"+
		"resuming: 2 finished trials kept, 2 to run\n", firstLines(progress, 2))

	// m's page for counter-panel appears: its no_candidate trial is judged again.
	f.page("application/counter-panel.html", "<!doctype html><p>panel</p>")
	sum, progress, plan, err := f.run(f.tasks, []Source{oracle, f.m()}, 1, false)
	require.NoError(t, err)
	require.Equal(t, []int{3, 1}, []int{sum.Kept, sum.Ran})
	require.Equal(t, "resuming: added: model m, task application/counter-panel: page counter-panel (there was none: no_candidate): 1 trial to run\n"+
		"resuming: 3 finished trials kept, 1 to run\n", firstLines(progress, 2))
	dirs, keys := f.stored()
	require.Len(t, dirs, 4)
	require.Equal(t, keysOf(plan), keys, "the no_candidate trial is gone from the database too")

	// Two samples instead of one.
	sum, progress, plan, err = f.run(f.tasks, []Source{oracle, f.m()}, 2, false)
	require.NoError(t, err)
	require.Equal(t, []int{4, 4}, []int{sum.Kept, sum.Ran})
	require.Equal(t, "resuming: added: --repeat: 1 → 2: 4 more trials to run\n", firstLines(progress, 1))
	dirs, keys = f.stored()
	require.Len(t, dirs, 8)
	require.Equal(t, keysOf(plan), keys)

	// The same command again: nothing differs, nothing runs.
	sum, progress, _, err = f.run(f.tasks, []Source{oracle, f.m()}, 2, false)
	require.NoError(t, err)
	require.Equal(t, []int{8, 0}, []int{sum.Kept, sum.Ran})
	require.Equal(t, "resuming: 8 finished trials kept, 0 to run\n", progress)
	require.Empty(t, sum.Changes)
}

// A changed task folder or page is named with its digests; the resume is
// refused, saying what --update-changed would judge again, and nothing
// in the folder changes. With --update-changed only those trials run.
func TestResumeUpdateChanged(t *testing.T) {
	f := newResumeFixture(t)
	f.page("application/counter-panel.html", "<!doctype html><p>panel</p>")
	sources := []Source{oracle, f.m()}
	_, _, before, err := f.run(f.tasks, sources, 1, false)
	require.NoError(t, err)

	require.NoError(t, os.WriteFile(filepath.Join(f.tasks[0].Dir, "brief.md"), []byte("# another brief\n"), 0o644))
	f.page("application/counter-panel.html", "<!doctype html><p>panel, again</p>")
	plan, err := Plan(f.tasks, sources, 1)
	require.NoError(t, err)
	_, _, _, err = f.run(f.tasks, sources, 1, false)
	require.ErrorIs(t, err, ErrConfigChanged)
	require.EqualError(t, err, "the run folder was made with a different configuration ("+f.out+"):\n"+
		"  changed: task simulation/bouncing-ball: its folder changed (digest "+before[0].TaskDigest[:12]+" → "+plan[0].TaskDigest[:12]+"): 2 trials to judge again\n"+
		"  changed: model m, task application/counter-panel: page counter-panel changed (digest "+before[3].Digest[:12]+" → "+plan[3].Digest[:12]+"): 1 trial to judge again\n"+
		"run the same command with --update-changed: it judges again the 3 trials of the changed tasks and pages and keeps the other 1 finished trial; or use another --out folder")
	dirs, keys := f.stored()
	require.Len(t, dirs, 4)
	require.Equal(t, keysOf(before), keys, "a refused resume changes nothing")

	sum, progress, _, err := f.run(f.tasks, sources, 1, true)
	require.NoError(t, err)
	require.Equal(t, []int{1, 3}, []int{sum.Kept, sum.Ran})
	require.Equal(t, "resuming: changed: task simulation/bouncing-ball: its folder changed (digest "+before[0].TaskDigest[:12]+" → "+plan[0].TaskDigest[:12]+"): 2 trials to judge again\n"+
		"resuming: changed: model m, task application/counter-panel: page counter-panel changed (digest "+before[3].Digest[:12]+" → "+plan[3].Digest[:12]+"): 1 trial to judge again\n"+
		"resuming: 1 finished trial kept, 3 to run\n", firstLines(progress, 3))
	dirs, keys = f.stored()
	require.Len(t, dirs, 4)
	require.Equal(t, keysOf(plan), keys)

	// The folder now holds the new configuration: the same command needs no flag.
	sum, _, _, err = f.run(f.tasks, sources, 1, false)
	require.NoError(t, err)
	require.Equal(t, []int{4, 0}, []int{sum.Kept, sum.Ran})
}

// Removing a model, a task, a page or samples, or judging with another
// suite, candidates folder or Chromium is refused, each named with what
// it would drop; with a changed task too, the message says
// --update-changed alone would not do.
func TestResumeRefusesRemovals(t *testing.T) {
	f := newResumeFixture(t)
	_, _, _, err := f.run(f.tasks, []Source{oracle, f.m()}, 2, false)
	require.NoError(t, err)
	refusal := "what is refused cannot be resumed: run with the configuration the folder was made with, use another --out folder, or remove " + f.out + " to start over"

	_, _, _, err = f.run(f.tasks[:1], []Source{oracle}, 1, false)
	require.EqualError(t, err, "the run folder was made with a different configuration ("+f.out+"):\n"+
		"  refused: --repeat: 2 → 1: 1 finished trial of the samples past 1 would be dropped\n"+
		"  refused: model m removed (was --candidates m="+f.models+"): its 4 finished trials would be dropped\n"+
		"  refused: task application/counter-panel removed: its 2 finished trials would be dropped\n"+refusal)

	require.NoError(t, os.Remove(filepath.Join(f.models, "simulation", "bouncing-ball", "index.html")))
	other := Source{Model: "m2", Dir: t.TempDir()}
	_, _, _, err = f.run(f.tasks, []Source{oracle, f.m(), other}, 2, false)
	require.EqualError(t, err, "the run folder was made with a different configuration ("+f.out+"):\n"+
		"  added:   model m2 (--candidates m2="+other.Dir+"): 4 trials to run\n"+
		"  refused: model m, task simulation/bouncing-ball: page bouncing-ball is gone: its 2 finished trials would be dropped\n"+refusal)

	f.page("simulation/bouncing-ball/index.html", "<!doctype html><canvas></canvas>")
	require.NoError(t, os.WriteFile(filepath.Join(f.tasks[1].Dir, "brief.md"), []byte("# another brief\n"), 0o644))
	_, _, _, err = f.run(f.tasks, []Source{oracle, {Model: "m", Dir: other.Dir}}, 2, false)
	require.EqualError(t, err, "the run folder was made with a different configuration ("+f.out+"):\n"+
		"  refused: model m: --candidates m="+f.models+" → --candidates m="+other.Dir+"\n"+
		"  changed: task application/counter-panel: its folder changed (digest "+digestOf(t, f, 1)+"): 4 trials to judge again\n"+
		refusal+" (--update-changed judges again the 4 trials of the changed tasks and pages and keeps the other 2 finished trials, but only once nothing refused is left)")

	// Another Chromium.
	plan, err := Plan(f.tasks, []Source{oracle, f.m()}, 2)
	require.NoError(t, err)
	cfg := Config{Suite: "/suites/starter", Sources: []Source{oracle, f.m()}, Repeat: 2, Tasks: []string{f.tasks[0].ID, f.tasks[1].ID}}
	_, err = Execute(context.Background(), Options{Out: f.out, Config: cfg, Plan: plan, Executor: &stubExecutor{}, UpdateChanged: true,
		Worldprobe: "v1", Chromium: "121"})
	require.EqualError(t, err, "the run folder was made with a different configuration ("+f.out+"):\n"+
		"  refused: Chromium version: 120 → 121\n"+
		"  changed: task application/counter-panel: its folder changed (digest "+digestOf(t, f, 1)+"): 4 trials to judge again\n"+refusal)
}

// digestOf is "old → new" of task i's digest in the run folder's lock and
// now (12 digits each).
func digestOf(t *testing.T, f *resumeFixture, i int) string {
	t.Helper()
	l, err := readStored[Lock](filepath.Join(f.out, "lock.json"))
	require.NoError(t, err)
	require.NotNil(t, l)
	now, err := f.tasks[i].Digest()
	require.NoError(t, err)
	return l.Tasks[f.tasks[i].ID][:12] + " → " + now[:12]
}

// A finished trial the new plan does not hold and no change explains (a
// run folder without lock.json, say) is refused rather than dropped.
func TestResumeRefusesUnexplainedTrials(t *testing.T) {
	f := newResumeFixture(t)
	_, _, _, err := f.run(f.tasks, []Source{oracle}, 1, false)
	require.NoError(t, err)
	require.NoError(t, os.Remove(filepath.Join(f.out, "lock.json")))
	require.NoError(t, os.WriteFile(filepath.Join(f.tasks[0].Dir, "brief.md"), []byte("# another brief\n"), 0o644))
	_, _, _, err = f.run(f.tasks, []Source{oracle}, 1, true)
	require.EqualError(t, err, "the run folder was made with a different configuration ("+f.out+"):\n"+
		"  refused: 1 finished trial not in the new plan would be dropped (trials/simulation_bouncing-ball__oracle__solution__s0)\n"+
		"what is refused cannot be resumed: run with the configuration the folder was made with, use another --out folder, or remove "+f.out+" to start over")
}

func firstLines(s string, n int) string {
	lines := strings.SplitAfter(s, "\n")
	return strings.Join(lines[:min(n, len(lines))], "")
}

// MissingPages names, per candidates folder, the tasks it has no page
// for; Most is at least half of them.
func TestMissingPages(t *testing.T) {
	f := newResumeFixture(t)
	empty := Source{Model: "e", Dir: t.TempDir()}
	plan, err := Plan(f.tasks, []Source{oracle, f.m(), empty}, 3)
	require.NoError(t, err)
	got := MissingPages(plan, []Source{oracle, f.m(), empty})
	require.Equal(t, []Missing{
		{Source: f.m(), Tasks: []string{"application/counter-panel"}, Of: 2},
		{Source: empty, Tasks: []string{"simulation/bouncing-ball", "application/counter-panel"}, Of: 2},
	}, got)
	require.True(t, got[0].Most(), "1 of 2 is half")
	require.True(t, got[1].Most())
	require.False(t, Missing{Tasks: []string{"a"}, Of: 3}.Most())
	dir, file := got[1].Expected("simulation/bouncing-ball")
	require.Equal(t, filepath.Join(empty.Dir, "simulation", "bouncing-ball", "index.html"), dir)
	require.Equal(t, filepath.Join(empty.Dir, "simulation", "bouncing-ball.html"), file)
}
