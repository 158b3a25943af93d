package coverage

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/chromedp/cdproto/profiler"

	"github.com/worldprobe/worldprobe/internal/session"
	"github.com/worldprobe/worldprobe/internal/testenv"
	"github.com/worldprobe/worldprobe/internal/worldjudge/quote"
)

var h testenv.Harness

func TestMain(m *testing.M) { testenv.RunMain(m, 1, &h) }

func states(r *Report, from, to int) []string {
	var out []string
	for l := from; l <= to; l++ {
		out = append(out, r.Line(l).String())
	}
	return out
}

// TestMapInnermostRangeDecides maps hand-made V8 ranges: the script
// starts on line 2 (0-based 1) at column 8 after "<script>".
func TestMapInnermostRangeDecides(t *testing.T) {
	html := "<p>\n<script>a();\nif(x){\n  b();\n}\nfunction f(){\n  c();\n}</script>"
	// Script text: "a();\nif(x){\n  b();\n}\nfunction f(){\n  c();\n}" (43 units).
	scripts := []session.CoverageScript{{
		URL: "u", StartLine: 1, StartColumn: 8,
		Functions: []*profiler.FunctionCoverage{
			{Ranges: []*profiler.CoverageRange{{StartOffset: 0, EndOffset: 43, Count: 1}, {StartOffset: 10, EndOffset: 20, Count: 0}}},
			{FunctionName: "f", Ranges: []*profiler.CoverageRange{{StartOffset: 21, EndOffset: 43, Count: 0}}},
		},
	}, {URL: "other", StartLine: 0, Functions: []*profiler.FunctionCoverage{{Ranges: []*profiler.CoverageRange{{StartOffset: 0, EndOffset: 3, Count: 0}}}}}}
	r := Map(html, "u", scripts)
	want := []string{"unknown", "ran", "ran", "not_run", "not_run", "not_run", "not_run", "not_run"}
	if got := states(r, 1, 8); !reflect.DeepEqual(got, want) {
		t.Fatalf("lines %v, want %v", got, want)
	}
	if r.Scripts != 1 || r.Functions != 1 || r.FunctionsRun != 0 || r.CodeLines != 7 || r.LinesRun != 2 || !reflect.DeepEqual(r.NeverCalled, []string{"f"}) {
		t.Fatalf("%+v", r)
	}
}

// TestCoverageOfARealPage loads a page in Chromium with coverage on and
// checks, line by line, what ran: a called function, one never called, a
// branch never taken, and an animation-frame callback run by a step.
func TestCoverageOfARealPage(t *testing.T) {
	path := filepath.Join("testdata", "ran.html")
	html, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s, err := session.Open(ctx, h.Browser, h.Resolver, path, session.Config{Seed: 1, FPS: 60, Width: 320, Height: 240, SkipDraw: true, Coverage: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Step(ctx, 2, false); err != nil {
		t.Fatal(err)
	}
	scripts, err := s.TakeCoverage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r := Map(string(html), s.EntryURL(), scripts)
	want := []string{
		"ran",     // 4 function used(n) {
		"ran",     // 5   let s = 0;
		"ran",     // 6   for …
		"ran",     // 7   return s;
		"ran",     // 8 }
		"not_run", // 9 function unused() {
		"not_run", // 10   return "never called";
		"not_run", // 11 }
		"ran",     // 12 window.total = used(3);
		"ran",     // 13 if (window.total > 100) {
		"not_run", // 14   window.big = true;
		"not_run", // 15 }
		"ran",     // 16 requestAnimationFrame(function frame() { … });
	}
	if got := states(r, 4, 16); !reflect.DeepEqual(got, want) {
		t.Fatalf("lines 4–16: %v\nwant %v", got, want)
	}
	if r.Line(3) != Unknown || r.Line(17) != Unknown {
		t.Fatalf("markup lines: %v %v", r.Line(3), r.Line(17))
	}
	if !reflect.DeepEqual(r.NeverCalled, []string{"unused"}) || r.Functions != 3 || r.FunctionsRun != 2 {
		t.Fatalf("functions: %+v", r)
	}
	// A verified quote of the dead function earns nothing; of the live one
	// it does.
	src := quote.NewSource(string(html))
	dead := src.Check(`function unused() {
  return "never called";`, quote.WorldBench)
	live := src.Check("for (let i = 0; i < n; i++) s += i;", quote.WorldBench)
	if !dead.Verified || !live.Verified {
		t.Fatalf("quotes not verified: %+v %+v", dead, live)
	}
	if q := r.Quote(dead); q.Ran || !reflect.DeepEqual(q.Lines, []LineState{{9, "not_run"}, {10, "not_run"}}) {
		t.Fatalf("dead quote: %+v", q)
	}
	if q := r.Quote(live); !q.Ran || !reflect.DeepEqual(q.Lines, []LineState{{6, "ran"}}) {
		t.Fatalf("live quote: %+v", q)
	}
	// The branch never taken: verified, never ran.
	if q := r.Quote(src.Check("window.big = true;", quote.WorldBench)); q.Ran {
		t.Fatalf("untaken branch: %+v", q)
	}
}
