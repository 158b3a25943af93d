package atomicfile

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestWrite: the file holds exactly what was written, replaces an older
// one, and no temporary file is left beside it.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "result.json")
	require.NoError(t, os.WriteFile(path, []byte("old"), 0o644))
	require.NoError(t, WriteJSON(path, map[string]int{"a": 1}))
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "{\n  \"a\": 1\n}\n", string(b))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1)
	require.ErrorContains(t, Write(filepath.Join(dir, "missing", "x"), nil), "writing "+filepath.Join(dir, "missing", "x"))
	require.ErrorContains(t, WriteJSON(path, func() {}), "encoding "+path)
}
