package taskcheck

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/mutate"
	"github.com/worldprobe/worldprobe/internal/task"
	"github.com/worldprobe/worldprobe/internal/testenv"
	"github.com/worldprobe/worldprobe/internal/trial"
)

var judge *trial.Runner

func TestMain(m *testing.M) {
	code := func() int {
		b, res, err := testenv.Start(2)
		if err != nil {
			panic(err)
		}
		defer b.Close()
		judge = &trial.Runner{Browser: b, Resolver: res, SkipDraw: true}
		return m.Run()
	}()
	os.Exit(code)
}

func check(t *testing.T, dir string) *Report {
	t.Helper()
	tk, err := task.Load(dir)
	require.NoError(t, err)
	rep, err := Check(context.Background(), judge, tk, t.TempDir(), Options{})
	require.NoError(t, err)
	return rep
}

func TestTinyTaskIsClean(t *testing.T) {
	tk, err := task.Load(filepath.Join("..", "run", "testdata", "suite", "simulation", "tiny"))
	require.NoError(t, err)
	var progress []string
	rep, err := Check(context.Background(), judge, tk, t.TempDir(), Options{Progress: func(id, phase string, done, total int) {
		progress = append(progress, fmt.Sprintf("%s: %s %d/%d", id, phase, done, total))
	}})
	require.NoError(t, err)
	require.Equal(t, []string{"simulation/tiny: reference run 1/3", "simulation/tiny: reference run 2/3",
		"simulation/tiny: reference run 3/3", "simulation/tiny: fixture 1/1"}, progress)
	require.True(t, rep.OK(), "%+v", rep)
	require.True(t, rep.Stable)
	require.Len(t, rep.Fixtures, 1)
	require.Equal(t, "fails as expected: the box never moves", rep.Fixtures[0].Message)
}

// TestStarterReferenceIsStable: in 'make test', one small starter task's
// reference (application/light-slider, 8 probes) passes its real contract
// three times with the same state hash; its alternates and fixtures are
// judged by TestNamedStarterTasksAreClean with the slow tests.
func TestStarterReferenceIsStable(t *testing.T) {
	t.Parallel()
	tk, err := task.Load(filepath.Join("..", "..", "suites", "starter", "application", "light-slider"))
	require.NoError(t, err)
	rep, err := Check(context.Background(), judge, tk, t.TempDir(), Options{OnlyMutants: true})
	require.NoError(t, err)
	require.True(t, rep.ReferenceOK, "%v", rep.ReferenceMsgs)
	require.True(t, rep.Stable)
	require.Equal(t, 1.0, rep.Reference.VCov)
	require.NotEmpty(t, rep.Reference.StateHash)
	require.Empty(t, rep.Fixtures)
	require.NotEmpty(t, rep.Partial)
}

// TestNamedStarterTasksAreClean checks the three tasks the validity issue
// fixed by id, and one of the smallest: reference ×3, every alternate ×3,
// every fixture. Slow tests only (about two minutes each on an idle
// machine); the whole suite is 'make check-suite' and 'make harden'.
func TestNamedStarterTasksAreClean(t *testing.T) {
	for _, id := range []string{"application/light-slider", "simulation/bouncing-ball", "application/color-cycle-cube", "rendering/day-night-cycle"} {
		t.Run(id, func(t *testing.T) {
			testenv.Slow(t)
			t.Parallel()
			rep := check(t, filepath.Join("..", "..", "suites", "starter", filepath.FromSlash(id)))
			require.Empty(t, rep.Lint)
			require.True(t, rep.ReferenceOK, "%v", rep.ReferenceMsgs)
			require.True(t, rep.Stable)
			require.Len(t, rep.Alternates, 2)
			for _, a := range rep.Alternates {
				require.True(t, a.OK, "alternate %s: %v", a.Style, a.Problems)
			}
			require.GreaterOrEqual(t, len(rep.Fixtures), 2)
			for _, f := range rep.Fixtures {
				require.True(t, f.OK, "fixture %s: %s", f.Name, f.Message)
			}
		})
	}
}

// mutationOptions limits the test to three operators whose mutants of the
// mover page are known: see testdata/suite/simulation/mover.
var mutationOptions = Options{Mutants: true, Jobs: 2, Mutate: mutate.Options{Seed: 1,
	Operators: []string{mutate.OpDeleteStateUpdate, mutate.OpScaleConstant, mutate.OpFreezeTime}}}

func checkMutants(t *testing.T, dir string, opts Options) *Report {
	t.Helper()
	tk, err := task.Load(dir)
	require.NoError(t, err)
	rep, err := Check(context.Background(), judge, tk, t.TempDir(), opts)
	require.NoError(t, err)
	require.True(t, rep.ReferenceOK, "%v", rep.ReferenceMsgs)
	require.True(t, rep.Stable, "%v", rep.ReferenceMsgs)
	require.NotNil(t, rep.Mutation)
	return rep
}

// statuses maps "operator line:col description" to the mutant's status.
func statuses(m *Mutation) map[string]string {
	out := map[string]string{}
	for _, r := range m.Mutants {
		out[fmt.Sprintf("%s %d:%d %s", r.Operator, r.Line, r.Col, r.Description)] = r.Status
	}
	return out
}

// TestStrongContractKillsMutantsAndSpotsEquivalents: the mover's contract
// kills every mutant that changes behaviour; deleting the unused frame
// counter, or scaling the dt clamp that never binds, changes nothing any
// probe reads, so those mutants are equivalent and excluded.
func TestStrongContractKillsMutantsAndSpotsEquivalents(t *testing.T) {
	t.Parallel()
	rep := checkMutants(t, filepath.Join("testdata", "suite", "simulation", "mover"), mutationOptions)
	m := rep.Mutation
	require.True(t, m.Hardened(), "survivors: %v", statuses(m))
	require.True(t, rep.OK())
	require.Equal(t, 0, m.Survived)
	require.GreaterOrEqual(t, m.Equivalent, 1, "%v", statuses(m))
	require.Equal(t, 1.0, m.KillRate())
	for _, r := range m.Mutants {
		if r.Status == Equivalent {
			for _, l := range strings.Split(r.Diff, "\n") {
				if strings.HasPrefix(l, "-") && !strings.HasPrefix(l, "---") {
					require.NotContains(t, l, "box.position.x", "a mutant of the motion itself is never equivalent")
				}
			}
		}
		if r.Status == Killed {
			require.NotEmpty(t, r.KilledBy)
		}
	}
	var frameCounter string
	for k, v := range statuses(m) {
		if strings.Contains(k, "frames") && strings.HasPrefix(k, mutate.OpDeleteStateUpdate) {
			frameCounter = v
		}
	}
	require.Equal(t, Equivalent, frameCounter, "deleting the unused frame counter is equivalent: %v", statuses(m))
}

// TestWeakContractIsRejected: a contract that only checks the state's type
// lets behaviour-changing mutants survive, and task check says so. Deleting
// the state updates is enough to show it (three mutants: the position's
// survives).
func TestWeakContractIsRejected(t *testing.T) {
	t.Parallel()
	opts := mutationOptions
	opts.Mutate.Operators = []string{mutate.OpDeleteStateUpdate}
	rep := checkMutants(t, filepath.Join("testdata", "suite", "simulation", "mover-weak"), opts)
	m := rep.Mutation
	require.Len(t, m.Mutants, 3)
	require.Equal(t, Survived, statuses(m)["delete-state-update 17:5 delete state update `box.position.x += P.speed * dt;`"], "%v", statuses(m))
	require.False(t, rep.OK())
	require.False(t, m.Hardened())
	require.Greater(t, m.Survived, 0)
	require.Less(t, m.KillRate(), 1.0)
	for _, r := range m.Mutants {
		if r.Status == Survived {
			require.Contains(t, r.Difference, "differs from the reference at probe")
			require.Contains(t, r.Diff, "@@")
		}
	}
}

// TestScaffoldIsJudged: a task with a scaffold has its scaffold judged
// once; its fail_to_pass probe fails there and its pass_to_pass probe
// passes, so the check is clean. With the labels swapped, each labelled
// probe is a problem at its line of contract.yaml, and the check is not
// clean.
func TestScaffoldIsJudged(t *testing.T) {
	dir := filepath.Join("testdata", "suite", "simulation", "mover-scaffold")
	tk, err := task.Load(dir)
	require.NoError(t, err)
	var progress []string
	rep, err := Check(context.Background(), judge, tk, t.TempDir(), Options{Progress: func(id, phase string, done, total int) {
		progress = append(progress, fmt.Sprintf("%s %d/%d", phase, done, total))
	}})
	require.NoError(t, err)
	require.Equal(t, []string{"reference run 1/3", "reference run 2/3", "reference run 3/3", "scaffold 1/1"}, progress)
	require.Empty(t, rep.Lint)
	require.True(t, rep.ReferenceOK, "%v", rep.ReferenceMsgs)
	require.NotNil(t, rep.Scaffold)
	require.Equal(t, []ScaffoldProbe{
		{Name: "moves_at_speed", Kind: "pass_to_pass", Passed: true, As: true},
		{Name: "space_stops", Kind: "fail_to_pass", Passed: false, As: true},
	}, rep.Scaffold.Probes)
	require.Empty(t, rep.Scaffold.Problems)
	require.True(t, rep.Scaffold.OK)
	require.True(t, rep.OK(), "%+v", rep)
	kinds := map[string]string{}
	for _, a := range rep.Scaffold.Trial.Assertions {
		kinds[a.Probe] = a.ProbeKind
	}
	require.Equal(t, map[string]string{"interface": "", "moves_at_speed": "pass_to_pass", "space_stops": "fail_to_pass", "box_is_named": ""}, kinds,
		"the scaffold's result labels its assertions with their probe's kind")

	swapped := filepath.Join(t.TempDir(), "simulation", "mover-scaffold")
	require.NoError(t, task.CopyTree(dir, swapped))
	c, err := os.ReadFile(filepath.Join(dir, "contract.yaml"))
	require.NoError(t, err)
	c = []byte(strings.NewReplacer("kind: pass_to_pass", "kind: fail_to_pass", "kind: fail_to_pass", "kind: pass_to_pass").Replace(string(c)))
	require.NoError(t, os.WriteFile(filepath.Join(swapped, "contract.yaml"), c, 0o644))
	rep = check(t, swapped)
	require.Empty(t, rep.Lint)
	require.True(t, rep.ReferenceOK, "%v", rep.ReferenceMsgs)
	file := filepath.ToSlash(filepath.Join(swapped, "contract.yaml"))
	require.Equal(t, []string{
		file + ":3: probe moves_at_speed is fail_to_pass but passes on the scaffold scaffold/index.html: it does not test the change the task asks for",
		file + ":10: probe space_stops is pass_to_pass but fails on the scaffold scaffold/index.html: fail at line 19: s.x = 0.55, want == 0.25 (stopped.x)",
	}, rep.Scaffold.Problems)
	require.False(t, rep.Scaffold.OK)
	require.False(t, rep.OK())
}
