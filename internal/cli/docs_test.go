package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/worldprobe/worldprobe/internal/task"
)

// sharedFlagsSection is the heading of docs/cli.md's table of the engine
// flags (engineFlags), which the commands that run pages share.
const sharedFlagsSection = "Flags shared by commands that run pages"

// documentedCommands are the commands docs/cli.md must describe: every
// non-hidden command but cobra's own (help, completion) and the groups.
// A group (task, suite, models: alone, it prints its help) is described
// through its subcommands, which list the group's persistent flags
// (--models) as their own; a command that runs and has subcommands too
// (judge, judge mutate) is described as well as each of them.
var commandsWithSubcommands = map[string]bool{"judge": true}

func documentedCommands(root *cobra.Command) []*cobra.Command {
	var cmds []*cobra.Command
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if sub.Hidden || (c == root && (sub.Name() == "help" || sub.Name() == "completion")) {
				continue
			}
			if !sub.HasSubCommands() || commandsWithSubcommands[sub.Name()] {
				cmds = append(cmds, sub)
			}
			walk(sub)
		}
	}
	walk(root)
	return cmds
}

// commandName is a command's path without "worldprobe ": the heading of
// its section in docs/cli.md.
func commandName(c *cobra.Command) string {
	return strings.TrimPrefix(c.CommandPath(), c.Root().Name()+" ")
}

// commandFlags are the names of the flags a command takes, its own and
// those it inherits (a group's --models), without --help.
func commandFlags(c *cobra.Command) []string {
	var names []string
	add := func(f *pflag.Flag) {
		if f.Name != "help" && !f.Hidden {
			names = append(names, f.Name)
		}
	}
	c.LocalFlags().VisitAll(add)
	c.InheritedFlags().VisitAll(add)
	sort.Strings(names)
	return names
}

// docSections splits a Markdown document at its "## " headings: heading
// text to the text below it, up to the next "## " heading.
func docSections(doc string) map[string]string {
	sections := map[string]string{}
	var heading string
	var body strings.Builder
	flush := func() {
		if heading != "" {
			sections[heading] = body.String()
		}
		body.Reset()
	}
	for _, line := range strings.Split(doc, "\n") {
		if h, ok := strings.CutPrefix(line, "## "); ok {
			flush()
			heading = strings.TrimSpace(h)
			continue
		}
		body.WriteString(line + "\n")
	}
	flush()
	return sections
}

// mentionsFlag reports whether text names --name as a whole flag (not as
// a part of --name-more or --other-name).
func mentionsFlag(text, name string) bool {
	return regexp.MustCompile(`(^|[^\w-])--` + regexp.QuoteMeta(name) + `([^\w-]|$)`).MatchString(text)
}

var (
	// flagRow is a row of a flag table: | `--name ...` | ... |
	flagRow = regexp.MustCompile("(?m)^\\| `--([\\w-]+)")
	// anyFlag is every --name in a line.
	anyFlag = regexp.MustCompile(`(?:^|[^\w-])--([a-z][\w-]*)`)
)

// documentedFlags are the flags a section claims a command has: those
// that head a row of its flag tables, and those in its usage lines
// ("worldprobe NAME ...", as in its fenced synopsis).
func documentedFlags(section, name string) []string {
	var flags []string
	for _, m := range flagRow.FindAllStringSubmatch(section, -1) {
		flags = append(flags, m[1])
	}
	for _, line := range strings.Split(section, "\n") {
		if strings.HasPrefix(line, "worldprobe "+name+" ") {
			for _, m := range anyFlag.FindAllStringSubmatch(line, -1) {
				flags = append(flags, m[1])
			}
		}
	}
	return flags
}

// TestCLIDocs: docs/cli.md has a section ("## task check") for every
// command, and each section mentions every flag of its command as
// --flag; the engine flags (--chromium, --jobs, ...) may instead be in the
// shared table, which then names the command. No flag table row or usage
// line names a flag the command does not have.
func TestCLIDocs(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "cli.md"))
	require.NoError(t, err)
	sections := docSections(string(b))

	var engine engineFlags
	fs := pflag.NewFlagSet("engine", pflag.ContinueOnError)
	engine.register(fs)
	shared := map[string]bool{}
	usage := map[string]string{}
	fs.VisitAll(func(f *pflag.Flag) { shared[f.Name], usage[f.Name] = true, f.Usage })
	sharedDoc, ok := sections[sharedFlagsSection]
	require.True(t, ok, "docs/cli.md has no %q section", "## "+sharedFlagsSection)
	fs.VisitAll(func(f *pflag.Flag) {
		assert.True(t, mentionsFlag(sharedDoc, f.Name), "docs/cli.md, %q: the engine flag --%s is missing", sharedFlagsSection, f.Name)
	})
	for _, f := range documentedFlags(sharedDoc, "") {
		assert.True(t, shared[f], "docs/cli.md, %q: --%s is no engine flag (internal/cli/engine.go)", sharedFlagsSection, f)
	}

	root := NewRootCmd(IO{In: strings.NewReader(""), Out: &strings.Builder{}, ErrOut: &strings.Builder{}, Getenv: func(string) string { return "" }})
	cmds := documentedCommands(root)
	require.NotEmpty(t, cmds)
	for _, c := range cmds {
		name := commandName(c)
		section, ok := sections[name]
		if !assert.True(t, ok, "docs/cli.md has no section %q for 'worldprobe %s'", "## "+name, name) {
			continue
		}
		flags := commandFlags(c)
		has := map[string]bool{}
		// A flag is the engine's when it has the engine flag's name and
		// meaning; a command's own flag of the same name ('gen --jobs',
		// model calls at once) is documented in its section.
		engineFlag := map[string]bool{}
		takesShared := 0
		for _, f := range flags {
			has[f] = true
			if shared[f] && c.Flags().Lookup(f).Usage == usage[f] {
				engineFlag[f] = true
				takesShared++
			}
		}
		if takesShared > 0 {
			assert.Equal(t, len(shared), takesShared, "'worldprobe %s' takes some engine flags but not all; docs/cli.md's shared table would be untrue", name)
			assert.Contains(t, sharedDoc, "`"+name+"`", "docs/cli.md, %q: does not name `%s`, which takes these flags", sharedFlagsSection, name)
		}
		for _, f := range flags {
			if engineFlag[f] {
				continue // in the shared table
			}
			assert.True(t, mentionsFlag(section, f), "docs/cli.md, section %q: the flag --%s of 'worldprobe %s' is not mentioned", "## "+name, f, name)
		}
		for _, f := range documentedFlags(section, name) {
			assert.True(t, has[f], "docs/cli.md, section %q documents --%s, which 'worldprobe %s' does not have", "## "+name, f, name)
		}
	}
}

// TestCLIDocsSeesEveryCommand: the walk of TestCLIDocs finds the commands
// (subcommands included), so that test cannot pass by seeing none.
func TestCLIDocsSeesEveryCommand(t *testing.T) {
	root := NewRootCmd(IO{In: strings.NewReader(""), Out: &strings.Builder{}, ErrOut: &strings.Builder{}, Getenv: func(string) string { return "" }})
	var names []string
	for _, c := range documentedCommands(root) {
		names = append(names, commandName(c))
	}
	require.Equal(t, []string{"agreement", "bench", "bench-models", "compare-judges", "gen", "inspect", "judge", "judge mutate", "models list", "models ping", "run", "schema", "serve", "suite perturb",
		"task check", "task mutate", "task prompt", "task summarize", "version", "worker"}, sortedCopy(names))

	require.True(t, mentionsFlag("`--max N`", "max"))
	require.False(t, mentionsFlag("`--max-mutants N`", "max"))
	require.False(t, mentionsFlag("`--no-mutants`", "mutants"))
	require.True(t, mentionsFlag("--mutants ID,ID", "mutants"))
	require.Equal(t, []string{"frames", "seed", "json"},
		documentedFlags("| `--frames N` | 60 | x; not `--fps` |\nworldprobe inspect PAGE [--seed S] [--json]\nsee worldprobe run --oracle\n", "inspect"))
}

// TestHelpHasExamples: every command's --help shows examples of itself.
func TestHelpHasExamples(t *testing.T) {
	root := NewRootCmd(IO{In: strings.NewReader(""), Out: &strings.Builder{}, ErrOut: &strings.Builder{}, Getenv: func(string) string { return "" }})
	for _, c := range documentedCommands(root) {
		name := commandName(c)
		require.NotEmpty(t, strings.TrimSpace(c.Example), "'worldprobe %s' has no Example", name)
		args := append(strings.Fields(name), "--help")
		code, out, errOut := executeIn(context.Background(), nil, args...)
		require.Equal(t, ExitOK, code, errOut)
		i := strings.Index(out, "\nExamples:\n")
		require.GreaterOrEqual(t, i, 0, "'worldprobe %s --help' shows no examples", name)
		require.Contains(t, out[i:], "  worldprobe "+name, "'worldprobe %s --help': no example runs the command itself", name)
	}
}

func sortedCopy(s []string) []string {
	s = append([]string(nil), s...)
	sort.Strings(s)
	return s
}

// TestStarterREADME: suites/starter/README.md lists every task of the
// suite, under its category's heading with the category's count, with its
// number of probes and its fixtures (a note in parentheses may follow a
// fixture's name).
func TestStarterREADME(t *testing.T) {
	suite := filepath.Join("..", "..", "suites", "starter")
	b, err := os.ReadFile(filepath.Join(suite, "README.md"))
	require.NoError(t, err)
	readme := string(b)
	tasks, err := task.LoadSuite(suite)
	require.NoError(t, err)
	require.NotEmpty(t, tasks)

	note := regexp.MustCompile(` \([^)]*\)`)
	rows := map[string]string{}
	for _, line := range strings.Split(readme, "\n") {
		cells := strings.Split(line, " | ")
		if len(cells) == 3 && strings.HasPrefix(line, "| ") && strings.HasSuffix(line, " |") {
			id := strings.TrimPrefix(cells[0], "| ")
			rows[id] = id + " | " + cells[1] + " | " + note.ReplaceAllString(strings.TrimSuffix(cells[2], " |"), "")
		}
	}
	delete(rows, "task")
	perCategory := map[string]int{}
	for _, tk := range tasks {
		perCategory[tk.Category]++
		data, err := os.ReadFile(tk.ContractPath())
		require.NoError(t, err)
		var c struct{ Probes []yaml.Node } // counted, not compiled: that takes seconds for the suite
		require.NoError(t, yaml.Unmarshal(data, &c), tk.ContractPath())
		entries, err := os.ReadDir(filepath.Join(tk.Dir, task.CandidatesDir))
		require.NoError(t, err)
		var fixtures []string
		for _, e := range entries {
			if e.IsDir() {
				fixtures = append(fixtures, e.Name())
			}
		}
		assert.Equal(t, fmt.Sprintf("%s | %d | %s", tk.ID, len(c.Probes), strings.Join(fixtures, ", ")), rows[tk.ID],
			"suites/starter/README.md: the row of %s (task | probes | fixtures)", tk.ID)
		delete(rows, tk.ID)
	}
	assert.Empty(t, rows, "suites/starter/README.md lists tasks the suite does not have")
	for category, n := range perCategory {
		heading := fmt.Sprintf("\n### %s%s (%d)\n", strings.ToUpper(category[:1]), category[1:], n)
		assert.True(t, strings.Contains(readme, heading), "suites/starter/README.md has no heading %q", strings.TrimSpace(heading))
	}
}
