package modelscmd

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/worldprobe/worldprobe/internal/llm"
)

func newCmdPing(s IO, modelsFile *string) *cobra.Command {
	var (
		allowUnpriced  bool
		record, replay string
		timeout        time.Duration
	)
	roles := make([]string, 0, len(llm.Roles()))
	for _, r := range llm.Roles() {
		roles = append(roles, string(r))
	}
	cmd := &cobra.Command{
		Use:   "ping ROLE",
		Short: "Send a tiny request to a role's model and show the answer",
		Long:  "Send a one-line request along ROLE's model chain, with retries and fallbacks, and report who answered, how fast, and at what cost.",
		Example: `  worldprobe models ping navigator
  worldprobe models ping visual_judge --models models.yaml --timeout 30s
  worldprobe models ping navigator --record recordings/
  worldprobe models ping navigator --replay recordings/`,
		ValidArgs: roles,
		// An unknown role is an argument error (exit 2), so it is refused
		// here rather than in RunE.
		Args: func(cmd *cobra.Command, args []string) error {
			if err := cobra.ExactArgs(1)(cmd, args); err != nil {
				return err
			}
			_, err := llm.ParseRole(args[0])
			return err
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			role, err := llm.ParseRole(args[0])
			if err != nil {
				return err
			}
			opts := []llm.Option{llm.WithLogger(s.logger()), llm.WithAllowUnpriced(allowUnpriced), llm.WithObserver(progress(s))}
			if record != "" {
				opts = append(opts, llm.WithRecord(record))
			}
			if replay != "" {
				opts = append(opts, llm.WithReplay(replay))
			}
			reg, err := llm.Load(*modelsFile, s.getenv(), opts...)
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), timeout)
			defer cancel()
			resp, err := reg.Ping(ctx, role)
			if err != nil {
				return err
			}
			fmt.Fprintln(s.Out, describe(resp))
			return nil
		},
	}
	cmd.Flags().BoolVar(&allowUnpriced, "allow-unpriced", false, "allow models missing from the pricing table")
	cmd.Flags().StringVar(&record, "record", "", "record the response into `DIR`")
	cmd.Flags().StringVar(&replay, "replay", "", "answer from the recordings in `DIR`, offline")
	cmd.Flags().DurationVar(&timeout, "timeout", 3*time.Minute, "give up after this long, retries included")
	return cmd
}

// progress reports retries and fallbacks on ErrOut while the ping runs.
func progress(s IO) llm.Observer {
	return func(e llm.Event) {
		switch e.Kind {
		case llm.EventRetrying:
			fmt.Fprintf(s.ErrOut, "retrying %s/%s in %s (attempt %d failed: %s)\n", e.Provider, e.Model, e.Delay, e.Attempt, e.Error)
		case llm.EventFallback:
			fmt.Fprintf(s.ErrOut, "falling back from %s/%s to %s (%s)\n", e.Provider, e.Model, e.Next, e.Error)
		case llm.EventThrottled:
			fmt.Fprintf(s.ErrOut, "%s is rate limiting: concurrency cut to %d\n", e.Provider, e.Limit)
		}
	}
}

// describe summarises a ping answer on one line.
func describe(r *llm.Response) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s/%s answered %q", r.Role, r.Provider, r.Model, strings.TrimSpace(r.Text))
	if r.Source == llm.SourceLive {
		// Under a second in whole milliseconds: Round would print a
		// sub-millisecond answer (a local server) as "0s".
		if r.Latency < time.Second {
			fmt.Fprintf(&b, " in %dms", r.Latency.Milliseconds())
		} else {
			fmt.Fprintf(&b, " in %s", r.Latency.Round(time.Millisecond))
		}
	} else {
		fmt.Fprintf(&b, " from %s", r.Source)
	}
	fmt.Fprintf(&b, " (tokens in %d, out %d; $%.6f", r.Usage.InputTokens, r.Usage.OutputTokens, r.CostUSD)
	if r.FallbackIndex > 0 {
		fmt.Fprintf(&b, "; fallback %d", r.FallbackIndex)
	}
	b.WriteString(")")
	return b.String()
}
