package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/worldprobe/worldprobe/internal/llm"
)

// ExitCode is the status worldprobe exits with. Every code it can return is
// one of the constants below and one row of [ExitCodes]; [exitCodeOf] is the
// only place an error becomes a code.
type ExitCode int

const (
	// ExitOK: the command did all it was asked and everything it judged
	// passed. 'run' exits 0 whenever every trial ran, whatever the scores;
	// --help, 'version' and 'schema' exit 0.
	ExitOK ExitCode = 0

	// ExitFailed: the command ran to the end and something it judged did
	// not pass: a page did not end ok ('inspect'), a task has a problem or a
	// surviving mutant ('task check'), a task is not hardened ('task
	// summarize'), a variant's reference failed ('suite perturb --check'),
	// a world's capture stopped early ('judge').
	// 'run' never exits 1. Commands return it with silentExit, after
	// printing what failed.
	ExitFailed ExitCode = 1

	// ExitUsage: the command line or its inputs are not what the command
	// takes: an unknown command, flag or help topic, a bad flag value, a
	// missing or extra argument, a folder with no task or suite, a file
	// that is not a 'task check --json' report, a labels file or run
	// folder 'agreement' cannot read, a run folder 'compare-judges'
	// cannot read or an unknown judge, a 'run --candidates' folder without a page for half the tasks or more (a folder of the
	// wrong layout, refused before anything runs unless --allow-missing).
	// Commands return it with
	// usageErr; cobra's own errors and every Args validator's error map
	// to it too.
	ExitUsage ExitCode = 2

	// ExitInfrastructure: the work could not be done: no Chromium or
	// vendored packages, a file that cannot be read or written, a run
	// folder made with another configuration, an interruption (SIGINT,
	// SIGTERM; it wins over ExitFailed) — and any error that is none of
	// the others, so that a failure of worldprobe or its machine is never
	// taken for a usage error or for a verdict. Commands return it with
	// runtimeErr; a command's plain error maps to it.
	ExitInfrastructure ExitCode = 3

	// ExitModelFatal: a model provider refused for good (a missing or bad
	// key, no credit, an unknown model, a request not recorded for
	// --replay: an [llm.FatalError]) or a spending budget ran out
	// ([llm.ErrBudgetExceeded]); the work stopped rather than count it
	// against the model. It holds even when a command wrapped the error
	// with runtimeErr.
	ExitModelFatal ExitCode = 4
)

// ExitCodeInfo is one row of [ExitCodes].
type ExitCodeInfo struct {
	// Code is the exit status.
	Code ExitCode
	// Name is a short name for the code, as help and docs show it.
	Name string
	// Meaning says when the code is returned, in Markdown (commands and
	// flags in backticks).
	Meaning string
}

// ExitCodes lists every exit code worldprobe returns, in order: the root
// command's help and the table in docs/cli.md are rendered from it.
var ExitCodes = []ExitCodeInfo{
	{ExitOK, "ok", "done, and everything judged passed; `run`: every trial ran, whatever the scores"},
	{ExitFailed, "failed", "done, and something judged did not pass: a page did not end ok (`inspect`), " +
		"a task has a problem or a surviving mutant (`task check`), a task is not hardened (`task summarize`), " +
		"a variant's reference failed (`suite perturb --check`), a world's capture stopped early (`judge`); `run` never exits 1"},
	{ExitUsage, "usage", "the command line or its inputs are wrong: an unknown command, flag or help topic, " +
		"a bad flag value, a missing or extra argument, a folder with no task or suite, " +
		"a file that is not a `task check --json` report, a labels file or run folder `agreement` cannot read, " +
		"a run folder `compare-judges` cannot read"},
	{ExitInfrastructure, "infrastructure", "the work could not be done: no Chromium or vendored packages, " +
		"a file that cannot be read or written, a run folder made with another configuration, " +
		"interrupted (SIGINT, SIGTERM), and any error that is none of the others"},
	{ExitModelFatal, "model-fatal", "a model provider refused for good (missing or bad key, no credit, " +
		"unknown model, a request not recorded for `--replay`) or a spending budget ran out"},
}

// String returns the code's name from [ExitCodes].
func (c ExitCode) String() string {
	for _, e := range ExitCodes {
		if e.Code == c {
			return e.Name
		}
	}
	return fmt.Sprintf("exit code %d", int(c))
}

// exitCodesText renders [ExitCodes] for the root command's help.
func exitCodesText() string {
	width := 0
	for _, e := range ExitCodes {
		width = max(width, len(e.Name))
	}
	indent := strings.Repeat(" ", 2+1+2+width+2)
	var b strings.Builder
	b.WriteString("Exit codes:")
	for _, e := range ExitCodes {
		prefix := fmt.Sprintf("  %d  %-*s  ", int(e.Code), width, e.Name)
		b.WriteString("\n" + wrap(prefix, strings.ReplaceAll(e.Meaning, "`", "'"), indent))
	}
	return b.String()
}

// wrap writes prefix, then the words of text in lines of at most 80
// columns where it can, every line after the first starting with indent.
func wrap(prefix, text, indent string) string {
	var b strings.Builder
	b.WriteString(prefix)
	col := len(prefix)
	for i, w := range strings.Fields(text) {
		switch {
		case i > 0 && col+1+len(w) > 80:
			b.WriteString("\n" + indent)
			col = len(indent)
		case i > 0:
			b.WriteByte(' ')
			col++
		}
		b.WriteString(w)
		col += len(w)
	}
	return b.String()
}

// exitCodesMarkdown renders [ExitCodes] as the Markdown table of docs/cli.md.
func exitCodesMarkdown() string {
	var b strings.Builder
	b.WriteString("| code | name | meaning |\n|---|---|---|\n")
	for _, e := range ExitCodes {
		fmt.Fprintf(&b, "| %d | `%s` | %s |\n", int(e.Code), e.Name, e.Meaning)
	}
	return b.String()
}

// exitStatusHelp is the last line of a command's long help: what 0 and 1
// mean for it (failed "" for a command that never exits 1).
func exitStatusHelp(ok, failed string) string {
	s := fmt.Sprintf("Exit status %d when %s", int(ExitOK), ok)
	if failed != "" {
		s += fmt.Sprintf(", %d when %s", int(ExitFailed), failed)
	}
	return wrap("", s+"; the other codes are in 'worldprobe --help'.", "")
}

// exitError carries an exit code through cobra.
type exitError struct {
	code ExitCode
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", int(e.code))
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// usageErr ends the command with [ExitUsage] and the formatted message.
func usageErr(format string, args ...any) error {
	return &exitError{code: ExitUsage, err: fmt.Errorf(format, args...)}
}

// runtimeErr ends the command with [ExitInfrastructure] (or
// [ExitModelFatal] if err is a model provider's fatal error).
func runtimeErr(err error) error { return &exitError{code: ExitInfrastructure, err: err} }

// silentExit ends the command with a code and no message (the command
// already said what happened).
func silentExit(code ExitCode) error { return &exitError{code: code} }

// exitCodeOf maps the error a command ended with to the exit code; ctx is
// the invocation's context. In order:
//   - no error: ExitOK;
//   - usageErr: ExitUsage;
//   - ctx is done (interrupted): ExitInfrastructure, whatever else went wrong;
//   - any other code a command chose (silentExit): that code;
//   - a model provider's fatal error or a budget, anywhere in the chain: ExitModelFatal;
//   - cobra's own command-line errors (not a command's): ExitUsage;
//   - everything else, runtimeErr or not: ExitInfrastructure.
func exitCodeOf(ctx context.Context, err error) ExitCode {
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	chosen := errors.As(err, &ee)
	switch {
	case chosen && ee.code == ExitUsage:
		return ExitUsage
	case ctx.Err() != nil:
		return ExitInfrastructure
	case chosen && ee.code != ExitInfrastructure:
		return ee.code
	case llm.IsFatal(err) || errors.Is(err, llm.ErrBudgetExceeded):
		return ExitModelFatal
	case !chosen && isCobraUsage(err):
		return ExitUsage
	}
	return ExitInfrastructure
}

// exitMessage is what Execute prints on stderr for err ("" for nothing).
func exitMessage(err error) string {
	var ee *exitError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &ee):
		if ee.err == nil {
			return ""
		}
		return ee.err.Error()
	}
	return err.Error()
}

// cobraUsage are the starts of the errors cobra itself returns for a
// command line it cannot take (flag errors come through SetFlagErrorFunc,
// argument errors through classifyErrors).
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

// classifyErrors makes the errors of c and every command below it carry
// their exit code, so that none is decided by the wording of a message:
//   - an Args validator's error is a usage error;
//   - a RunE's plain error is an infrastructure error (runtimeErr), never a
//     usage one;
//   - a command that only groups others ('task', 'suite', 'models',
//     'completion') takes no argument, so an unknown subcommand is a usage
//     error rather than its help and exit 0; alone it prints its help;
//   - 'help' of an unknown topic is a usage error.
//
// Call it on the root once the tree is built and cobra's help and
// completion commands are added.
func classifyErrors(c *cobra.Command) {
	for _, sub := range c.Commands() {
		classifyErrors(sub)
	}
	switch {
	case c.HasParent() && c.Name() == "help" && c.Run != nil:
		show := c.Run
		c.Run = nil
		c.RunE = func(cmd *cobra.Command, args []string) error {
			if found, _, err := cmd.Root().Find(args); found == nil || err != nil {
				return usageErr("no help topic %q\nRun '%s --help' for usage.", strings.Join(args, " "), cmd.Root().CommandPath())
			}
			show(cmd, args)
			return nil
		}
	case c.HasParent() && c.HasSubCommands() && !c.Runnable():
		c.Args = cobra.NoArgs
		c.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
	}
	if valid := c.Args; valid != nil {
		c.Args = func(cmd *cobra.Command, args []string) error {
			err := valid(cmd, args)
			var ee *exitError
			if err == nil || errors.As(err, &ee) {
				return err
			}
			return &exitError{code: ExitUsage, err: err}
		}
	}
	if run := c.RunE; run != nil {
		c.RunE = func(cmd *cobra.Command, args []string) error {
			err := run(cmd, args)
			var ee *exitError
			if err == nil || errors.As(err, &ee) {
				return err
			}
			return runtimeErr(err)
		}
	}
}
