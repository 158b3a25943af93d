package metrics

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/result"
)

func TestAttributionShares(t *testing.T) {
	tr := func(attr string, pass bool, outcome string) *result.Trial {
		return &result.Trial{Model: "m", Task: "t", Attribution: attr, Pass: pass, Outcome: outcome}
	}
	a := AttributionShares([]*result.Trial{
		tr("", true, result.OutcomeOK), // passed: not a failure
		tr("schema_drift", false, result.OutcomeOK),
		tr("broken_interaction", false, result.OutcomeOK),
		tr("schema_drift", false, result.OutcomeOK),
		tr("crash", false, result.OutcomeCrash),
		tr("infra", false, result.OutcomeInfra), // not scored: not a failure
		tr("", false, result.OutcomeOK),
	})
	require.Equal(t, 5, a.Failed)
	require.Equal(t, []Share{
		{Attribution: "schema_drift", Count: 2, Share: 0.4},
		{Attribution: "broken_interaction", Count: 1, Share: 0.2},
		{Attribution: "crash", Count: 1, Share: 0.2},
		{Attribution: Unattributed, Count: 1, Share: 0.2},
	}, a.Shares)
	require.Equal(t, 0.4, a.Share("schema_drift"))
	require.Equal(t, 0.0, a.Share("physics_violation"))
	require.Equal(t, Attributions{Shares: []Share{}}, AttributionShares(nil))
}
