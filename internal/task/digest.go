package task

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
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
	h := sha256.New()
	if err := digestFolder(h, t.Dir, ""); err != nil {
		return "", fmt.Errorf("digesting task %s: %w", t.ID, err)
	}
	// A world-judged task's rubric lives beside it (judge: {rubric:
	// ../rubric}): its files are part of what the task judges by.
	if t.Judge != nil {
		if err := digestFolder(h, t.RubricDir(), "judge.rubric/"); err != nil {
			return "", fmt.Errorf("digesting task %s: its rubric: %w", t.ID, err)
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// digestFolder writes dir's files into h as Digest describes, each path
// prefixed with prefix.
func digestFolder(h io.Writer, dir, prefix string) error {
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if path != dir && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() {
			rel, err := filepath.Rel(dir, path)
			if err != nil {
				return err
			}
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		return err
	}
	sort.Strings(files)
	for _, rel := range files {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s%s\x00%d\x00", prefix, rel, len(data))
		h.Write(data)
	}
	return nil
}
