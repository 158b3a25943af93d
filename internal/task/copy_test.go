package task

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCopyTreeSkips(t *testing.T) {
	src := t.TempDir()
	for _, f := range []string{"task.yaml", "solution/index.html", "solution/assets/a.png", "candidates/bad/index.html"} {
		p := filepath.Join(src, f)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(f), 0o600))
	}
	dst := filepath.Join(t.TempDir(), "out")
	require.NoError(t, CopyTree(src, dst, CandidatesDir))
	var got []string
	require.NoError(t, filepath.WalkDir(dst, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dst, p)
			b, _ := os.ReadFile(p)
			require.Equal(t, filepath.ToSlash(rel), string(b))
			got = append(got, filepath.ToSlash(rel))
		}
		return err
	}))
	require.Equal(t, []string{"solution/assets/a.png", "solution/index.html", "task.yaml"}, got)
	require.ErrorContains(t, CopyTree(filepath.Join(src, "missing"), dst), "copying")
}
