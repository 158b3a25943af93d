package task

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// Level is what kind of folder a path given on the command line is.
type Level int

// The folder levels Select understands.
const (
	// LevelTask: a folder with task.yaml.
	LevelTask Level = iota
	// LevelCategory: a folder of task folders (<slug>/task.yaml).
	LevelCategory
	// LevelSuite: a folder of categories (<category>/<slug>/task.yaml).
	LevelSuite
)

// FolderLevel says whether dir is a task, a category or a suite folder, or
// why it is none of them.
func FolderLevel(dir string) (Level, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return 0, err
	}
	if !st.IsDir() {
		return 0, fmt.Errorf("%s: not a folder (give a task, category or suite folder)", dir)
	}
	if _, err := os.Stat(filepath.Join(dir, TaskFile)); err == nil {
		return LevelTask, nil
	}
	if matches, _ := filepath.Glob(filepath.Join(dir, "*", TaskFile)); len(matches) > 0 {
		return LevelCategory, nil
	}
	if matches, _ := filepath.Glob(filepath.Join(dir, "*", "*", TaskFile)); len(matches) > 0 {
		return LevelSuite, nil
	}
	return 0, fmt.Errorf("%s: no %s here, in its subfolders or theirs (want a task folder, a category folder of task folders, or a suite folder of categories)", dir, TaskFile)
}

// Select loads the tasks of each folder in paths — a task folder, a
// category folder or a suite folder — and keeps those whose id matches one
// of patterns (path.Match globs over "<category>/<slug>", e.g.
// "simulation/*" or "*/bouncing-ball"; none keeps all). Tasks are sorted
// by id, each once. A pattern that matches no task is an error, so that a
// typo does not silently run nothing.
func Select(paths []string, patterns []string) ([]*Task, error) {
	for _, p := range patterns {
		if _, err := path.Match(p, ""); err != nil {
			return nil, fmt.Errorf("--task %q: %w", p, err)
		}
	}
	byID := map[string]*Task{}
	var errs []error
	for _, dir := range paths {
		ts, err := loadFolder(dir)
		if err != nil {
			errs = append(errs, err)
		}
		for _, t := range ts {
			if prev, ok := byID[t.ID]; ok && prev.Dir != t.Dir {
				errs = append(errs, fmt.Errorf("task %s is in both %s and %s", t.ID, prev.Dir, t.Dir))
				continue
			}
			byID[t.ID] = t
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	used := make([]bool, len(patterns))
	var tasks []*Task
	for _, t := range byID {
		if len(patterns) == 0 {
			tasks = append(tasks, t)
			continue
		}
		keep := false
		for i, p := range patterns {
			if ok, _ := path.Match(p, t.ID); ok {
				used[i], keep = true, true
			}
		}
		if keep {
			tasks = append(tasks, t)
		}
	}
	for i, p := range patterns {
		if !used[i] {
			errs = append(errs, fmt.Errorf("--task %q matches no task in %s (task ids look like simulation/bouncing-ball)", p, strings.Join(paths, ", ")))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	sort.Slice(tasks, func(i, j int) bool { return tasks[i].ID < tasks[j].ID })
	return tasks, nil
}

// loadFolder loads the tasks of one task, category or suite folder.
func loadFolder(dir string) ([]*Task, error) {
	level, err := FolderLevel(dir)
	if err != nil {
		return nil, err
	}
	switch level {
	case LevelTask:
		t, err := Load(dir)
		if err != nil {
			return nil, err
		}
		return []*Task{t}, nil
	case LevelCategory:
		return loadCategory(dir)
	default:
		return LoadSuite(dir)
	}
}

// loadCategory loads every <slug>/task.yaml of a category folder.
func loadCategory(dir string) ([]*Task, error) {
	slugs, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var tasks []*Task
	var errs []error
	for _, s := range slugs {
		if !s.IsDir() || strings.HasPrefix(s.Name(), ".") {
			continue
		}
		tdir := filepath.Join(dir, s.Name())
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
	return tasks, errors.Join(errs...)
}
