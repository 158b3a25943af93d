package metrics

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/result"
)

func TestPassAtK(t *testing.T) {
	require.Equal(t, 0.0, PassAtK(5, 0, 1))
	require.Equal(t, 1.0, PassAtK(5, 5, 1))
	require.InDelta(t, 0.4, PassAtK(5, 2, 1), 1e-12)
	require.InDelta(t, 1-(3.0/5)*(2.0/4), PassAtK(5, 2, 2), 1e-12) // 1 − C(3,2)/C(5,2) = 1 − 3/10 = 0.7
	require.InDelta(t, 1-1.0/10, PassAtK(5, 2, 3), 1e-12)          // 1 − C(3,3)/C(5,3) = 0.9
	require.InDelta(t, 1-252.0/3003, PassAtK(15, 5, 5), 1e-12)     // 1 − C(10,5)/C(15,5)
	require.Equal(t, 1.0, PassAtK(3, 2, 2), "n − c < k: every pair holds a pass")
	for _, c := range [][3]int{{0, 0, 1}, {2, 1, 3}, {5, 2, 0}, {5, 6, 1}, {5, -1, 1}} {
		require.True(t, math.IsNaN(PassAtK(c[0], c[1], c[2])), "pass@%d of n=%d c=%d is undefined", c[2], c[0], c[1])
	}
}

func TestPassAtKs(t *testing.T) {
	var trials []*result.Trial
	add := func(task string, passes, n int) {
		for i := range n {
			trials = append(trials, &result.Trial{Model: "m", Task: task, Sample: i, Pass: i < passes, Outcome: result.OutcomeOK})
		}
	}
	add("t1", 2, 5)                                                                              // pass@1 = 0.4, pass@3 = 1 − C(3,3)/C(5,3) = 0.9
	add("t2", 0, 3)                                                                              // 0 and 0
	trials = append(trials, &result.Trial{Model: "m", Task: "t2", Outcome: result.OutcomeInfra}) // not a sample
	got := PassAtKs(trials, DefaultKs)
	require.Len(t, got, 2, "t2 has 3 samples: pass@5 and pass@10 are left out")
	require.Equal(t, 1, got[0].K)
	require.InDelta(t, (0.4+0)/2, got[0].Value, 1e-12)
	require.Equal(t, 3, got[1].K)
	require.InDelta(t, (0.9+0)/2, got[1].Value, 1e-12)
	require.Equal(t, 2, got[1].Tasks)
	require.Equal(t, Summarise(trials).Pass1, got[0].Value, "pass@1 is Summarise's")
	require.Nil(t, PassAtKs(trials[len(trials)-1:], DefaultKs), "no sample, no pass@k")
}
