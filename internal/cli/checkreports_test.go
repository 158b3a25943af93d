package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/task"
	"github.com/worldprobe/worldprobe/internal/taskcheck"
)

// TestCheckReportsResume: a kept report is reused only while the task's
// files and the check's options are those it was made from, and a reports
// folder is what 'task summarize' reads.
func TestCheckReportsResume(t *testing.T) {
	taskDir := filepath.Join(t.TempDir(), "simulation", "a")
	require.NoError(t, os.MkdirAll(filepath.Join(taskDir, "solution"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(taskDir, "task.yaml"), []byte("id: simulation/a\n"), 0o644))
	page := filepath.Join(taskDir, "solution", "index.html")
	require.NoError(t, os.WriteFile(page, []byte("<p>v1</p>"), 0o644))
	tk := &task.Task{ID: "simulation/a", Dir: taskDir}

	dir := filepath.Join(t.TempDir(), "seed1")
	opts := &TaskCheckOptions{Seed: 1, MaxMutants: 20}
	kept := newCheckReports(dir, opts)
	r, err := kept.load(tk)
	require.NoError(t, err)
	require.Nil(t, r, "nothing kept yet")

	rep := &taskcheck.Report{Task: "simulation/a", ReferenceOK: true, Stable: true,
		Mutation: &taskcheck.Mutation{Total: 12, Killed: 12}}
	require.NoError(t, kept.save(tk, rep))
	require.FileExists(t, filepath.Join(dir, "simulation", "a.json"))
	r, err = kept.load(tk)
	require.NoError(t, err)
	require.NotNil(t, r)
	require.Equal(t, 12, r.Mutation.Killed)

	overloaded := &taskcheck.Report{Task: "simulation/a", ReferenceOK: true, Stable: true,
		Mutation: &taskcheck.Mutation{Total: 12, Killed: 11, Unjudged: 1, Mutants: []taskcheck.MutantResult{{Status: taskcheck.Unjudged}}}}
	require.NoError(t, kept.save(tk, overloaded))
	r, err = kept.load(tk)
	require.NoError(t, err)
	require.Nil(t, r, "a mutant the machine was too loaded to judge: checked again")
	require.NoError(t, kept.save(tk, rep))

	other, err := newCheckReports(dir, &TaskCheckOptions{Seed: 7, MaxMutants: 20}).load(tk)
	require.NoError(t, err)
	require.Nil(t, other, "another mutant seed is another check")

	code, stdout, stderr := execute(t, "task", "summarize", dir)
	require.Equal(t, ExitOK, code, stderr)
	require.Contains(t, stdout, "| simulation/a |")

	require.NoError(t, os.WriteFile(page, []byte("<p>v2</p>"), 0o644))
	r, err = kept.load(tk)
	require.NoError(t, err)
	require.Nil(t, r, "the reference changed: checked again")

	code, _, stderr = execute(t, "task", "summarize", t.TempDir())
	require.Equal(t, ExitUsage, code)
	require.Contains(t, stderr, "no report (.json) in this folder")
}

// TestCheckReportsOptionsKeepTheirOldForm: the options a kept report is
// fingerprinted with are byte for byte what they were while 'task check'
// had --viewport (at its default), so reports kept then still match.
func TestCheckReportsOptionsKeepTheirOldForm(t *testing.T) {
	kept := newCheckReports(t.TempDir(), &TaskCheckOptions{Seed: 1, MaxMutants: DefaultMaxMutants})
	require.Equal(t, "mutants=true seed=1 max=20 operators= ids= viewport=1280x800", kept.options)
	kept = newCheckReports(t.TempDir(), &TaskCheckOptions{Seed: 7, MaxMutants: 0, NoMutants: true,
		Operators: []string{"b", "a"}, MutantIDs: []string{"y-2", "x-1"}, OnlyMutants: true})
	require.Equal(t, "mutants=false seed=7 max=0 operators=a,b ids=x-1,y-2 viewport=1280x800 only-mutants", kept.options)
}
