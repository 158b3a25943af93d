package browser

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestLedgerSince: CPU time between two readings is summed by kind; a
// process new since the first reading counts from zero, one that ended is
// left out, and a pid reused by another kind of process counts as new.
func TestLedgerSince(t *testing.T) {
	ms := time.Millisecond
	earlier := pidTimes{
		1: {"browser", 100 * ms},
		2: {"renderer", 50 * ms},
		3: {"gpu-process", 70 * ms}, // ends
		4: {"utility", 10 * ms},     // pid reused by a renderer
	}
	now := pidTimes{
		1: {"browser", 130 * ms},
		2: {"renderer", 90 * ms},
		4: {"renderer", 5 * ms},
		5: {"renderer", 20 * ms}, // new
	}
	require.Equal(t, CPUTimes{"browser": 30 * ms, "renderer": 65 * ms}, now.since(earlier))
}

// TestChargeCountsOnlyTheOutermostPhase: a phase charged inside another is
// the outer one's; without a ledger Charge does nothing and nothing is
// printed.
func TestChargeCountsOnlyTheOutermostPhase(t *testing.T) {
	b := &Browser{ctx: context.Background()} // no Chromium: no processes to read
	b.Charge("restart")()
	var out bytes.Buffer
	b.WriteCPULedger(&out)
	require.Empty(t, out.String())

	b.ledger = emptyLedger()
	end := b.Charge("restart")
	b.Charge("eval")()
	time.Sleep(20 * time.Millisecond)
	end()
	b.Charge("eval")()
	require.Equal(t, map[string]int{"restart": 1, "eval": 1}, b.ledger.counts)
	require.GreaterOrEqual(t, b.ledger.wall["restart"], 20*time.Millisecond, "the outer phase's wall time holds the inner one's")
	require.Less(t, b.ledger.wall["eval"], 20*time.Millisecond)
	b.WriteCPULedger(&out)
	require.Contains(t, out.String(), "CPU ledger (ms; 2 phases)")
	require.Contains(t, out.String(), "restart")
}
