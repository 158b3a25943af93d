package task

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// LoadSuite loads every task of a suite folder, laid out as
// <category>/<slug>/task.yaml, sorted by id. Files at either level and
// folders whose names start with "." are ignored; a <category>/<slug>
// folder without task.yaml is an error. All problems are returned together.
func LoadSuite(dir string) ([]*Task, error) {
	cats, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var tasks []*Task
	var errs []error
	for _, c := range cats {
		if !c.IsDir() || strings.HasPrefix(c.Name(), ".") {
			continue
		}
		slugs, err := os.ReadDir(filepath.Join(dir, c.Name()))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, s := range slugs {
			if !s.IsDir() || strings.HasPrefix(s.Name(), ".") {
				continue
			}
			tdir := filepath.Join(dir, c.Name(), s.Name())
			if _, err := os.Stat(filepath.Join(tdir, TaskFile)); errors.Is(err, os.ErrNotExist) {
				errs = append(errs, posErr(tdir, 0, "no %s in this task folder", TaskFile))
				continue
			}
			t, err := Load(tdir)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			tasks = append(tasks, t)
		}
	}
	sort.Slice(tasks, func(i, j int) bool { return tasks[i].ID < tasks[j].ID })
	return tasks, errors.Join(errs...)
}
