// Package cli holds worldprobe's commands: one file per command, each with an
// Options struct, a NewCmdX constructor and a runX function, so the whole CLI
// runs inside go test with injected streams.
package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/worldprobe/worldprobe/internal/cli/modelscmd"
	"github.com/worldprobe/worldprobe/internal/run"
)

// IO carries the streams and environment of one invocation.
type IO struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	Getenv func(string) string
	// executor, when set, judges 'run''s trials instead of a local
	// browser: the CLI's tests of planning, resuming and interruption use
	// a stub (the browser is tested through the real executor).
	executor run.Executor
}

// NewRootCmd builds the command tree.
func NewRootCmd(io IO) *cobra.Command {
	root := &cobra.Command{
		Use:   "worldprobe",
		Short: "Measure model-written 3D worlds and XR apps in a real, sandboxed browser",
		Long: `worldprobe loads model-written Three.js / WebXR pages in headless Chromium with no
network, a seeded Math.random and a virtual clock that only it advances, then
observes what the page really does: its state, its scene graph and its pixels.

Start with:
  worldprobe inspect page.html            load, step 60 frames, summarise
  worldprobe inspect --json a.html b.html one JSON document for several pages
  worldprobe bench                        measure speed on the bundled examples

` + exitCodesText(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(io.In)
	root.SetOut(io.Out)
	root.SetErr(io.ErrOut)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &exitError{code: ExitUsage, err: fmt.Errorf("%w\nRun '%s --help' for usage.", err, c.CommandPath())}
	})
	root.AddCommand(NewCmdInspect(io), NewCmdRun(io), NewCmdGen(io), NewCmdBenchModels(io), NewCmdAgreement(io), NewCmdCompareJudges(io), NewCmdTask(io), NewCmdSuite(io), NewCmdBench(io), NewCmdWorker(io), NewCmdJudge(io), NewCmdSchema(io), NewCmdServe(io), NewCmdVersion(io),
		modelscmd.NewCmdModels(modelscmd.IO{In: io.In, Out: io.Out, ErrOut: io.ErrOut, Getenv: io.Getenv}))
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	classifyErrors(root)
	return root
}

// Main runs worldprobe with args and returns the exit code.
func Main(args []string, in io.Reader, out, errOut io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return int(Execute(ctx, args, IO{In: in, Out: out, ErrOut: errOut, Getenv: os.Getenv}))
}

// Execute runs the command tree with ctx, prints the error it ended with
// (if any) on ErrOut and returns the exit code (see [ExitCodes]).
func Execute(ctx context.Context, args []string, io IO) ExitCode {
	if io.Getenv == nil {
		io.Getenv = os.Getenv
	}
	level := slog.LevelWarn
	if io.Getenv("WORLDPROBE_DEBUG") != "" {
		level = slog.LevelDebug
	}
	slog.SetDefault(slog.New(slog.NewTextHandler(io.ErrOut, &slog.HandlerOptions{Level: level})))
	if path := io.Getenv("WORLDPROBE_CPUPROFILE"); path != "" {
		// A Go CPU profile of the harness for performance work
		// (docs/PERFORMANCE.md); the browser's processes are not in it.
		if f, err := os.Create(path); err != nil {
			slog.Warn("WORLDPROBE_CPUPROFILE", "err", err)
		} else if err := pprof.StartCPUProfile(f); err != nil {
			slog.Warn("WORLDPROBE_CPUPROFILE", "err", err)
			f.Close()
		} else {
			defer f.Close()
			defer pprof.StopCPUProfile()
		}
	}
	root := NewRootCmd(io)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if msg := exitMessage(err); msg != "" {
		fmt.Fprintln(io.ErrOut, "worldprobe:", msg)
	}
	return exitCodeOf(ctx, err)
}
