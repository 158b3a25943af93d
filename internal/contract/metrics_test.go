package contract

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func v(probe, level string, st Status) Verdict {
	return Verdict{Probe: probe, Level: level, Status: st}
}

func TestCoverage(t *testing.T) {
	verdicts := []Verdict{
		v(InterfaceProbe, LevelAffordance, StatusPass),
		v(InterfaceProbe, LevelAffordance, StatusFail),
		v("a", LevelAffordance, StatusPass),
		v("a", LevelAffordance, StatusPass),
		v("s", LevelState, StatusPass),
		v("s", LevelState, StatusError),
		v("s", LevelState, StatusFail),
		v("t", LevelTransition, StatusPass),
		v("i", LevelInvariant, StatusFail),
		v("i", LevelInvariant, StatusPass),
	}
	got := Coverage(verdicts, false)
	require.Equal(t, Scores{
		A: 0.75, S: 1.0 / 3, T: 1, V: 0.6, Pass: false,
		Affordance: Count{3, 4}, State: Count{1, 3}, Transition: Count{1, 1}, Invariant: Count{1, 2}, All: Count{6, 10},
	}, got)

	crashed := Coverage(verdicts, true)
	require.Equal(t, Scores{
		Affordance: Count{0, 4}, State: Count{0, 3}, Transition: Count{0, 1}, Invariant: Count{0, 2}, All: Count{0, 10},
	}, crashed)

	all := Coverage([]Verdict{v("s", LevelState, StatusPass), v("i", LevelInvariant, StatusPass)}, false)
	require.Equal(t, Scores{A: 1, S: 1, T: 1, V: 1, Pass: true,
		State: Count{1, 1}, Invariant: Count{1, 1}, All: Count{2, 2}}, all, "levels without assertions score 1")

	require.Equal(t, Scores{A: 1, S: 1, T: 1, V: 1, Pass: true}, Coverage(nil, false))
}

func TestAttribute(t *testing.T) {
	pass := func(probe, level string) Verdict { return v(probe, level, StatusPass) }
	fail := func(probe, level string) Verdict { return v(probe, level, StatusFail) }
	observing := func(vd Verdict) Verdict { vd.Observes = true; return vd }
	hinted := func(vd Verdict, h string) Verdict { vd.Attribution = h; return vd }
	cases := []struct {
		name     string
		verdicts []Verdict
		crashed  bool
		want     string
	}{
		{"all pass", []Verdict{pass(InterfaceProbe, LevelAffordance), pass("s", LevelState)}, false, ""},
		{"no verdicts", nil, false, ""},
		{"crash wins", []Verdict{pass("s", LevelState)}, true, AttrCrash},
		{"crash over schema drift", []Verdict{fail(InterfaceProbe, LevelAffordance)}, true, AttrCrash},
		{"schema drift", []Verdict{fail(InterfaceProbe, LevelAffordance), fail("i", LevelInvariant),
			hinted(fail("s", LevelState), AttrStateMismatch)}, false, AttrSchemaDrift},
		{"schema drift on error", []Verdict{v(InterfaceProbe, LevelAffordance, StatusError)}, false, AttrSchemaDrift},
		{"state mismatch by hint", []Verdict{hinted(fail("s", LevelState), AttrStateMismatch), fail("i", LevelInvariant)}, false, AttrStateMismatch},
		{"state mismatch by observation", []Verdict{pass("s", LevelState), observing(fail("look", LevelState)), observing(fail("t", LevelTransition))}, false, AttrStateMismatch},
		{"observation fails along with state", []Verdict{fail("s", LevelState), observing(fail("look", LevelState))}, false, AttrOther},
		{"observation fails along with an invariant", []Verdict{fail("i", LevelInvariant), observing(fail("look", LevelState))}, false, AttrPhysicsViolation},
		{"physics violation", []Verdict{fail("i", LevelInvariant), fail("t", LevelTransition)}, false, AttrPhysicsViolation},
		{"physics violation by hint", []Verdict{hinted(fail("s", LevelState), AttrPhysicsViolation), fail("t", LevelTransition)}, false, AttrPhysicsViolation},
		{"broken interaction", []Verdict{fail("t", LevelTransition), fail("s", LevelState)}, false, AttrBrokenInteraction},
		{"broken interaction by error", []Verdict{v("t", LevelTransition, StatusError)}, false, AttrBrokenInteraction},
		{"broken interaction by hint", []Verdict{hinted(fail("a", LevelAffordance), AttrBrokenInteraction)}, false, AttrBrokenInteraction},
		{"hint on a passing assertion counts for nothing", []Verdict{hinted(pass("s", LevelState), AttrStateMismatch), fail("s", LevelState)}, false, AttrOther},
		{"other", []Verdict{fail("s", LevelState), fail("a", LevelAffordance)}, false, AttrOther},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, Attribute(c.verdicts, c.crashed))
		})
	}
}
