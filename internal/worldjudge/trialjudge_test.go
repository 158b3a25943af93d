package worldjudge

import (
	"errors"
	"testing"

	"github.com/worldprobe/worldprobe/internal/result"
	"github.com/worldprobe/worldprobe/internal/session"
	"github.com/worldprobe/worldprobe/internal/worldjudge/capture"
)

func f(x float64) *float64 { return &x }

// TestVerdict: a judgement in the trial's vocabulary — one assertion per
// test (pass with every point, fail with any lost, unjudged while open),
// the coverages over the judged points, the score as result.World, and a
// hang or an overloaded machine as a failure the runner maps to a
// timeout (and retries under load).
func TestVerdict(t *testing.T) {
	rep := &Report{Rubric: "worldbench/island", Mode: "models", Status: Complete, SHA256: "abc", Capture: &capture.Capture{},
		Tests: []TestReport{
			{ID: "WC001", Title: "Voxel island", Points: 40, Tally: Tally{Earned: f(40), Judged: 40, EarnedOfJudged: 40}},
			{ID: "WC005", Title: "Temporal cycles", Points: 20, Tally: Tally{Earned: f(12.5), Judged: 20, EarnedOfJudged: 12.5}},
			{ID: "WC002", Title: "Coverage + placement", Points: 20, Tally: Tally{Judged: 4, EarnedOfJudged: 3, Unjudged: 16}},
		},
		Score: Score{Max: 80, Tally: Tally{Judged: 64, EarnedOfJudged: 55.5, Unjudged: 16}}}
	v := Verdict(rep)
	want := []result.Assertion{
		{Probe: "WC001", Level: "world", Kind: "world", Expr: "Voxel island", Status: result.StatusPass, Message: "WC001: 40 of 40 points"},
		{Probe: "WC005", Level: "world", Kind: "world", Expr: "Temporal cycles", Status: result.StatusFail, Message: "WC005: 12.5 of 20 points"},
		{Probe: "WC002", Level: "world", Kind: "world", Expr: "Coverage + placement", Status: result.StatusUnjudged, Message: "WC002: open — 3 of 4 judged points earned, 16 unjudged (of 20)"},
	}
	if len(v.Assertions) != 3 {
		t.Fatalf("assertions %+v", v.Assertions)
	}
	for i := range want {
		if v.Assertions[i] != want[i] {
			t.Errorf("assertion %d: %+v, want %+v", i, v.Assertions[i], want[i])
		}
	}
	if v.Pass || v.Unjudged != 1 || v.VCov != 55.5/64 || len(v.StateHash) != 64 || v.Failure != nil || v.Attribution != "world" {
		t.Fatalf("verdict %+v", v)
	}
	if w := v.World; w.Max != 80 || w.Earned != nil || w.Judged != 64 || len(w.Tests) != 3 || *w.Tests[1].Earned != 12.5 || w.Report != ReportFile {
		t.Fatalf("world %+v", w)
	}

	// The state hash digests what was seen: the same views give the same
	// hash, another luma another.
	rep.Capture.Views = []capture.View{{Name: "time_00", Frame: 1, Luma: 108.07}}
	h1 := Verdict(rep).StateHash
	if Verdict(rep).StateHash != h1 {
		t.Fatal("the same report gave two state hashes")
	}
	rep.Capture.Views[0].Luma = 108.08
	if Verdict(rep).StateHash == h1 {
		t.Fatal("another luma gave the same state hash")
	}
	rep.Score.Earned, rep.Score.Judged, rep.Score.EarnedOfJudged = f(80), 80, 80
	rep.Tests = rep.Tests[:1]
	if v := Verdict(rep); !v.Pass || v.VCov != 1 || *v.World.Earned != 80 {
		t.Fatalf("every point earned: %+v", v)
	}

	rep.Status, rep.Capture.Failure, rep.Capture.DeadlineMissed = Partial, "time sample 3 (30 s): the page stopped responding", true
	if v := Verdict(rep); v.Failure == nil || !errors.Is(v.Failure.Err, session.ErrUnresponsive) || v.Failure.Message != rep.Capture.Failure || v.Attribution != "crash" {
		t.Fatalf("a hang: %+v", v.Failure)
	}
	rep.Capture.DeadlineMissed = false
	if v := Verdict(rep); v.Failure == nil || v.Failure.Err != nil {
		t.Fatalf("a page failure that is no hang: %+v", v.Failure)
	}
	over := &Report{Rubric: "worldbench/island", Status: Overloaded, Reason: "the machine was too overloaded to capture the world"}
	if v := Verdict(over); v.Failure == nil || !errors.Is(v.Failure.Err, session.ErrUnresponsive) {
		t.Fatalf("overloaded: %+v", v.Failure)
	}
}
