package session

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// openLogged opens page with a short call timeout and returns the session
// and the warnings it logs: an idle wait that runs out its allowance says so.
func openLogged(t *testing.T, page string) (*Session, *bytes.Buffer) {
	t.Helper()
	require.NoError(t, setupErr, "run 'make setup'")
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	s, err := Open(context.Background(), testBrowser, testResolver, page,
		Config{Seed: 1, FPS: 60, Width: 800, Height: 600, SkipDraw: true, CallTimeout: 5 * time.Second, Logger: logger})
	require.NoError(t, err)
	t.Cleanup(s.Close)
	require.True(t, s.Loaded())
	return s, &logs
}

// TestIdleWaitsSkipScriptsNobodyReports: a served script is waited for
// until the debugger reports it compiled only when the debugger will: not a
// worker's importScripts (a worker's scripts are compiled where the page's
// debugger does not look), and not a module imported after the load event
// (the debugger is off by then). Each used to hold every idle wait of the
// document, or of the next one, until its allowance ran out. Both pages
// are loaded three times in one tab, as a trial's probes load them.
func TestIdleWaitsSkipScriptsNobodyReports(t *testing.T) {
	type state struct {
		Frame               int
		Page, Worker, Three string
	}
	cases := []struct {
		page string
		want state
	}{
		{"worker-import.html", state{Frame: 60, Page: "147", Worker: "147"}},
		{"late-import.html", state{Frame: 60, Three: "160"}},
	}
	for _, c := range cases {
		t.Run(c.page, func(t *testing.T) {
			ctx := context.Background()
			s, logs := openLogged(t, filepath.Join("testdata", "idle", c.page))
			read := func(s *Session) state {
				t.Helper()
				raw, err := s.ReadState(ctx)
				require.NoError(t, err)
				var st state
				require.NoError(t, json.Unmarshal(raw.JSON, &st))
				return st
			}
			for load := 1; load <= 3; load++ {
				if load > 1 {
					require.NoError(t, s.Restart(ctx, 0))
				}
				_, err := s.Step(ctx, 60, false)
				require.NoError(t, err)
				st := read(s)
				// A dynamic import() after load lands when it lands
				// (docs/runtime.md, "Known limit"): step on until it has.
				for st.Three == "" && c.want.Three != "" && st.Frame < 600 {
					_, err := s.Step(ctx, 1, false)
					require.NoError(t, err)
					st = read(s)
				}
				want := c.want
				if want.Three != "" {
					want.Frame = st.Frame
				}
				require.Equal(t, want, st, "load %d", load)
				require.NotContains(t, logs.String(), "idle wait ran out", "load %d", load)
			}
		})
	}
}
