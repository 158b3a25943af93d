package judges

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/task"
	"github.com/worldprobe/worldprobe/internal/testenv"
)

// shared is the browser and resolver of this package's tests.
var shared testenv.Harness

func TestMain(m *testing.M) {
	testenv.RunMain(m, 2, &shared)
}

// starterTask copies a starter task into a folder the test may change,
// without its contract.yaml: the judges must never need it.
func starterTask(t *testing.T, id string) *task.Task {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.FromSlash(id))
	require.NoError(t, os.CopyFS(dst, os.DirFS(filepath.Join("..", "..", "suites", "starter", filepath.FromSlash(id)))))
	require.NoError(t, os.Remove(filepath.Join(dst, task.ContractFile)))
	tk, err := task.Load(dst)
	require.NoError(t, err)
	return tk
}

// editedReference writes the task's reference with each old text
// replaced by the new one after it (each found exactly once) and returns
// its path.
func editedReference(t *testing.T, tk *task.Task, oldNew ...string) string {
	t.Helper()
	b, err := os.ReadFile(tk.SolutionPath())
	require.NoError(t, err)
	html := string(b)
	for i := 0; i < len(oldNew); i += 2 {
		require.Equal(t, 1, strings.Count(html, oldNew[i]), "the reference holds %q once", oldNew[i])
		html = strings.Replace(html, oldNew[i], oldNew[i+1], 1)
	}
	page := filepath.Join(t.TempDir(), "index.html")
	require.NoError(t, os.WriteFile(page, []byte(html), 0o644))
	return page
}

func domJudge() *DOMJudge { return &DOMJudge{Browser: shared.Browser, Resolver: shared.Resolver} }

func verdictChecks(v *Verdict) []string {
	var out []string
	for _, c := range v.Checks {
		out = append(out, c.Name)
	}
	return out
}

// The starter references pass the DOM check, with every element their
// brief and controls name found; a reference with one named button gone
// fails, its reason naming the button.
func TestDOMJudgeCounterPanel(t *testing.T) {
	ctx := context.Background()
	tk := starterTask(t, "application/counter-panel")
	v, err := Run(ctx, domJudge(), Candidate{Task: tk, Page: tk.SolutionPath()})
	require.NoError(t, err)
	require.Equal(t, []string{"document", "canvas", "#panel", "#count", "#toggle-panel", "#inc", "#dec", "#reset"}, verdictChecks(v))
	require.True(t, v.Pass, v.Reason)
	require.Equal(t, 1.0, v.Score)
	require.Equal(t, "all 8 checks passed", v.Reason)
	require.Equal(t, "dom", v.Judge)
	require.Equal(t, "dom v1, 30 frames", v.Config)
	require.Equal(t, "800×600 CSS pixels, 800×600 backing", v.Checks[1].Detail, "the task's viewport")
	require.Greater(t, v.Cost.WallMs, 0.0)
	require.Zero(t, v.Cost.Calls)

	// The reset button under another id.
	page := editedReference(t, tk, `id="reset"`, `id="zero"`, `getElementById('reset')`, `getElementById('zero')`)
	v, err = Run(ctx, domJudge(), Candidate{Task: tk, Page: page})
	require.NoError(t, err)
	require.False(t, v.Pass)
	require.Equal(t, 7.0/8, v.Score)
	require.Equal(t, "1 of 8 checks failed: #reset: no element matches (named at task.yaml controls)", v.Reason)
}

// A HUD's label is read from its text; an element the brief shows only
// at times may be hidden at load; a hidden element that should show
// fails.
func TestDOMJudgeLabelsAndVisibility(t *testing.T) {
	ctx := context.Background()
	ball := starterTask(t, "simulation/bouncing-ball")
	v, err := Run(ctx, domJudge(), Candidate{Task: ball, Page: ball.SolutionPath()})
	require.NoError(t, err)
	require.True(t, v.Pass, v.Reason)
	require.Equal(t, []Check{
		{Name: "document", Pass: true, Detail: "loaded; no uncaught exception in 30 frames"},
		{Name: "canvas", Pass: true, Detail: v.Checks[1].Detail},
		{Name: "#hud", Pass: true, Detail: "exists and is visible"},
		{Name: `#hud text "Bounces:"`, Pass: true, Detail: `its text "Bounces: 0" holds it`},
	}, v.Checks)

	page := editedReference(t, ball, "hud.textContent = 'Bounces: ' + bounces;", "hud.textContent = 'Hits: ' + bounces;",
		`<div id="hud">Bounces: 0</div>`, `<div id="hud">Hits: 0</div>`)
	v, err = Run(ctx, domJudge(), Candidate{Task: ball, Page: page})
	require.NoError(t, err)
	require.False(t, v.Pass)
	require.Equal(t, 0.75, v.Score)
	require.Equal(t, `1 of 4 checks failed: #hud text "Bounces:": its text "Hits: 0" does not hold "Bounces:"`, v.Reason)

	chart := starterTask(t, "application/bar-chart")
	v, err = Run(ctx, domJudge(), Candidate{Task: chart, Page: chart.SolutionPath()})
	require.NoError(t, err)
	require.True(t, v.Pass, v.Reason)
	require.Equal(t, Check{Name: "#tooltip", Pass: true, Detail: "exists (hidden now; the brief shows it only at times)"}, v.Checks[2])

	page = editedReference(t, chart, `<div id="panel">`, `<div id="panel" style="display: none">`)
	v, err = Run(ctx, domJudge(), Candidate{Task: chart, Page: page})
	require.NoError(t, err)
	require.Equal(t, "2 of 5 checks failed: "+
		"#sort-asc: exists but is not visible (no size, display: none, visibility: hidden or opacity 0); "+
		"#sort-desc: exists but is not visible (no size, display: none, visibility: hidden or opacity 0)", v.Reason)
}

// What a DOM grader sees of a broken page: an uncaught exception fails
// the document check but the DOM is still checked; a page with no canvas
// fails the canvas check; a page that never returns control and a
// missing page are checked no further.
func TestDOMJudgeBrokenPages(t *testing.T) {
	ctx := context.Background()
	tk := starterTask(t, "application/counter-panel")
	write := func(html string) string {
		page := filepath.Join(t.TempDir(), "index.html")
		require.NoError(t, os.WriteFile(page, []byte(html), 0o644))
		return page
	}
	ids := `<div id="panel"><div id="count">0</div><button id="inc">+</button><button id="dec">-</button><button id="reset">0</button></div><button id="toggle-panel">Panel</button>`

	v, err := Run(ctx, domJudge(), Candidate{Task: tk, Page: write(`<!doctype html><canvas width="80" height="60"></canvas>` + ids +
		`<script>window.counter.start();</script>`)})
	require.NoError(t, err)
	require.False(t, v.Pass)
	require.Equal(t, 7.0/8, v.Score, "every element is there")
	require.Equal(t, "1 of 8 checks failed: document: uncaught exception (line 1): Uncaught TypeError: Cannot read properties of undefined (reading 'start')", v.Reason)

	v, err = Run(ctx, domJudge(), Candidate{Task: tk, Page: write(`<!doctype html>` + ids)})
	require.NoError(t, err)
	require.Equal(t, "1 of 8 checks failed: canvas: no canvas element", v.Reason)

	tk.Timeout = task.Duration(2e9)
	v, err = Run(ctx, domJudge(), Candidate{Task: tk, Page: write(`<!doctype html><canvas></canvas>` + ids +
		`<script>let n = 0; requestAnimationFrame(function f() { if (++n === 5) for (;;) {} requestAnimationFrame(f); });</script>`)})
	require.NoError(t, err)
	require.Equal(t, 0.0, v.Score)
	require.Equal(t, "not checked: the page stopped responding within its first 30 frames", v.Checks[7].Detail)
	require.True(t, strings.HasPrefix(v.Reason, "8 of 8 checks failed: document: the page stopped responding within its first 30 frames; canvas: not checked"), v.Reason)

	v, err = Run(ctx, domJudge(), Candidate{Task: tk})
	require.NoError(t, err)
	require.Equal(t, 0.0, v.Score)
	require.Equal(t, Check{Name: "#reset", Detail: "not checked: the model produced no page"}, v.Checks[7])
}

// Every starter reference passes the DOM check, and so does every blind
// alternate: what the brief names is there, however the page is written.
// (Slow: 31 references and their alternates; TestDOMJudgeCounterPanel is
// the case make test keeps.)
func TestDOMJudgePassesEveryStarterSolution(t *testing.T) {
	testenv.Slow(t)
	tasks, err := task.LoadSuite(filepath.Join("..", "..", "suites", "starter"))
	require.NoError(t, err)
	for _, tk := range tasks {
		pages := []string{tk.SolutionPath()}
		alts, _ := filepath.Glob(filepath.Join(tk.Dir, "solutions", "*", "index.html"))
		for _, page := range append(pages, alts...) {
			v, err := Run(context.Background(), domJudge(), Candidate{Task: tk, Page: page})
			require.NoError(t, err)
			require.True(t, v.Pass, "%s: %s", page, v.Reason)
		}
	}
}

// A page that misses its deadline while the machine is overloaded is
// looked at again with the deadline doubled; when it still misses it, the
// timeout is the page's only if a blank page runs promptly — else no
// verdict is recorded (ErrOverloaded), as for a trial.
func TestDOMJudgeOverloadedMachine(t *testing.T) {
	tk := starterTask(t, "application/counter-panel")
	tk.Timeout = task.Duration(500e6)
	page := filepath.Join(t.TempDir(), "index.html")
	require.NoError(t, os.WriteFile(page, []byte(`<!doctype html><canvas></canvas>
<script>let n = 0; requestAnimationFrame(function f() { if (++n === 5) for (;;) {} requestAnimationFrame(f); });</script>`), 0o644))
	var asked []time.Duration
	busy := Machine{Load: func() float64 { return 4 }, Healthy: func(_ context.Context, within time.Duration) bool {
		asked = append(asked, within)
		return false
	}}
	d := &DOMJudge{Browser: shared.Browser, Resolver: shared.Resolver, Machine: busy}
	_, err := Run(context.Background(), d, Candidate{Task: tk, Page: page})
	require.ErrorIs(t, err, ErrOverloaded)
	require.EqualError(t, err, "the machine was too overloaded to judge the page: it missed its 2s deadline 3 times with 4.0 load per core, and a blank page did not run within 10s either")
	require.Equal(t, []time.Duration{10 * time.Second}, asked, "asked once, after the last attempt")

	busy.Healthy = func(context.Context, time.Duration) bool { return true }
	d.Machine = busy
	v, err := Run(context.Background(), d, Candidate{Task: tk, Page: page})
	require.NoError(t, err, "a blank page runs: the page's own timeout")
	require.Equal(t, "the page stopped responding within its first 30 frames", v.Checks[0].Detail)
}
