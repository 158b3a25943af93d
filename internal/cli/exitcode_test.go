package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/llm"
)

// TestExitCodesTable: the table has every code once, in order, each named
// and explained; the names are what codes print as.
func TestExitCodesTable(t *testing.T) {
	want := []ExitCode{ExitOK, ExitFailed, ExitUsage, ExitInfrastructure, ExitModelFatal}
	require.Len(t, ExitCodes, len(want))
	names := map[string]bool{}
	for i, e := range ExitCodes {
		require.Equal(t, want[i], e.Code)
		require.Equal(t, ExitCode(i), e.Code, "codes are 0, 1, 2, ... with no gap")
		require.NotEmpty(t, e.Name)
		require.NotEmpty(t, e.Meaning)
		require.False(t, names[e.Name], "name %q twice", e.Name)
		names[e.Name] = true
		require.Equal(t, e.Name, e.Code.String())
	}
	require.Equal(t, "exit code 9", ExitCode(9).String())
	// The numbers are a contract with scripts and CI: they never change.
	require.Equal(t, []int{0, 1, 2, 3, 4}, []int{int(ExitOK), int(ExitFailed), int(ExitUsage), int(ExitInfrastructure), int(ExitModelFatal)})
}

// TestExitCodesDocs: the table in docs/cli.md is the one rendered from
// ExitCodes.
func TestExitCodesDocs(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "cli.md"))
	require.NoError(t, err)
	doc := string(b)
	i := strings.Index(doc, "\n## Exit codes\n")
	require.GreaterOrEqual(t, i, 0, "docs/cli.md has an '## Exit codes' section")
	var table strings.Builder
	for _, line := range strings.Split(doc[i+len("\n## Exit codes\n"):], "\n") {
		if strings.HasPrefix(line, "|") {
			table.WriteString(line + "\n")
		} else if table.Len() > 0 {
			break
		}
	}
	require.Equal(t, exitCodesMarkdown(), table.String(),
		"docs/cli.md's exit-code table differs from ExitCodes (internal/cli/exitcode.go); paste the expected table into the doc")
}

// TestExitCodesHelp: 'worldprobe --help' lists every code, from the same
// table, in lines that fit 80 columns; a command's help points to it.
func TestExitCodesHelp(t *testing.T) {
	code, out, errOut := executeIn(context.Background(), nil, "--help")
	require.Equal(t, ExitOK, code, errOut)
	require.Contains(t, out, exitCodesText())
	for _, e := range ExitCodes {
		require.Regexp(t, fmt.Sprintf(`(?m)^  %d  %s +\S`, e.Code, e.Name), out)
	}
	for _, line := range strings.Split(exitCodesText(), "\n") {
		require.LessOrEqual(t, len(line), 80, line)
	}
	code, out, _ = executeIn(context.Background(), nil, "task", "check", "--help")
	require.Equal(t, ExitOK, code)
	require.Contains(t, strings.Join(strings.Fields(out), " "),
		"Exit status 0 when every task is clean and hardened, 1 when any is not; the other codes are in 'worldprobe --help'.")
}

// TestExitCodeOf: the one mapping from the error a command ended with to
// the exit code.
func TestExitCodeOf(t *testing.T) {
	live := context.Background()
	cancelled, cancel := context.WithCancel(live)
	cancel()
	fatal := &llm.FatalError{Role: "navigator", Reason: "missing API key"}
	budget := &llm.BudgetError{Scope: "run", Unit: "usd", Limit: 1, Spent: 1.5}
	cases := []struct {
		name string
		ctx  context.Context
		err  error
		want ExitCode
	}{
		{"no error", live, nil, ExitOK},
		{"no error, interrupted after the work", cancelled, nil, ExitOK},

		{"a verdict failed", live, silentExit(ExitFailed), ExitFailed},
		{"a verdict failed, wrapped", live, fmt.Errorf("checking: %w", silentExit(ExitFailed)), ExitFailed},
		{"a verdict failed, but interrupted", cancelled, silentExit(ExitFailed), ExitInfrastructure},

		{"usageErr", live, usageErr("--frames must be 0 or more"), ExitUsage},
		{"usageErr, interrupted", cancelled, usageErr("--frames must be 0 or more"), ExitUsage},
		{"cobra: unknown command", live, errors.New(`unknown command "x" for "worldprobe"`), ExitUsage},
		{"cobra: argument count", live, errors.New("accepts 1 arg(s), received 2"), ExitUsage},
		{"cobra: required flag", live, errors.New(`required flag(s) "out" not set`), ExitUsage},

		{"unknown plain error", live, errors.New("disk on fire"), ExitInfrastructure},
		{"plain error that is no usage error", live, errors.New("open results.db: permission denied"), ExitInfrastructure},
		{"runtimeErr", live, runtimeErr(errors.New("no chromium")), ExitInfrastructure},
		{"a command's error worded like cobra's", live, runtimeErr(errors.New("invalid argument")), ExitInfrastructure},
		{"interrupted", cancelled, runtimeErr(context.Canceled), ExitInfrastructure},
		{"plain error, interrupted", cancelled, errors.New("disk on fire"), ExitInfrastructure},

		{"model provider fatal", live, fatal, ExitModelFatal},
		{"model provider fatal, wrapped", live, fmt.Errorf("trial 3: %w", fatal), ExitModelFatal},
		{"model provider fatal, as runtimeErr", live, runtimeErr(fmt.Errorf("trial 3: %w", fatal)), ExitModelFatal},
		{"budget", live, budget, ExitModelFatal},
		{"budget sentinel, wrapped", live, fmt.Errorf("judge: %w", llm.ErrBudgetExceeded), ExitModelFatal},
		{"model provider fatal, interrupted", cancelled, fatal, ExitInfrastructure},

		{"an explicit code", live, silentExit(ExitModelFatal), ExitModelFatal},
	}
	for _, c := range cases {
		require.Equal(t, c.want, exitCodeOf(c.ctx, c.err), c.name)
	}
}

// executeIn runs worldprobe in process with ctx and exactly the environment
// env (nothing from the test's own, so no API key leaks in).
func executeIn(ctx context.Context, env map[string]string, args ...string) (ExitCode, string, string) {
	var out, errOut bytes.Buffer
	code := Execute(ctx, args, IO{In: strings.NewReader(""), Out: &out, ErrOut: &errOut,
		Getenv: func(k string) string { return env[k] }})
	return code, out.String(), errOut.String()
}

// TestExitCodesInProcess runs commands that end before any browser starts
// and checks each exit code with what stderr says.
func TestExitCodesInProcess(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(body), 0o600))
		return p
	}
	hardened := write("hardened.json", `[{"task": "simulation/a", "reference_ok": true, "stable": true,
		"mutation": {"total": 12, "killed": 12, "selection": {"seed": 1, "max": 20}}}]`)
	weak := write("weak.json", `[{"task": "simulation/a", "reference_ok": true, "stable": true,
		"mutation": {"total": 12, "killed": 10, "survived": 2, "selection": {"seed": 1, "max": 20}}}]`)
	notReport := write("not-a-report.json", `{"task": 1}`)
	aFile := write("file.txt", "")
	replay := filepath.Join(dir, "replay")
	require.NoError(t, os.Mkdir(replay, 0o755))
	key := map[string]string{"OPENAI_API_KEY": "sk-test"}
	// A provider at a port where nothing listens: the ping cannot leave the machine.
	nowhere := write("models.yaml", "roles:\n  navigator:\n    provider: openai\n    model: gpt-4.1-mini\n    base_url: http://127.0.0.1:1/v1\n")

	live := context.Background()
	cancelled, cancel := context.WithCancel(live)
	cancel()
	cases := []struct {
		name   string
		ctx    context.Context
		env    map[string]string
		args   []string
		want   ExitCode
		stderr string // a part of stderr; "" for empty stderr
		stdout string // a part of stdout, if any
	}{
		{"version", live, nil, []string{"version"}, ExitOK, "", "worldprobe "},
		{"schema", live, nil, []string{"schema", "task"}, ExitOK, "", `"properties"`},
		{"a group alone prints its help", live, nil, []string{"task"}, ExitOK, "", "Available Commands:"},
		{"help of a command", live, nil, []string{"help", "task", "summarize"}, ExitOK, "", "Exit status 0 when every task is hardened"},
		{"summarize, hardened", live, nil, []string{"task", "summarize", hardened}, ExitOK, "", "1 of 1 tasks hardened"},

		{"summarize, not hardened", live, nil, []string{"task", "summarize", weak}, ExitFailed, "", "0 of 1 tasks hardened"},

		{"unknown flag", live, nil, []string{"version", "--no-such-flag"}, ExitUsage,
			"worldprobe: unknown flag: --no-such-flag\nRun 'worldprobe version --help' for usage.\n", ""},
		{"bad flag value", live, nil, []string{"inspect", "--frames", "many", "x.html"}, ExitUsage,
			`invalid argument "many" for "--frames" flag`, ""},
		{"unknown command", live, nil, []string{"no-such-command"}, ExitUsage,
			`worldprobe: unknown command "no-such-command" for "worldprobe"`, ""},
		{"unknown subcommand", live, nil, []string{"task", "no-such-command"}, ExitUsage,
			`worldprobe: unknown command "no-such-command" for "worldprobe task"`, ""},
		{"unknown help topic", live, nil, []string{"help", "no-such-command"}, ExitUsage,
			`worldprobe: no help topic "no-such-command"`, ""},
		{"too many arguments", live, nil, []string{"version", "extra"}, ExitUsage,
			`worldprobe: unknown command "extra" for "worldprobe version"`, ""},
		{"too few arguments", live, nil, []string{"models", "ping"}, ExitUsage,
			"worldprobe: accepts 1 arg(s), received 0", ""},
		{"a command's own argument check", live, nil, []string{"schema", "no-such-schema"}, ExitUsage,
			`worldprobe: no schema "no-such-schema"; known: models, result, task`, ""},
		{"an argument that is no role", live, nil, []string{"models", "ping", "judge"}, ExitUsage,
			`worldprobe: llm: unknown role "judge"`, ""},
		{"an input that is not what the command takes", live, nil, []string{"task", "summarize", notReport}, ExitUsage,
			"is not the JSON of 'task check --json'", ""},
		{"no task folder", live, nil, []string{"task", "prompt", filepath.Join(dir, "no-such-task")}, ExitUsage,
			"no-such-task", ""},

		{"an output that cannot be written", live, nil, []string{"task", "summarize", "--out", filepath.Join(aFile, "summary.md"), hardened},
			ExitInfrastructure, "worldprobe: writing the summary: open " + filepath.Join(aFile, "summary.md") + ": not a directory", ""},
		{"a plain error: a models file that does not exist", live, nil, []string{"models", "list", "--models", filepath.Join(dir, "no-such.yaml")},
			ExitInfrastructure, "no-such.yaml: no such file or directory", ""},
		{"interrupted", cancelled, key, []string{"models", "ping", "navigator", "--models", nowhere}, ExitInfrastructure,
			"context canceled", ""},
		{"interrupted, which wins over a model provider's refusal", cancelled, key, []string{"models", "ping", "navigator", "--replay", replay},
			ExitInfrastructure, "worldprobe: llm: fatal: role navigator", ""},

		{"a model provider refused for good", live, nil, []string{"models", "ping", "visual_judge"}, ExitModelFatal,
			"worldprobe: llm: fatal: role visual_judge (openai gpt-4.1): missing API key: environment variable OPENAI_API_KEY is not set", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := executeIn(c.ctx, c.env, c.args...)
			require.Equal(t, c.want, code, "worldprobe %s\nstderr: %s", strings.Join(c.args, " "), errOut)
			if c.stderr == "" {
				require.Empty(t, errOut)
			} else {
				require.Contains(t, errOut, c.stderr)
			}
			require.Contains(t, out, c.stdout)
		})
	}
}
