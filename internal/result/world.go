package result

import "fmt"

// World is a world-judged trial's score (docs/judge.md, "From worldprobe
// run"): the rubric's points, per test, each open (Earned nil) while any
// of its halves is unjudged — an open score is never zero, and never
// full.
type World struct {
	Rubric string `json:"rubric"`
	// Mode is offline (no model: every model half unjudged) or models.
	Mode string `json:"mode"`
	// Status is the world judge's: complete, partial, not_captured or
	// machine_overloaded; Reason names why it is not complete.
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
	WorldScore
	Tests []WorldTest `json:"tests"`
	// Report and JSON are the judge's report page and judge.json, files in
	// the trial folder.
	Report string `json:"report,omitempty"`
	JSON   string `json:"json,omitempty"`
}

// WorldScore is a score out of Max: Earned once closed, else what the
// judged points earned and how many points are still unjudged.
type WorldScore struct {
	Max            float64  `json:"max"`
	Earned         *float64 `json:"earned"`
	Judged         float64  `json:"judged"`
	EarnedOfJudged float64  `json:"earned_of_judged"`
	Unjudged       float64  `json:"unjudged"`
}

// WorldTest is one test of the rubric (WC001 …) with its points.
type WorldTest struct {
	ID string `json:"id"`
	WorldScore
}

// Open reports whether the score is still open (some points unjudged).
func (s WorldScore) Open() bool { return s.Earned == nil }

// String is "212.5 / 280", or "open: 40 of 100 judged / 280" while open.
func (s WorldScore) String() string {
	if s.Earned != nil {
		return fmt.Sprintf("%g / %g", *s.Earned, s.Max)
	}
	return fmt.Sprintf("open: %g of %g judged points earned, %g unjudged / %g", s.EarnedOfJudged, s.Judged, s.Unjudged, s.Max)
}
