package task

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Digest is the sha256, in hex, of the task folder's files: for each
// regular file in sorted relative path order (slash-separated), its path,
// a NUL byte, its size in decimal, a NUL byte and its contents. Files and
// folders whose names start with "." are left out (editor and OS litter),
// so are symbolic links. Any change to the brief, contract, solution,
// assets or fixtures changes the digest, which lock files record.
func (t *Task) Digest() (string, error) {
	var files []string
	err := filepath.WalkDir(t.Dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if path != t.Dir && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() {
			rel, err := filepath.Rel(t.Dir, path)
			if err != nil {
				return err
			}
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("digesting task %s: %w", t.ID, err)
	}
	sort.Strings(files)
	h := sha256.New()
	for _, rel := range files {
		data, err := os.ReadFile(filepath.Join(t.Dir, filepath.FromSlash(rel)))
		if err != nil {
			return "", fmt.Errorf("digesting task %s: %w", t.ID, err)
		}
		fmt.Fprintf(h, "%s\x00%d\x00", rel, len(data))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
