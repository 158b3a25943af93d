package taskcheck

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/task"
	"github.com/worldprobe/worldprobe/internal/trial"
)

// worldSuite copies the CLI's small world-judged suite (the tiny isle
// and its rubric) into a temporary folder and loads its task.
func worldSuite(t *testing.T, edit func(taskDir, rubricDir string)) *task.Task {
	t.Helper()
	src := filepath.Join("..", "cli", "testdata", "worldsuite")
	dst := t.TempDir()
	require.NoError(t, filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	}))
	dir := filepath.Join(dst, "world", "tiny-isle")
	if edit != nil {
		edit(dir, filepath.Join(dst, "rubric"))
	}
	tk, err := task.Load(dir)
	require.NoError(t, err)
	require.True(t, tk.WorldJudged())
	return tk
}

// TestWorldTaskProblemsNameTheirFiles: a world-judged task is checked
// without a contract: a rubric problem, a fixture naming a test the
// rubric lacks and a missing reference are lint findings naming their
// files (no browser runs), and a checker without a world judge is an
// error naming the task file — never a crash or a silent pass.
func TestWorldTaskProblemsNameTheirFiles(t *testing.T) {
	ctx := context.Background()
	j := &trial.Runner{} // no browser: nothing here may reach one
	opts := Options{Mutants: true}

	tk := worldSuite(t, func(_, rubricDir string) {
		p := filepath.Join(rubricDir, "rubric.yaml")
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(p, []byte(strings.Replace(string(b), "halves: [code, sight]", "halves: [code, smell]", 1)), 0o644))
	})
	rep, err := Check(ctx, j, tk, t.TempDir(), opts)
	require.NoError(t, err)
	require.False(t, rep.OK())
	require.Len(t, rep.Lint, 1)
	require.True(t, strings.HasPrefix(rep.Lint[0], filepath.Join(tk.Dir, "task.yaml")+": judge: rubric ../../rubric: "), rep.Lint[0])
	require.Contains(t, rep.Lint[0], filepath.Join(filepath.Dir(filepath.Dir(tk.Dir)), "rubric", "rubric.yaml")+":15: ")
	require.Nil(t, rep.Reference)

	tk = worldSuite(t, func(taskDir, _ string) {
		fx := filepath.Join(taskDir, "candidates", "blank")
		require.NoError(t, os.MkdirAll(fx, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(fx, "index.html"), []byte("<!DOCTYPE html><canvas></canvas>"), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(fx, "expect.yaml"), []byte("reason: a blank page has no cycle\nfails: [WC005, WC009]\n"), 0o644))
	})
	rep, err = Check(ctx, j, tk, t.TempDir(), opts)
	require.NoError(t, err)
	require.Equal(t, []string{filepath.Join(tk.Dir, "candidates", "blank", "expect.yaml") + ": fails names WC009, which is not a test of the rubric test/tiny-isle (WC005)"}, rep.Lint)

	tk = worldSuite(t, func(taskDir, _ string) {
		require.NoError(t, os.RemoveAll(filepath.Join(taskDir, "solution")))
	})
	rep, err = Check(ctx, j, tk, t.TempDir(), opts)
	require.NoError(t, err)
	require.Len(t, rep.Lint, 1)
	require.Contains(t, rep.Lint[0], "missing reference solution")
	require.False(t, rep.OK())

	tk = worldSuite(t, nil)
	_, err = Check(ctx, j, tk, t.TempDir(), opts)
	require.EqualError(t, err, "task world/tiny-isle is judged against a rubric ("+filepath.Join(tk.Dir, "task.yaml")+" judge:) and the checker has no world judge")
}
