package taskcheck

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/result"
)

// TestCompareRun: the runs of a page that must pass are held to the first
// one — other verdicts or another state hash make it unstable and go on;
// a crash or an infrastructure error fails it and stops the check.
func TestCompareRun(t *testing.T) {
	pass := []result.Assertion{{Probe: "p", Level: "A", Status: "pass"}}
	fail := []result.Assertion{{Probe: "p", Level: "A", Status: "fail"}}
	first := &result.Trial{Outcome: result.OutcomeOK, Assertions: pass, StateHash: "h1"}

	out := solutionCheck{ok: true, stable: true}
	require.False(t, out.compareRun(0, first, "differs"))
	require.Same(t, first, out.first)
	require.False(t, out.compareRun(1, &result.Trial{Outcome: result.OutcomeOK, Assertions: pass, StateHash: "h1"}, "differs"))
	require.True(t, out.stable)
	require.False(t, out.compareRun(2, &result.Trial{Outcome: result.OutcomeOK, Assertions: pass, StateHash: "h2"}, "read other states (a and b differ)"))
	require.False(t, out.compareRun(3, &result.Trial{Outcome: result.OutcomeOK, Assertions: fail, StateHash: "h2"}, "unused"))
	require.Equal(t, []string{"run 3 read other states (a and b differ)", "run 4 gave different verdicts than run 1"}, out.problems)
	require.False(t, out.stable)
	require.True(t, out.ok, "instability is not failure")

	crashed := solutionCheck{ok: true, stable: true, first: first}
	require.True(t, crashed.compareRun(1, &result.Trial{Outcome: result.OutcomeCrash, CrashKind: "page_crashed", CrashMessage: "renderer gone", Assertions: pass, StateHash: "h1"}, "x"))
	require.False(t, crashed.ok)
	require.Equal(t, []string{"run 2: crash (page_crashed): renderer gone"}, crashed.problems)

	infra := solutionCheck{ok: true, stable: true, first: first}
	require.True(t, infra.compareRun(1, &result.Trial{Outcome: result.OutcomeInfra, CrashMessage: "browser gone", Assertions: pass, StateHash: "h1"}, "x"))
	require.Equal(t, []string{"run 2: not judged: browser gone"}, infra.problems)
}
