package artifactstore_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/artifactstore"
	"github.com/worldprobe/worldprobe/internal/artifactstore/storetest"
)

func TestDirConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) artifactstore.Store {
		d, err := artifactstore.NewDir(filepath.Join(t.TempDir(), "artifacts"))
		require.NoError(t, err)
		t.Cleanup(func() { d.Close() })
		return d
	})
}

// A name cannot leave the folder through a symbolic link.
func TestDirRefusesLinksOut(t *testing.T) {
	ctx := context.Background()
	outside := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("s"), 0o644))
	dir := filepath.Join(t.TempDir(), "artifacts")
	d, err := artifactstore.NewDir(dir)
	require.NoError(t, err)
	defer d.Close()
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "out")))
	_, err = d.Open(ctx, "out/secret.txt")
	require.Error(t, err)
	require.Error(t, d.Put(ctx, "out/new.txt", strings.NewReader("x"), 1))
	_, err = os.Stat(filepath.Join(outside, "new.txt"))
	require.ErrorIs(t, err, fs.ErrNotExist)
}

func TestParseS3URL(t *testing.T) {
	for in, want := range map[string][2]string{
		"s3://runs":                  {"runs", ""},
		"s3://runs/":                 {"runs", ""},
		"s3://runs/starter/2026-12":  {"runs", "starter/2026-12"},
		"s3://runs/starter/2026-12/": {"runs", "starter/2026-12"},
	} {
		b, p, err := artifactstore.ParseS3URL(in)
		require.NoError(t, err, in)
		require.Equal(t, want, [2]string{b, p}, in)
	}
	for _, in := range []string{"runs/x", "s3:///x", "s3://u:p@runs/x", "s3://runs/a/../b", "s3://runs/x?y=1", "https://runs/x"} {
		_, _, err := artifactstore.ParseS3URL(in)
		require.Error(t, err, in)
	}
}
