package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/metrics"
	"github.com/worldprobe/worldprobe/internal/result"
)

// Hostile strings a candidate page controls: its state's keys and values
// and its error messages.
const (
	evilScript = `<script>alert(1)</script>`
	evilAttr   = `"><img src=x onerror=alert(1)>`
)

// fixtureRun writes a small run folder — a reference and a flawed page
// of one task with traces and screenshots, a crash with sixty assertions
// not run, a schema drift, a timeout, an infrastructure error, a trace
// that is not JSON and a trial without a folder — and returns its trials
// and their folders.
func fixtureRun(t *testing.T, dir string) ([]*result.Trial, map[string]string) {
	t.Helper()
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	base := func(key, task, model, cand string) *result.Trial {
		cat, _, _ := strings.Cut(task, "/")
		return &result.Trial{Key: key, Task: task, Category: cat, Difficulty: "D2", Model: model, Candidate: cand,
			Outcome: result.OutcomeOK, StartedAt: at, DurationMs: 1234.5}
	}
	fall := []result.Assertion{
		{Probe: "interface", Level: "affordance", Status: "pass", Expr: "ball.position: vec3"},
		{Probe: "falls", Level: "transition", Status: "pass", Expr: "after.ball.position[1] < before.ball.position[1]", Line: 11},
		{Probe: "falls", Level: "invariant", Status: "pass", Expr: "maxOf(trace.drop.map(x, x.ball.position[1])) <= 5.01 && s.bounces == 0", Line: 14},
	}
	oracle := base("k-oracle", "simulation/ball", "oracle", "solution")
	oracle.Pass, oracle.VCov, oracle.ACov, oracle.SCov, oracle.TCov = true, 1, 1, 1, 1
	oracle.Assertions, oracle.StateHash = fall, strings.Repeat("ab", 32)

	flawed := base("k-flawed", "simulation/ball", "fixtures", "energy-gain")
	flawed.VCov, flawed.ACov, flawed.SCov, flawed.TCov, flawed.Attribution = 2.0/3, 1, 1, 0, "physics_violation"
	flawed.Assertions = append([]result.Assertion(nil), fall...)
	flawed.Assertions[2].Status = "fail"
	flawed.Assertions[2].Message = "the ball never rises: maxOf(trace.drop.map(x, x.ball.position[1])) = 5.3, want <= 5.01 " + evilScript + evilAttr

	drift := base("k-drift", "simulation/ball", "gpt", "page")
	drift.Sample = 1
	drift.VCov, drift.ACov, drift.SCov, drift.TCov, drift.Attribution = 0.5, 0.5, 1, 1, "schema_drift"
	drift.Assertions = []result.Assertion{{Probe: "interface", Level: "affordance", Status: "fail", Expr: "ball.position: vec3",
		Message: `ball.position = {"x":0}, want vec3 (an array [x, y, z] of 3 numbers)`}, fall[1]}

	crash := base("k-crash", "simulation/ball", "fixtures", "throws")
	crash.Outcome, crash.CrashKind, crash.Attribution = result.OutcomeCrash, result.CrashJSException, "crash"
	crash.CrashMessage = "Uncaught TypeError: " + evilScript + " at index.html:12"
	for i := range 60 {
		crash.Assertions = append(crash.Assertions, result.Assertion{Probe: fmt.Sprintf("p%02d", i), Level: "state", Status: "error",
			Message: "not run: the page failed in probe interface (Uncaught TypeError)", Expr: "s.x > 0", Line: 10 + i})
	}

	timeout := base("k-timeout", "rendering/fog", "gpt", "page")
	timeout.Outcome, timeout.CrashKind, timeout.Attribution = result.OutcomeCrash, result.CrashTimeout, "crash"
	timeout.CrashMessage, timeout.Retries, timeout.RetryReasons = "the page did not return control within 30s", 1, []string{"load average 4.1 per core: deadline doubled"}
	infra := base("k-infra", "rendering/fog", "gpt", "page")
	infra.Sample, infra.Outcome, infra.Attribution = 1, result.OutcomeInfra, "infra"
	badTrace := base("k-badtrace", "rendering/fog", "oracle", "solution")
	badTrace.Pass, badTrace.VCov, badTrace.ACov, badTrace.SCov, badTrace.TCov = true, 1, 1, 1, 1
	nofolder := base("k-nofolder", "application/chart", "gpt", "page")
	nofolder.Pass, nofolder.VCov, nofolder.ACov, nofolder.SCov, nofolder.TCov = true, 1, 1, 1, 1

	state := func(y float64, extra map[string]any) map[string]any {
		s := map[string]any{"ball": map[string]any{"position": []any{0.0, y, 0.0}}, "bounces": 0.0}
		for k, v := range extra {
			s[k] = v
		}
		return s
	}
	hostile := map[string]any{evilScript: evilAttr, evilAttr: evilScript}
	ballTrace := func(ys []float64, extra map[string]any) []map[string]any {
		lines := []map[string]any{{"probe": "interface", "kind": "state", "frame": 5, "state": state(ys[0], extra)},
			{"probe": "falls", "kind": "snapshot", "name": "before", "line": 8, "frame": 1, "state": state(ys[0], extra)}}
		for i, y := range ys {
			lines = append(lines, map[string]any{"probe": "falls", "kind": "trace", "name": "drop", "line": 9, "frame": 1 + 10*i, "state": state(y, extra)})
		}
		last := ys[len(ys)-1]
		return append(lines,
			map[string]any{"probe": "falls", "kind": "snapshot", "name": "after", "line": 10, "frame": 31, "state": state(last, extra)},
			map[string]any{"probe": "falls", "kind": "assert", "line": 14, "frame": 31, "state": state(last, extra)})
	}
	dirs := map[string]string{}
	write := func(tr *result.Trial, trace []map[string]any, raw string, shot bool) {
		d := "trials/" + strings.ReplaceAll(tr.Task, "/", "_") + "__" + tr.Model + "__" + tr.Candidate + "__s" + fmt.Sprint(tr.Sample)
		dirs[tr.Key] = d
		full := filepath.Join(dir, filepath.FromSlash(d))
		require.NoError(t, os.MkdirAll(full, 0o755))
		b, err := json.Marshal(tr)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(full, "result.json"), b, 0o644))
		if trace != nil || raw != "" {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			for _, l := range trace {
				require.NoError(t, enc.Encode(l))
			}
			buf.WriteString(raw)
			require.NoError(t, os.WriteFile(filepath.Join(full, "trace.jsonl"), buf.Bytes(), 0o644))
		}
		if shot {
			var png bytes.Buffer
			require.NoError(t, pngEncode(&png))
			require.NoError(t, os.WriteFile(filepath.Join(full, "screenshot.png"), png.Bytes(), 0o644))
			tr.Screenshot = filepath.Join(full, "screenshot.png")
		}
	}
	// The flawed page's probe was recorded: a WebM (a stand-in file: the
	// page only links it), a contact sheet, and a probe whose clip
	// could not be written.
	flawed.Videos = []result.Video{
		{Probe: "falls", File: "video-falls.webm", Kind: "webm", Frames: 40, Every: 1, FPS: 60, DurationS: 40.0 / 60, Width: 2, Height: 2},
		{Probe: "rests", File: "video-rests.png", Kind: "contact-sheet", Frames: 300, Every: 2, FPS: 30, DurationS: 10, Width: 2, Height: 2,
			Sampled: []int{2, 600}, Error: "recording frame 601: " + evilScript},
		{Probe: "gone", File: "video-gone.webm", Kind: "webm", Frames: 3, Every: 1, FPS: 60, DurationS: 0.05},
		{Probe: "empty", Frames: 0, Error: "encoding a clip: no frames were recorded"},
	}
	write(oracle, ballTrace([]float64{5, 4.5, 3.0, 0.6}, nil), "", true)
	write(flawed, ballTrace([]float64{5, 5.3, 4.1, 1.9}, hostile), "", true)
	for _, f := range []string{"video-falls.webm", "video-rests.png"} {
		var png bytes.Buffer
		require.NoError(t, pngEncode(&png))
		require.NoError(t, os.WriteFile(filepath.Join(dir, filepath.FromSlash(dirs[flawed.Key]), f), png.Bytes(), 0o644))
	}
	write(drift, []map[string]any{{"probe": "interface", "kind": "state", "frame": 5, "state": map[string]any{"ball": map[string]any{"position": map[string]any{"x": 0.0}}}}}, "", false)
	write(crash, nil, "", true)
	write(timeout, nil, "", false)
	write(infra, nil, "", false)
	write(badTrace, []map[string]any{{"probe": "interface", "kind": "state", "frame": 5, "state": map[string]any{"fog": 1.0}}}, "{not json\n", false)
	return []*result.Trial{oracle, flawed, drift, crash, timeout, infra, badTrace, nofolder}, dirs
}

func pngEncode(w *bytes.Buffer) error { return png.Encode(w, image.NewGray(image.Rect(0, 0, 2, 2))) }

// writeFixtureReport writes the report of fixtureRun into a fresh folder.
func writeFixtureReport(t *testing.T) (dir string, trials []*result.Trial, dirs map[string]string) {
	t.Helper()
	dir = t.TempDir()
	trials, dirs = fixtureRun(t, dir)
	require.NoError(t, WriteHTML(filepath.Join(dir, "report.html"), Page{Title: "worldprobe run: fixture", Generated: "2026-01-01T00:00:00Z",
		Sandbox: "Chromium's sandbox", Trials: trials, Dirs: dirs}))
	return dir, trials, dirs
}

func goldenHTML(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.WriteFile(path, got, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test ./internal/report -update to create it")
	require.Equal(t, string(want), string(got), "%s (go test ./internal/report -update rewrites it)", name)
}

// TestHTMLGolden compares report.html and three trial pages (a failure
// with plots, a crash, a schema drift) with testdata/*.html. The output
// holds no time but Page.Generated and no map order, so it is the same
// on every run (the second rendering below checks that too).
func TestHTMLGolden(t *testing.T) {
	dir, trials, dirs := writeFixtureReport(t)
	read := func(rel string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
		require.NoError(t, err)
		return b
	}
	first := read("report.html")
	goldenHTML(t, "report.html", first)
	goldenHTML(t, "trial-fail.html", read(dirs["k-flawed"]+"/index.html"))
	goldenHTML(t, "trial-crash.html", read(dirs["k-crash"]+"/index.html"))
	goldenHTML(t, "trial-drift.html", read(dirs["k-drift"]+"/index.html"))

	// Rendered again from the trials in another order: the same bytes.
	rev := append([]*result.Trial(nil), trials...)
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	require.NoError(t, WriteHTML(filepath.Join(dir, "report.html"), Page{Title: "worldprobe run: fixture", Generated: "2026-01-01T00:00:00Z",
		Sandbox: "Chromium's sandbox", Trials: rev, Dirs: dirs}))
	require.Equal(t, string(first), string(read("report.html")))
}

// What the pages say, checked where the golden files only show it.
func TestHTMLContent(t *testing.T) {
	dir, _, dirs := writeFixtureReport(t)
	read := func(rel string) string {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
		require.NoError(t, err)
		return string(b)
	}
	report := read("report.html")
	// Grid cells link to trial pages, with a text mark beside the colour.
	require.Contains(t, report, `<a class="chip fail" href="trials/simulation_ball__fixtures__energy-gain__s0/index.html" title="fixtures, energy-gain: fail, V-Cov 66.7%, physics_violation" data-status="fail" data-attribution="physics_violation" data-model="fixtures">✗ 66%</a>`)
	require.Contains(t, report, `data-model="gpt">? infra</a>`)
	require.Contains(t, report, `data-status="timeout" data-attribution="crash" data-model="gpt">! timeout</a>`)
	// A trial without a folder is in the grid, without a link.
	require.Contains(t, report, `<span class="chip pass" title="gpt, page: pass, V-Cov 100.0%" data-status="pass" data-attribution="" data-model="gpt">✓ 100%</span>`)
	// The filters are hidden until the script shows them: without
	// JavaScript the page is the whole grid.
	require.Contains(t, report, `<form id="filters" class="filters" hidden>`)
	require.Contains(t, report, `<select name="status"><option value="">any</option><option>pass</option><option>fail</option><option>crash</option><option>timeout</option><option>infra</option></select>`)
	require.Contains(t, report, `<select name="attribution"><option value="">any</option><option>crash</option><option>infra</option><option>physics_violation</option><option>schema_drift</option></select>`)
	require.Contains(t, report, "1 trial(s) not scored: infrastructure errors")
	require.Contains(t, report, "Cost vs. V-Cov: no trial has a recorded generation cost")
	require.Equal(t, 1, strings.Count(report, "<script"), "one script: the filters'")

	crash := read(dirs["k-crash"] + "/index.html")
	// A crash is one line, and its sixty assertions not run are folded.
	require.Contains(t, crash, `<div class="crashline"><b>crash: js_exception</b> — Uncaught TypeError: &lt;script&gt;alert(1)&lt;/script&gt; at index.html:12</div>`)
	require.Contains(t, crash, "<details><summary>60 assertion(s) not run</summary>")
	require.NotContains(t, crash, `id="failed"`, "no failed-assertion list for a page that never ran them")
	require.Equal(t, 60, strings.Count(crash, "not run: the page failed"))

	fail := read(dirs["k-flawed"] + "/index.html")
	require.Contains(t, fail, `<a href="../simulation_ball__oracle__solution__s0/index.html">reference trial (oracle/solution sample 0)</a>`)
	// The values of the state the assertion read, against the reference's.
	require.Contains(t, fail, `<tr><td class="mono">bounces</td><td>s at line 14 (frame 31)</td><td class="mono">0</td><td class="mono">0</td></tr>`)
	// One state-over-time plot: ball.position[1] over the probe's frames,
	// this page's values and the reference's dashed, the assertion marked.
	require.Equal(t, 1, strings.Count(fail, "<svg"))
	require.Contains(t, fail, "<title>ball.position[1] in probe falls, per frame: this page against the reference</title>")
	require.Contains(t, fail, "<title>this page: 5.3 at frame (since the probe&#39;s page loaded) 11</title>")
	require.Contains(t, fail, "<title>reference: 4.5 at frame (since the probe&#39;s page loaded) 11</title>")
	require.Contains(t, fail, `<title>the assertion of line 14 read the state here</title>`)
	require.Contains(t, fail, `<img class="shot" src="screenshot.png" alt="the page's canvas after load">`)
	require.Equal(t, 0, strings.Count(fail, "<script"))

	drift := read(dirs["k-drift"] + "/index.html")
	require.Contains(t, drift, `<tr><td class="mono">ball.position</td><td>state after load (frame 5)</td><td class="mono">{&#34;x&#34;:0}</td><td class="mono">[0,5,0]</td></tr>`)

	bad := read(dirs["k-badtrace"] + "/index.html")
	require.Contains(t, bad, `<p class="warn">reading trace.jsonl: line 2: invalid character &#39;n&#39; looking for beginning of object key string</p>`)
	require.NotContains(t, bad, dir, "no absolute path: the run folder can move")
}

// Candidate-controlled strings — a message, a crash message, a state's
// keys and values — reach the pages only escaped.
func TestHTMLEscapesCandidateStrings(t *testing.T) {
	dir, _, _ := writeFixtureReport(t)
	pages, err := filepath.Glob(filepath.Join(dir, "trials", "*", "index.html"))
	require.NoError(t, err)
	pages = append(pages, filepath.Join(dir, "report.html"))
	escaped := 0
	for _, p := range pages {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		html := string(b)
		require.NotContains(t, html, evilScript, p)
		require.NotContains(t, html, "<img src=x", p)
		require.NotContains(t, html, "onerror=alert(1)>", p)
		escaped += strings.Count(html, "&lt;script&gt;alert(1)&lt;/script&gt;")
	}
	// The flawed page: its message, a video's recording error, and a key
	// and a value of its state in every one of its 8 trace rows; the
	// crash: its message.
	require.Equal(t, 1+1+2*8+1, escaped)
	b, err := os.ReadFile(filepath.Join(dir, "trials", "simulation_ball__fixtures__energy-gain__s0", "index.html"))
	require.NoError(t, err)
	require.Contains(t, string(b), "want &lt;= 5.01 &lt;script&gt;alert(1)&lt;/script&gt;&#34;&gt;&lt;img src=x onerror=alert(1)&gt;")
	// In the trace table, as JSON: the key's quote escaped by JSON, then
	// everything by HTML.
	require.Equal(t, 2*8, strings.Count(string(b), `&#34;\&#34;&gt;&lt;img src=x onerror=alert(1)&gt;&#34;`))
}

var linkRE = regexp.MustCompile(`(?:href|src)="([^"]*)"`)

// Every local link of report.html and of the trial pages names a file of
// the run folder (and every #anchor an id of its page); none is absolute.
func TestHTMLLinksResolve(t *testing.T) {
	dir, _, _ := writeFixtureReport(t)
	pages, err := filepath.Glob(filepath.Join(dir, "trials", "*", "index.html"))
	require.NoError(t, err)
	require.Len(t, pages, 7, "every trial with a folder has a page")
	pages = append(pages, filepath.Join(dir, "report.html"))
	checked := 0
	for _, p := range pages {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		for _, m := range linkRE.FindAllStringSubmatch(string(b), -1) {
			link := strings.ReplaceAll(m[1], "&amp;", "&")
			u, err := url.Parse(link)
			require.NoError(t, err, link)
			require.Empty(t, u.Scheme, "%s: %s is not relative", p, link)
			require.False(t, strings.HasPrefix(u.Path, "/"), "%s: %s is absolute", p, link)
			target := p
			if u.Path != "" {
				target = filepath.Join(filepath.Dir(p), filepath.FromSlash(u.Path))
				require.FileExists(t, target, "%s links to %s", p, link)
				rel, err := filepath.Rel(dir, target)
				require.NoError(t, err)
				require.True(t, filepath.IsLocal(rel), "%s leaves the run folder", link)
			}
			if u.Fragment != "" {
				tb, err := os.ReadFile(target)
				require.NoError(t, err)
				require.Contains(t, string(tb), `id="`+u.Fragment+`"`, "%s: #%s", p, u.Fragment)
			}
			checked++
		}
	}
	require.Greater(t, checked, 40)
}

// A demo-sized run: 200 trials, 20 tasks, 10 pages per task. report.html
// holds no trace, so it stays small; each trial's trace is on its page.
func TestHTMLSize(t *testing.T) {
	dir := t.TempDir()
	var trials []*result.Trial
	dirs := map[string]string{}
	for task := range 20 {
		for i := range 10 {
			model, cand := "fixtures", fmt.Sprintf("flaw-%d", i)
			if i == 0 {
				model, cand = "oracle", "solution"
			}
			cat := []string{"simulation", "rendering", "application"}[task%3]
			tr := &result.Trial{Key: fmt.Sprintf("t%d-%d", task, i), Task: fmt.Sprintf("%s/task-%02d", cat, task), Category: cat, Difficulty: "D3",
				Model: model, Candidate: cand, Outcome: result.OutcomeOK, VCov: 1 - float64(i)/20, Pass: i == 0, Attribution: "state_mismatch"}
			if i == 0 {
				tr.Attribution = ""
			}
			for a := range 30 {
				st := "pass"
				if a < i {
					st = "fail"
				}
				tr.Assertions = append(tr.Assertions, result.Assertion{Probe: fmt.Sprintf("p%d", a/5), Level: "state", Status: st, Expr: "s.x > 0", Line: 10 + a, Message: "s.x = -1, want > 0"})
			}
			trials = append(trials, tr)
			dirs[tr.Key] = "trials/" + tr.Key
			require.NoError(t, os.MkdirAll(filepath.Join(dir, "trials", tr.Key), 0o755))
		}
	}
	l, err := NewLeaderboard("size", "", trials, metrics.BoardOptions{})
	require.NoError(t, err)
	require.NoError(t, WriteHTML(filepath.Join(dir, "report.html"), Page{Title: "size", Trials: trials, Board: l, Dirs: dirs}))
	st, err := os.Stat(filepath.Join(dir, "report.html"))
	require.NoError(t, err)
	t.Logf("report.html of 200 trials: %d bytes", st.Size())
	require.Less(t, st.Size(), int64(120<<10), "report.html of 200 trials")
}

// A folder that is gone, or outside the run folder, gets no page and no
// link; the report is written all the same.
func TestHTMLSkipsMissingAndOutsideFolders(t *testing.T) {
	dir := t.TempDir()
	trials := []*result.Trial{
		{Key: "gone", Task: "simulation/a", Category: "simulation", Model: "m", Candidate: "c", Outcome: result.OutcomeOK, Pass: true, VCov: 1},
		{Key: "out", Task: "simulation/b", Category: "simulation", Model: "m", Candidate: "c", Outcome: result.OutcomeOK, Pass: true, VCov: 1},
	}
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "run"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "elsewhere"), 0o755))
	require.NoError(t, WriteHTML(filepath.Join(dir, "run", "report.html"), Page{Title: "t", Trials: trials,
		Dirs: map[string]string{"gone": "trials/gone", "out": "../elsewhere"}}))
	b, err := os.ReadFile(filepath.Join(dir, "run", "report.html"))
	require.NoError(t, err)
	require.Equal(t, 2, strings.Count(string(b), `<span class="chip pass" title=`))
	require.NotContains(t, string(b), `<a class="chip`)
	require.NoFileExists(t, filepath.Join(dir, "elsewhere", TrialPage))
}
