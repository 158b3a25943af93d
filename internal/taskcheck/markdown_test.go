package taskcheck

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/mutate"
)

func TestMarkdown(t *testing.T) {
	mut := func(id string, line int, status, desc, diff string) MutantResult {
		return MutantResult{Mutant: mutate.Mutant{ID: id, Line: line, Description: desc}, Status: status, Difference: diff}
	}
	strong := &Report{Task: "simulation/a", ReferenceOK: true, Stable: true,
		Fixtures: []FixtureResult{{OK: true}, {OK: true}},
		Mutation: &Mutation{Total: 12, Killed: 11, Equivalent: 1, Mutants: []MutantResult{
			mut("flip-comparison-1", 66, Equivalent, "flip <= to < in `t <= dt`", ""),
			mut("delete-call-2", 70, Killed, "delete `f()`", ""),
		}}}
	weak := &Report{Task: "simulation/b", ReferenceOK: true, Stable: true,
		Fixtures: []FixtureResult{{OK: true}, {OK: false}},
		Mutation: &Mutation{Total: 8, Killed: 6, Survived: 2, Mutants: []MutantResult{
			mut("scale-constant-3", 12, Survived, "scale 2 ×0.5 → 1 in `a | b`", "probe p, frame 3"),
		}}}
	unmutated := &Report{Task: "rendering/c", ReferenceOK: false, Fixtures: []FixtureResult{{OK: true}}}
	want := `| task | mutants | killed | equivalent | survived | kill rate | fixtures | reference |
|---|---:|---:|---:|---:|---:|---:|---|
| simulation/a | 12 | 11 | 1 | 0 | 100.0% | 2/2 | pass ×3 |
| simulation/b | 8 | 6 | 0 | 2 | 75.0% | 1/2 | pass ×3 |
| rendering/c | - | - | - | - | - | 1/1 | FAIL |
| **all 3 tasks** | 20 | 17 | 1 | 2 | 89.5% | | |

1 of 3 tasks hardened (clean, no survivor, at least 10 non-equivalent mutants).

### Survivors

- simulation/b ` + "`scale-constant-3`" + ` (line 12): scale 2 ×0.5 → 1 in ` + "`a \\| b`" + `; probe p, frame 3

### Equivalent mutants (excluded from the kill rate)

- simulation/a ` + "`flip-comparison-1`" + ` (line 66): flip <= to < in ` + "`t <= dt`" + `

### Fewer than 10 non-equivalent mutants

- simulation/b: 8 non-equivalent mutants
`
	require.Equal(t, want, Markdown([]*Report{strong, weak, unmutated}))
}
