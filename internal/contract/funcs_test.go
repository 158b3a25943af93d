package contract

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The table "Scene contacts and 3D panels" in docs/contracts.md is the
// function registry's: a function added in its own fn_<name>.go shows up
// there, or this test fails (go test -run DocsFuncTable -update rewrites
// it).
func TestDocsFuncTableIsTheRegistry(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "contracts.md")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	doc := string(data)
	const head = "| function | example | what it gives |\n"
	start := strings.Index(doc, head)
	require.GreaterOrEqual(t, start, 0, "docs/contracts.md has no table of registered functions")
	end := start + strings.Index(doc[start:], "\n\n") + 1
	want := FuncTable()
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(doc[:start]+want+doc[end:]), 0o644))
		return
	}
	require.Equal(t, want, doc[start:end], "docs/contracts.md's table of registered functions; go test ./internal/contract -run DocsFuncTable -update rewrites it")
}

// Every registered function's example compiles as an assertion, and every
// one is declared, bound and counted as reading the page.
func TestEveryFuncCompilesItsExample(t *testing.T) {
	for _, f := range funcTypes() {
		example := strings.SplitN(strings.Trim(f.Example, "`"), "`", 2)[0]
		src := "version: 1\nprobes:\n  - name: p\n    level: state\n    steps:\n      - assert: '" + strings.ReplaceAll(example, "'", "''") + "'\n"
		c, err := Parse("contract.yaml", []byte(src))
		require.NoError(t, err, "%s: %s", f.Name, example)
		a := c.Probes[0].Steps[0].Assertion()
		require.True(t, a.usesPage, "%s reads the page", f.Name)
		require.Equal(t, f.Observes, a.Observes(), "%s", f.Name)
	}
}
