// Package cli holds worldprobe's commands: one file per command, each with an
// Options struct, a NewCmdX constructor and a runX function, so the whole CLI
// runs inside go test with injected streams.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/worldprobe/worldprobe/internal/cli/modelscmd"
	"github.com/worldprobe/worldprobe/internal/llm"
)

// Exit codes, mapped in one place.
const (
	ExitOK      = 0 // everything passed
	ExitFailed  = 1 // a page crashed, a check failed
	ExitUsage   = 2 // bad flags or arguments
	ExitRuntime = 3 // infrastructure: no browser, unreadable files
	ExitFatal   = 4 // a model provider refused for good (bad key, no credit) or a budget ran out
)

// IO carries the streams and environment of one invocation.
type IO struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	Getenv func(string) string
}

// exitError carries an exit code through cobra.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

func usageErr(format string, args ...any) error {
	return &exitError{code: ExitUsage, err: fmt.Errorf(format, args...)}
}

func runtimeErr(err error) error { return &exitError{code: ExitRuntime, err: err} }

// silentExit ends the command with a code and no message (the command
// already said what happened).
func silentExit(code int) error { return &exitError{code: code} }

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
  worldprobe bench                        measure speed on the bundled examples`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(io.In)
	root.SetOut(io.Out)
	root.SetErr(io.ErrOut)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &exitError{code: ExitUsage, err: fmt.Errorf("%w\nRun '%s --help' for usage.", err, c.CommandPath())}
	})
	root.AddCommand(NewCmdInspect(io), NewCmdRun(io), NewCmdTask(io), NewCmdSuite(io), NewCmdBench(io), NewCmdSchema(io), NewCmdVersion(io),
		modelscmd.NewCmdModels(modelscmd.IO{In: io.In, Out: io.Out, ErrOut: io.ErrOut, Getenv: io.Getenv}))
	return root
}

// Main runs worldprobe with args and returns the exit code.
func Main(args []string, in io.Reader, out, errOut io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return Execute(ctx, args, IO{In: in, Out: out, ErrOut: errOut, Getenv: os.Getenv})
}

// Execute runs the command tree with ctx and returns the exit code.
func Execute(ctx context.Context, args []string, io IO) int {
	if io.Getenv == nil {
		io.Getenv = os.Getenv
	}
	level := slog.LevelWarn
	if io.Getenv("WORLDPROBE_DEBUG") != "" {
		level = slog.LevelDebug
	}
	slog.SetDefault(slog.New(slog.NewTextHandler(io.ErrOut, &slog.HandlerOptions{Level: level})))
	root := NewRootCmd(io)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintln(io.ErrOut, "worldprobe:", ee.err)
		}
		return ee.code
	}
	fmt.Fprintln(io.ErrOut, "worldprobe:", err)
	if ctx.Err() != nil {
		return ExitRuntime
	}
	if llm.IsFatal(err) || errors.Is(err, llm.ErrBudgetExceeded) {
		return ExitFatal
	}
	if isCobraUsage(err) {
		return ExitUsage
	}
	// Anything else went wrong while working, not in how worldprobe was
	// called: an infrastructure error.
	return ExitRuntime
}

// cobraUsage are the starts of the errors cobra itself returns for a
// command line it cannot take (flag errors come through SetFlagErrorFunc).
var cobraUsage = []string{"unknown command", "unknown flag", "unknown shorthand flag", "accepts ", "requires at least",
	"requires at most", "requires exactly", "invalid argument", "flag needs an argument", "required flag(s)",
	"if any flags in the group", "none of the others can be", "at least one of the flags"}

func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, p := range cobraUsage {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}
