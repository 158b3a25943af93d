package task

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// CopyTree copies the folder src to dst (created as needed), files and
// subfolders, except the subfolders whose path relative to src is in
// skip (e.g. CandidatesDir). Files are written 0644, folders 0755.
func CopyTree(src, dst string, skip ...string) error {
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			for _, s := range skip {
				if rel == filepath.FromSlash(s) {
					return filepath.SkipDir
				}
			}
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		return fmt.Errorf("copying %s to %s: %w", src, dst, err)
	}
	return nil
}
