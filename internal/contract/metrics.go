package contract

// Attributions name why a trial failed.
const (
	AttrCrash             = "crash"
	AttrSchemaDrift       = "schema_drift"
	AttrStateMismatch     = "state_mismatch"
	AttrPhysicsViolation  = "physics_violation"
	AttrBrokenInteraction = "broken_interaction"
	AttrOther             = "other"
)

// Attributions lists the attribution values in the order the rules try them.
func Attributions() []string {
	return []string{AttrCrash, AttrSchemaDrift, AttrStateMismatch, AttrPhysicsViolation, AttrBrokenInteraction, AttrOther}
}

// Count is passed and total assertions.
type Count struct {
	Passed int `json:"passed"`
	Total  int `json:"total"`
}

func (c Count) ratio() float64 {
	if c.Total == 0 {
		return 1
	}
	return float64(c.Passed) / float64(c.Total)
}

// Scores are the coverage scores of one trial.
type Scores struct {
	// A, S and T are passed/total over the affordance (interface probe
	// included), state and transition assertions; V is passed/total over
	// all assertions, invariants included. A level without assertions
	// scores 1 (nothing to miss): aggregate with the counts, not the ratios.
	A float64 `json:"a_cov"`
	S float64 `json:"s_cov"`
	T float64 `json:"t_cov"`
	V float64 `json:"v_cov"`
	// Pass is true when the page did not crash and every judged assertion
	// passed, at least one of them when some are unjudged.
	Pass bool `json:"pass"`
	// Unjudged counts the assertions with StatusUnjudged, which are in
	// no count above: neither passed nor failed.
	Unjudged   int   `json:"unjudged,omitempty"`
	Affordance Count `json:"affordance"`
	State      Count `json:"state"`
	Transition Count `json:"transition"`
	Invariant  Count `json:"invariant"`
	All        Count `json:"all"`
}

// Coverage scores a trial's verdicts. A crash scores 0 everywhere and does
// not pass (the counts still show the totals, with nothing passed).
// Unjudged verdicts are counted apart (Scores.Unjudged) and left out of
// every ratio; a trial whose every assertion is unjudged does not pass,
// since nothing was judged.
func Coverage(verdicts []Verdict, crashed bool) Scores {
	var s Scores
	for _, v := range verdicts {
		if v.Status == StatusUnjudged {
			s.Unjudged++
			continue
		}
		var c *Count
		switch v.Level {
		case LevelAffordance:
			c = &s.Affordance
		case LevelState:
			c = &s.State
		case LevelTransition:
			c = &s.Transition
		case LevelInvariant:
			c = &s.Invariant
		}
		pass := v.Status == StatusPass && !crashed
		for _, cc := range []*Count{c, &s.All} {
			if cc == nil {
				continue
			}
			cc.Total++
			if pass {
				cc.Passed++
			}
		}
	}
	if crashed {
		return s
	}
	s.A, s.S, s.T, s.V = s.Affordance.ratio(), s.State.ratio(), s.Transition.ratio(), s.All.ratio()
	s.Pass = s.All.Passed == s.All.Total && (s.All.Total > 0 || s.Unjudged == 0)
	return s
}

// Attribute names why a trial failed, by the first rule that applies:
//
//  1. crash: the page crashed;
//  2. schema_drift: an interface-probe assertion did not pass;
//  3. state_mismatch: a failed assertion hinted state_mismatch, or one that
//     observes the page (object, tagged, pixel, region, objectPixel, dom,
//     inView, coverage) failed while every assertion that does not observe
//     it passed;
//  4. physics_violation: an invariant failed, or a failed assertion hinted it;
//  5. broken_interaction: a transition failed, or a failed assertion hinted it;
//  6. other.
//
// "Failed" means any status but pass and unjudged. It returns "" when
// nothing failed.
func Attribute(verdicts []Verdict, crashed bool) string {
	if crashed {
		return AttrCrash
	}
	var failed []Verdict
	stateOnlyPass := true
	for _, v := range verdicts {
		if v.Status == StatusPass || v.Status == StatusUnjudged {
			continue
		}
		failed = append(failed, v)
		if v.Probe != InterfaceProbe && !v.Observes {
			stateOnlyPass = false
		}
	}
	if len(failed) == 0 {
		return ""
	}
	some := func(pred func(Verdict) bool) bool {
		for _, v := range failed {
			if pred(v) {
				return true
			}
		}
		return false
	}
	switch {
	case some(func(v Verdict) bool { return v.Probe == InterfaceProbe }):
		return AttrSchemaDrift
	case some(func(v Verdict) bool { return v.Attribution == AttrStateMismatch || (v.Observes && stateOnlyPass) }):
		return AttrStateMismatch
	case some(func(v Verdict) bool { return v.Attribution == AttrPhysicsViolation || v.Level == LevelInvariant }):
		return AttrPhysicsViolation
	case some(func(v Verdict) bool { return v.Attribution == AttrBrokenInteraction || v.Level == LevelTransition }):
		return AttrBrokenInteraction
	}
	return AttrOther
}
