package task

import (
	"math"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestStarterSuiteShape keeps the bundled starter suite what the docs say
// it is: at least 30 tasks, at least 8 in each of simulation, rendering
// and application spread over at least 4 subdomains each, at least 10
// with parameters, each with 2+ fixtures, 2+ alternate solutions written
// blind, declared controls, every brief requirement covered, all
// lint-clean. (Running the
// references, fixtures and mutants is `make check-suite` / `make harden`.)
func TestStarterSuiteShape(t *testing.T) {
	tasks, err := LoadSuite(filepath.Join("..", "..", "suites", "starter"))
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(tasks), 30)
	perCat := map[string]int{}
	subdomains := map[string]map[string]bool{}
	withParams := 0
	for _, tk := range tasks {
		require.Empty(t, Lint(tk), "%s lints clean", tk.ID)
		require.NotEmpty(t, tk.Subdomain, "%s has a subdomain", tk.ID)
		fx, err := tk.Fixtures()
		require.NoError(t, err)
		require.GreaterOrEqual(t, len(fx), 2, "%s has 2+ fixtures", tk.ID)
		alts, err := tk.Alternates()
		require.NoError(t, err)
		if _, err := os.Stat(filepath.Join(tk.Dir, AlternatesDir)); tk.Scaffold == "" || !os.IsNotExist(err) {
			// A scaffolded task's alternates are written blind after it lands:
			// until its solutions/ folder exists it has none to count.
			require.GreaterOrEqual(t, len(alts), 2, "%s has 2+ alternate solutions", tk.ID)
		}
		reqs, _, err := tk.Requirements()
		require.NoError(t, err)
		require.GreaterOrEqual(t, len(reqs), 3, "%s has requirements with ids", tk.ID)
		perCat[tk.Category]++
		if subdomains[tk.Category] == nil {
			subdomains[tk.Category] = map[string]bool{}
		}
		subdomains[tk.Category][tk.Subdomain] = true
		if len(tk.Params) > 0 {
			withParams++
		}
	}
	for _, c := range []string{"simulation", "rendering", "application"} {
		require.GreaterOrEqual(t, perCat[c], 8, "tasks in %s", c)
		require.GreaterOrEqual(t, len(subdomains[c]), 4, "subdomains in %s: %v", c, subdomains[c])
	}
	require.GreaterOrEqual(t, withParams, 10)
}

// TestDefaultHumanHoursAreStarterMedians: each difficulty's default human
// hours is the median of the starter suite's human_hours at that grade,
// rounded up to the half hour, as DefaultHumanHours says.
func TestDefaultHumanHoursAreStarterMedians(t *testing.T) {
	tasks, err := LoadSuite(filepath.Join("..", "..", "suites", "starter"))
	require.NoError(t, err)
	byGrade := map[string][]float64{}
	for _, tk := range tasks {
		require.Positive(t, tk.HumanHours, "%s has human_hours", tk.ID)
		byGrade[tk.Difficulty] = append(byGrade[tk.Difficulty], tk.HumanHours)
	}
	for _, d := range Difficulties() {
		hs := byGrade[d]
		require.NotEmpty(t, hs, "the starter suite has a %s task", d)
		sort.Float64s(hs)
		median := (hs[(len(hs)-1)/2] + hs[len(hs)/2]) / 2
		require.Equal(t, math.Ceil(2*median)/2, DefaultHumanHours(d), "%s: median %v h", d, median)
	}
	require.Equal(t, 0.0, DefaultHumanHours("D7"))
}
