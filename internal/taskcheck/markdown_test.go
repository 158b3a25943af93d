package taskcheck

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/mutate"
	"github.com/worldprobe/worldprobe/internal/task"
)

func TestKillRates(t *testing.T) {
	at := func(seed int64, task string, killed, nonEq int) *Report {
		return &Report{Task: task, Mutation: &Mutation{Total: nonEq, Killed: killed, Selection: &mutate.Options{Seed: seed, Max: 20}}}
	}
	weak := at(7, "a/y", 17, 18)
	weak.Mutation.Survived = 1
	weak.Mutation.Mutants = []MutantResult{{Mutant: mutate.Mutant{ID: "scale-constant-5", Line: 55, Description: "scale 3 ×1.5 → 4.5"},
		Status: Survived, Difference: "differs from the reference at probe p"}}
	loaded := at(7, "c/z", 9, 10)
	loaded.Mutation.Unjudged = 1
	got := KillRates([][]*Report{
		{at(1, "b/x", 20, 20), at(1, "a/y", 18, 18)},
		{weak, loaded},
	})
	require.Equal(t, "| task | seed 1 | seed 7 |\n|---|---:|---:|\n"+
		"| a/y | 100.0% (18/18) | 94.4% (17/18) |\n"+
		"| b/x | 100.0% (20/20) | - |\n"+
		"| c/z | - | 100.0% (9/9, 1 unjudged) |\n"+
		"| **all** | **100.0%** (38/38) | **96.3%** (26/27, 1 unjudged) |\n"+
		"\nSurvivors:\n\n- seed 7, a/y `scale-constant-5` (line 55): scale 3 ×1.5 → 4.5 — differs from the reference at probe p\n", got)
}

func TestMarkdown(t *testing.T) {
	mut := func(id string, line int, status, desc, diff string) MutantResult {
		return MutantResult{Mutant: mutate.Mutant{ID: id, Line: line, Description: desc}, Status: status, Difference: diff}
	}
	strong := &Report{Task: "simulation/a", ReferenceOK: true, Stable: true,
		Fixtures:   []FixtureResult{{OK: true}, {OK: true}},
		Alternates: []AlternateResult{{Style: "classic-loop", OK: true}, {Style: "module-handlers", OK: true}},
		Requirements: []RequirementCoverage{
			{Requirement: task.Requirement{ID: "moves", Section: "Behaviour"}, Probes: []string{"p"}, BrokenBy: []string{"fixture slow", "mutant delete-call-2"}},
			{Requirement: task.Requirement{ID: "hud", Section: "Scene"}, Probes: []string{"q"}, BrokenBy: []string{}},
		},
		Mutation: &Mutation{Total: 12, Killed: 11, Equivalent: 1, Mutants: []MutantResult{
			mut("flip-comparison-1", 66, Equivalent, "flip <= to < in `t <= dt`", ""),
			mut("delete-call-2", 70, Killed, "delete `f()`", ""),
		}}}
	strong.Mutation.Mutants[0].Explored = 16
	weak := &Report{Task: "simulation/b", ReferenceOK: true, Stable: true,
		Fixtures: []FixtureResult{{OK: true}, {OK: false}},
		Mutation: &Mutation{Total: 8, Killed: 6, Survived: 2, Mutants: []MutantResult{
			mut("scale-constant-3", 12, Survived, "scale 2 ×0.5 → 1 in `a | b`", "probe p, frame 3"),
		}}}
	unmutated := &Report{Task: "rendering/c", ReferenceOK: false, Fixtures: []FixtureResult{{OK: true}}}
	want := `| task | alternates | requirements | mutants | killed | equivalent | survived | kill rate | fixtures | reference |
|---|---:|---:|---:|---:|---:|---:|---:|---:|---|
| simulation/a | 2/2 | 1/2 | 12 | 11 | 1 | 0 | 100.0% | 2/2 | pass ×3 |
| simulation/b | 0/0 | - | 8 | 6 | 0 | 2 | 75.0% | 1/2 | pass ×3 |
| rendering/c | 0/0 | - | - | - | - | - | - | 1/1 | FAIL |
| **all 3 tasks** | | | 20 | 17 | 1 | 2 | 89.5% | | |

0 of 3 tasks hardened (clean, no survivor, at least 10 non-equivalent mutants).

### Survivors

- simulation/b ` + "`scale-constant-3`" + ` (line 12): scale 2 ×0.5 → 1 in ` + "`a \\| b`" + `; probe p, frame 3

### Equivalent mutants (excluded from the kill rate)

- simulation/a ` + "`flip-comparison-1`" + ` (line 66): flip <= to < in ` + "`t <= dt`" + ` — also alike under exploration with 16 inputs

### Fewer than 10 non-equivalent mutants

- simulation/b: 8 non-equivalent mutants

### Requirements not shown breakable

- simulation/a ` + "`hud`" + `: no fixture or mutant broke q

### Requirement coverage

<details><summary>simulation/a: 2 requirements</summary>

| requirement | section | probes | broken by |
|---|---|---|---|
| ` + "`moves`" + ` | Behaviour | p | fixture slow, mutant delete-call-2 |
| ` + "`hud`" + ` | Scene | q | - |

</details>
`
	require.Equal(t, want, Markdown([]*Report{strong, weak, unmutated}))
}

// TestUnjudgedMutants: a mutant the overloaded machine could not judge
// counts neither as killed nor as equivalent, keeps the task from being
// hardened, and is listed with how to judge it again.
func TestUnjudgedMutants(t *testing.T) {
	m := &Mutation{Total: 12, Killed: 10, Equivalent: 1, Unjudged: 1, Mutants: []MutantResult{
		{Mutant: mutate.Mutant{ID: "delete-call-7", Line: 40, Description: "delete `tick()`"}, Status: Unjudged,
			KilledBy: "the page did not respond by its deadline (machine overloaded)"},
	}}
	require.Equal(t, 10, m.NonEquivalent())
	require.Equal(t, 1.0, m.KillRate())
	require.False(t, m.Hardened())
	r := &Report{Task: "simulation/a", ReferenceOK: true, Stable: true, Mutation: m}
	require.False(t, r.OK())
	require.Contains(t, Markdown([]*Report{r}), "### Not judged: the machine was overloaded (judge again with --mutants ID)\n\n"+
		"- simulation/a `delete-call-7` (line 40): delete `tick()`; the page did not respond by its deadline (machine overloaded)\n")
}

// TestPartialReport: a mutants-only check (another seed's kill rate) is not
// failed for requirements that only fixtures could have shown breakable,
// but it still needs every mutant killed.
func TestPartialReport(t *testing.T) {
	unbroken := []RequirementCoverage{{Requirement: task.Requirement{ID: "hud"}, Probes: []string{"q"}, BrokenBy: []string{}}}
	full := &Report{Task: "simulation/a", ReferenceOK: true, Stable: true, Requirements: unbroken,
		Mutation: &Mutation{Total: 12, Killed: 12}}
	require.False(t, full.OK(), "a full check must show every requirement breakable")
	partial := *full
	partial.Partial = "only the reference and the mutants were judged"
	require.True(t, partial.OK())
	require.True(t, partial.Hardened())
	partial.Mutation = &Mutation{Total: 12, Killed: 11, Survived: 1}
	require.False(t, partial.Hardened())

	// Only the mutants named on the command line: the same.
	byID := *full
	byID.Mutation = &Mutation{Total: 1, Killed: 1, Selection: &mutate.Options{IDs: []string{"scale-constant-5"}}}
	require.True(t, byID.OK(), "a check of one named mutant cannot show every requirement breakable")
}
