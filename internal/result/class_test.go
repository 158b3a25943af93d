package result

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRerunClasses(t *testing.T) {
	timeout := &Trial{Outcome: OutcomeCrash, CrashKind: "timeout"}
	crash := &Trial{Outcome: OutcomeCrash, CrashKind: "js_exception"}
	infra := &Trial{Outcome: OutcomeInfra}
	fail := &Trial{Outcome: OutcomeOK}
	pass := &Trial{Outcome: OutcomeOK, Pass: true}
	for _, c := range []struct {
		t     *Trial
		class string
		in    []string
	}{
		{timeout, "timeout", []string{"crash", "timeout", "all"}},
		{crash, "crash", []string{"crash", "all"}},
		{infra, "infra", []string{"infra", "all"}},
		{fail, "fail", []string{"fail", "all"}},
		{pass, "pass", []string{"pass", "all"}},
	} {
		require.Equal(t, c.class, c.t.Class())
		var in []string
		for _, r := range RerunClasses {
			if c.t.InRerun(r) {
				in = append(in, r)
			}
		}
		require.Equal(t, c.in, in, c.class)
	}
	require.False(t, infra.Scored())
	require.True(t, timeout.Scored())
}
