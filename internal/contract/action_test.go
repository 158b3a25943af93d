package contract

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite docs/contracts.md's step table from the step registry")

// The step table in docs/contracts.md is the registry's: a step kind added
// in its own file shows up there, or this test fails (go test -update
// rewrites it).
func TestDocsStepTableIsTheRegistry(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "contracts.md")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	doc := string(data)
	const head = "| step | example | what it does |\n"
	start := strings.Index(doc, head)
	require.GreaterOrEqual(t, start, 0, "docs/contracts.md has no step table")
	end := start + strings.Index(doc[start:], "\n\n") + 1
	want := StepTable()
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(doc[:start]+want+doc[end:]), 0o644))
		return
	}
	require.Equal(t, want, doc[start:end], "docs/contracts.md's step table; go test ./internal/contract -run DocsStepTable -update rewrites it")
}

// Every registered kind parses its own documented example, and the
// example's step has the kind's traits (an input settles, a click holds).
func TestEveryStepParsesItsExample(t *testing.T) {
	for _, st := range stepTypes() {
		example := strings.SplitN(strings.Trim(st.Example, "`"), "`", 2)[0]
		src := "version: 1\nprobes:\n  - name: p\n    level: state\n    steps:\n      - snapshot: before\n      - trace: {name: other, frames: 1}\n"
		if st.Kind == StepPress {
			src += "      - " + example + "\n      - release: {at: [1, 1]}\n"
		} else if st.Kind != StepSnapshot && st.Kind != StepTrace {
			src += "      - " + example + "\n"
		}
		if st.Kind == StepRelease {
			src = strings.Replace(src, "      - "+example, "      - press: {at: [1, 1]}\n      - "+example, 1)
		}
		src += "      - assert: before == before\n"
		c, err := Parse("contract.yaml", []byte(src))
		require.NoError(t, err, "%s: %s", st.Kind, example)
		var found bool
		for _, s := range c.Probes[0].Steps {
			if s.Kind == st.Kind {
				found = true
				require.NotEmpty(t, s.Describe())
				require.Equal(t, s.Traits().Input, s.Settles() && !s.Traits().Reads, "%s", st.Kind)
			}
		}
		require.True(t, found, "%s", st.Kind)
	}
	require.Equal(t, []StepKind{StepClick, StepDrag, StepMove, StepWheel, StepKey, StepType, StepHead, StepHand, StepController}, ControlKinds())
}
