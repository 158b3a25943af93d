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
		ts, err := loadCategory(filepath.Join(dir, c.Name()))
		if err != nil {
			errs = append(errs, err)
		}
		tasks = append(tasks, ts...)
	}
	sort.Slice(tasks, func(i, j int) bool { return tasks[i].ID < tasks[j].ID })
	return tasks, errors.Join(errs...)
}
