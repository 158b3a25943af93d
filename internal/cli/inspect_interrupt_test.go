package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/inspect"
)

// Interrupted, inspect prints the reports of the pages that finished (in
// the order given, as JSON or summaries), names the pages it did not
// inspect and exits with the infrastructure code. The pages are judged
// by a stub here; TestInterruptLeavesNoChromium interrupts the real
// browser.
func TestInspectInterruptedKeepsFinishedPages(t *testing.T) {
	pages := []string{"a.html", "b.html", "c.html", "d.html"}
	interrupt := func(ctx context.Context, cancel func()) func(context.Context, string) (*inspect.Report, error) {
		return func(ctx context.Context, page string) (*inspect.Report, error) {
			if page == "c.html" {
				cancel()
				return nil, ctx.Err()
			}
			outcome := inspect.OutcomeOK
			if page == "b.html" {
				outcome = inspect.OutcomeCrash
			}
			return &inspect.Report{Page: page, Outcome: outcome, Frames: 5, FPS: 60, Seed: 1}, nil
		}
	}
	for _, asJSON := range []bool{true, false} {
		ctx, cancel := context.WithCancel(context.Background())
		var out, errOut bytes.Buffer
		io := IO{Out: &out, ErrOut: &errOut}
		o := &InspectOptions{Pages: pages, JSON: asJSON}
		var progress []string
		reports, err := inspectAll(ctx, interrupt(ctx, cancel), pages, 1, func(i int, r *inspect.Report) {
			progress = append(progress, r.Page)
		})
		require.ErrorIs(t, err, context.Canceled)
		require.Equal(t, []string{"a.html", "b.html"}, progress)
		err = printInspected(ctx, io, o, reports, err)
		require.Equal(t, ExitInfrastructure, exitCodeOf(ctx, err), "interrupted wins over a page that crashed")
		require.Empty(t, exitMessage(err))
		require.Equal(t, "inspect interrupted (context canceled): 2 of 4 pages finished and printed; not inspected: c.html, d.html\n", errOut.String())
		if asJSON {
			var got []map[string]any
			require.NoError(t, json.Unmarshal(out.Bytes(), &got))
			require.Len(t, got, 2)
			require.Equal(t, "a.html", got[0]["page"])
			require.Equal(t, "b.html", got[1]["page"])
		} else {
			require.True(t, strings.HasPrefix(out.String(), "a.html\n  outcome:   ok\n"), out.String())
			require.Contains(t, out.String(), "\nb.html\n  outcome:   crash\n")
			require.NotContains(t, out.String(), "c.html")
		}
		cancel()
	}

	// Nothing finished: JSON is still one document, an empty array.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errOut bytes.Buffer
	err := printInspected(ctx, IO{Out: &out, ErrOut: &errOut}, &InspectOptions{Pages: pages[:2], JSON: true}, make([]*inspect.Report, 2), context.Canceled)
	require.Equal(t, ExitInfrastructure, exitCodeOf(ctx, err))
	require.Equal(t, "[]\n", out.String())
	require.Equal(t, "inspect interrupted (context canceled): 0 of 2 pages finished and printed; not inspected: a.html, b.html\n", errOut.String())
}
