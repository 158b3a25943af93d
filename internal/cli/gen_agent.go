package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"slices"

	"github.com/spf13/pflag"

	"github.com/worldprobe/worldprobe/internal/agent"
	"github.com/worldprobe/worldprobe/internal/browser"
	"github.com/worldprobe/worldprobe/internal/gen"
	"github.com/worldprobe/worldprobe/internal/llm"
	"github.com/worldprobe/worldprobe/internal/task"
)

// agentFlags are the flags of 'gen --agent' (docs/generation.md, "Agent
// runs").
type agentFlags struct {
	On        bool
	MaxTurns  int
	MaxTokens int64
	MaxUSD    float64
	// Chromium and Web locate the browser and the vendored packages run_page uses.
	Chromium string
	Web      string
	// changed reports whether a flag was given (set by the command).
	changed func(name string) bool
}

// agentOnly are the flags that mean something only with --agent.
var agentOnly = []string{"max-turns", "max-agent-tokens", "max-agent-usd", "chromium", "web"}

func (f *agentFlags) register(fs *pflag.FlagSet) {
	fs.BoolVar(&f.On, "agent", false, "run each sample as an agent: a bounded loop of tool calls (list_files, read_file, grep, write_file, edit_file, run_page, finish) "+
		"in a fresh folder holding the task's prompt; pages go to OUT/<model-slug>"+gen.AgentSuffix+"/sample-<k>/")
	fs.IntVar(&f.MaxTurns, "max-turns", agent.DefaultMaxTurns, "with --agent: most model calls per sample")
	fs.Int64Var(&f.MaxTokens, "max-agent-tokens", 0, "with --agent: most input plus output tokens per sample (0: no cap but budgets.trial_tokens)")
	fs.Float64Var(&f.MaxUSD, "max-agent-usd", 0, "with --agent: most US dollars per sample (0: no cap but budgets.trial_usd)")
	fs.StringVar(&f.Chromium, "chromium", "", "with --agent or --repair: Chromium executable run_page and the repair's checks use (default $"+browser.EnvChromium+" or /usr/bin/chromium)")
	fs.StringVar(&f.Web, "web", "", "with --agent or --repair: vendored node_modules folder the browser serves libraries from (default $"+EnvWeb+", ./web/node_modules, or next to the binary)")
}

// browserFlags are the agent flags that --repair takes too: where the
// browser its checks run pages in is.
var browserFlags = []string{"chromium", "web"}

// check refuses agent flags without --agent (the browser's without
// --agent or --repair, which repairing says) and budgets out of range.
func (f *agentFlags) check(repairing bool) error {
	if !f.On {
		for _, name := range agentOnly {
			if f.changed == nil || !f.changed(name) {
				continue
			}
			if !slices.Contains(browserFlags, name) {
				return usageErr("--%s needs --agent", name)
			}
			if !repairing {
				return usageErr("--%s needs --agent or --repair", name)
			}
		}
		return nil
	}
	switch {
	case f.MaxTurns < 1:
		return usageErr("--max-turns must be at least 1")
	case f.MaxTokens < 0:
		return usageErr("--max-agent-tokens must be 0 (no cap) or a number of tokens")
	case f.MaxUSD < 0:
		return usageErr("--max-agent-usd must be 0 (no cap) or a number of US dollars")
	}
	return nil
}

// agentModels makes models write agent runs: their folders marked
// +agent, their prompt the agent's.
func agentModels(models []*gen.Model, opts *gen.Options) {
	for _, m := range models {
		m.Slug += gen.AgentSuffix
	}
	opts.Prompt = agent.PromptOf
}

// agentExecutor is what runs the samples of sum as agents: the browser
// run_page uses is started now (when there is anything to run) and
// stopped by done.
func agentExecutor(ctx context.Context, io IO, o *GenOptions, sum *gen.Summary) (run func() error, done func(), err error) {
	ao := agent.Options{Jobs: o.Jobs, Progress: io.ErrOut, Secrets: agentSecrets(io, o),
		Budget: agent.Budget{MaxTurns: o.Agent.MaxTurns, MaxTokens: o.Agent.MaxTokens, MaxUSD: o.Agent.MaxUSD}}
	done = func() {}
	if len(sum.ToDo) > 0 {
		ef := &engineFlags{Chromium: o.Agent.Chromium, Web: o.Agent.Web, Jobs: min(o.Jobs, 2, runtime.NumCPU()),
			PageMemoryMiB: int(browser.DefaultPageMemory >> 20)}
		b, res, err := ef.start(ctx, io, 0, 0)
		if err != nil {
			return nil, nil, err
		}
		done = func() { _ = b.Close() }
		logger := slog.New(slog.NewTextHandler(io.ErrOut, &slog.HandlerOptions{Level: slog.LevelWarn}))
		ao.Runtime = func(t *task.Task) agent.Runtime {
			return &agent.Inspector{Browser: b, Resolver: res, Task: t, Logger: logger}
		}
	}
	return func() error { return agent.Execute(ctx, ao, sum) }, done, nil
}

// agentSecrets are the API keys the --model values use, for the agent
// to redact from what it writes.
func agentSecrets(io IO, o *GenOptions) []string {
	reg, err := llm.Load(o.ModelsFile, io.Getenv)
	if err != nil {
		return nil
	}
	var out []string
	for _, spec := range o.Models {
		cfg, role, err := gen.ConfigFor(reg.Config(), spec)
		if err != nil {
			continue
		}
		res, err := cfg.Resolve(role)
		if err != nil {
			continue
		}
		for _, m := range res.Chain {
			if m.KeyEnv != "" {
				if key := io.Getenv(m.KeyEnv); key != "" {
					out = append(out, key)
				}
			}
		}
	}
	return out
}

// writeAgentDryRun adds what a dry run of agent runs does not estimate.
func writeAgentDryRun(w io.Writer, o *GenOptions) {
	fmt.Fprintf(w, "agent runs: only the first call of each sample is estimated (its prompt with the tools' definitions); "+
		"a run makes up to %s, each sending the conversation so far\n", plural(o.Agent.MaxTurns, "call"))
}
