package task

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// AlternatesDir holds a task's alternate solutions, one folder per style:
// solutions/<style>/index.html.
const AlternatesDir = "solutions"

// Alternate is one more correct solution of a task beside the reference,
// written in another style (modules or classic scripts, another three.js
// version, state published once per frame, input read in the animation
// loop, …) by someone who saw only the prompt. Like the reference it must
// pass every assertion, every time: it proves that the contract follows
// the brief and not the reference's idiom.
type Alternate struct {
	// Style is the folder name, e.g. "classic-loop".
	Style string
	Page  string
}

// Alternates lists the task's alternate solutions, sorted by style. A
// style folder without index.html is an error.
func (t *Task) Alternates() ([]Alternate, error) {
	root := filepath.Join(t.Dir, AlternatesDir)
	entries, err := os.ReadDir(root)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Alternate
	var errs []error
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		a := Alternate{Style: e.Name(), Page: filepath.Join(root, e.Name(), PageFile)}
		if _, err := os.Stat(a.Page); err != nil {
			errs = append(errs, posErr(filepath.Join(root, e.Name()), 0, "alternate solution %s has no %s", a.Style, PageFile))
			continue
		}
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Style < out[j].Style })
	return out, errors.Join(errs...)
}
