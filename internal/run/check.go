package run

import (
	"fmt"
	"sort"
	"strings"

	"github.com/worldprobe/worldprobe/internal/result"
	"github.com/worldprobe/worldprobe/internal/task"
)

// CheckFixture reports whether a fixture's trial failed the way its
// expect.yaml says: the named crash, each listed probe with at least one
// assertion that did not pass, and the expected attribution. The message
// says what differed.
func CheckFixture(t *result.Trial, e task.Expect) (bool, string) {
	var problems []string
	wantCrash := e.Outcome == task.OutcomeCrash
	switch {
	case wantCrash && t.Outcome != result.OutcomeCrash:
		problems = append(problems, fmt.Sprintf("expected a crash (%s), the page ran", e.CrashKind))
	case wantCrash && e.CrashKind != "" && t.CrashKind != e.CrashKind:
		problems = append(problems, fmt.Sprintf("expected crash %s, got %s", e.CrashKind, t.CrashKind))
	case !wantCrash && t.Outcome == result.OutcomeCrash:
		problems = append(problems, fmt.Sprintf("expected the page to run, it crashed (%s: %s)", t.CrashKind, t.CrashMessage))
	}
	if t.Outcome != result.OutcomeCrash {
		failed := map[string]bool{}
		for _, a := range t.Failed() {
			failed[a.Probe] = true
		}
		for _, p := range e.Fails {
			if !failed[p] {
				problems = append(problems, fmt.Sprintf("probe %s passed but should fail", p))
			}
		}
		if t.Pass {
			problems = append(problems, "every assertion passed")
		}
	}
	if e.Attribution != "" && t.Attribution != e.Attribution {
		problems = append(problems, fmt.Sprintf("attribution %s, expected %s", t.Attribution, e.Attribution))
	}
	if len(problems) > 0 {
		return false, strings.Join(problems, "; ")
	}
	return true, "fails as expected: " + e.Reason
}

// FailedProbes lists the probes of a trial with an assertion that did not pass.
func FailedProbes(t *result.Trial) []string {
	seen := map[string]bool{}
	var out []string
	for _, a := range t.Failed() {
		if !seen[a.Probe] {
			seen[a.Probe] = true
			out = append(out, a.Probe)
		}
	}
	sort.Strings(out)
	return out
}
