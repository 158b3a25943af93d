package run

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/task"
)

// A model folder as 'worldprobe gen' writes it (sample-<k>/<task-id>/…)
// is that many samples of one model: pass@k counts them; each keeps its
// own page, and a missing page is that sample's no_candidate trial.
func TestPlanReadsGeneratedSamples(t *testing.T) {
	tasks := starterTasks(t)
	model := t.TempDir()
	write := func(sample, id, body string) {
		p := filepath.Join(model, sample, filepath.FromSlash(id), "index.html")
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	write("sample-1", "simulation/bouncing-ball", "<!doctype html><p>one</p>")
	write("sample-2", "simulation/bouncing-ball", "<!doctype html><p>one</p>") // the same page twice
	write("sample-10", "simulation/bouncing-ball", "<!doctype html><p>ten</p>")
	write("sample-1", "application/counter-panel", "<!doctype html><p>c</p>")
	require.NoError(t, os.MkdirAll(filepath.Join(model, "sample-x"), 0o755)) // not a sample
	require.NoError(t, os.MkdirAll(filepath.Join(model, "sample-02"), 0o755))

	dirs, ks, err := SampleDirs(model)
	require.NoError(t, err)
	require.Equal(t, []int{1, 2, 10}, ks)
	require.Equal(t, filepath.Join(model, "sample-10"), dirs[2])

	plan, err := Plan(tasks, []Source{{Model: "m", Dir: model}}, 2)
	require.NoError(t, err)
	type row struct {
		Task   string
		Sample int
		Page   bool
	}
	var got []row
	keys := map[string]bool{}
	for _, p := range plan {
		got = append(got, row{p.Task.ID, p.Sample, p.Page != ""})
		require.False(t, keys[p.Key], "trial keys are distinct, even for two samples with the same page")
		keys[p.Key] = true
	}
	require.Equal(t, []row{
		{"simulation/bouncing-ball", 0, true}, {"simulation/bouncing-ball", 1, true},
		{"simulation/bouncing-ball", 2, true}, {"simulation/bouncing-ball", 3, true},
		{"simulation/bouncing-ball", 18, true}, {"simulation/bouncing-ball", 19, true},
		{"application/counter-panel", 0, true}, {"application/counter-panel", 1, true},
		{"application/counter-panel", 2, false}, {"application/counter-panel", 3, false},
		{"application/counter-panel", 18, false}, {"application/counter-panel", 19, false},
	}, got, "samples 1, 2 and 10, each judged --repeat 2 times")

	missing := MissingPages(plan, []Source{{Model: "m", Dir: model}})
	require.Len(t, missing, 1)
	require.Equal(t, []string{"application/counter-panel"}, missing[0].Tasks)
	require.Equal(t, 2, missing[0].Of)
	dir, _ := missing[0].Expected("application/counter-panel")
	require.Equal(t, filepath.Join(model, "sample-<k>", "application", "counter-panel", "index.html"), dir)

	// A folder of pages is unchanged: samples 0 … repeat-1.
	flat := filepath.Join(model, "sample-1")
	plan, err = Plan(tasks[:1], []Source{{Model: "m", Dir: flat}}, 3)
	require.NoError(t, err)
	require.Len(t, plan, 3)
	for i, p := range plan {
		require.Equal(t, i, p.Sample)
	}
}

// PlanSample is the trial Plan makes (repeat 1) for one generated sample:
// the same key, folder and page, for first-shot and repaired sources.
func TestPlanSampleIsPlansTrial(t *testing.T) {
	tasks := starterTasks(t)
	model := t.TempDir()
	for _, s := range []string{"sample-1", "sample-2", "sample-10"} {
		p := filepath.Join(model, s, "simulation", "bouncing-ball", "index.html")
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte("<!doctype html><p>"+s+"</p>"), 0o644))
	}
	var tk = tasks[0]
	for _, x := range tasks {
		if x.ID == "simulation/bouncing-ball" {
			tk = x
		}
	}
	require.Equal(t, "simulation/bouncing-ball", tk.ID)
	for _, src := range []Source{{Model: "m", Dir: model}, {Model: "m", Dir: model, Repair: "error-only"}} {
		plan, err := Plan([]*task.Task{tk}, []Source{src}, 1)
		require.NoError(t, err)
		require.Len(t, plan, 3)
		for i, k := range []int{1, 2, 10} {
			p, err := PlanSample(tk, src, k)
			require.NoError(t, err)
			require.Equal(t, plan[i].Key, p.Key, "sample %d", k)
			require.Equal(t, plan[i].Dir(), p.Dir())
			require.Equal(t, plan[i].Page, p.Page)
			require.Equal(t, plan[i].Sample, p.Sample)
		}
	}
	// A sample without a page: the no_candidate trial Plan would make.
	p, err := PlanSample(tk, Source{Model: "m", Dir: model}, 3)
	require.NoError(t, err)
	require.Empty(t, p.Page)
	require.Equal(t, 2, p.Sample)
}
