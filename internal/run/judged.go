package run

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"

	"github.com/worldprobe/worldprobe/internal/result"
	"github.com/worldprobe/worldprobe/internal/task"
)

// Judged is a finished trial of a run folder with what it judged: its
// folder and, when the task and the candidate page are still those it
// judged, the planned trial (task, page).
type Judged struct {
	Trial *result.Trial
	// Dir is the trial's folder (RUN/trials/<trial>).
	Dir string
	// Planned is the trial as the run folder's configuration plans it
	// now; nil when no planned trial has its key: its task folder or its
	// page changed since it was judged, or is gone.
	Planned *Planned
}

// ReadConfig reads the configuration a run folder was made with
// (config.json).
func ReadConfig(out string) (*Config, error) {
	cfg, err := readStored[Config](filepath.Join(out, "config.json"))
	if err != nil {
		return nil, err
	}
	if cfg == nil {
		return nil, fmt.Errorf("%s has no config.json: not a 'worldprobe run' folder", out)
	}
	return cfg, nil
}

// Replan plans the run folder's configuration again — the tasks of its
// suite (and variants) it judged, its candidate sources and samples — as
// the folders are now. A trial's key digests its task folder and page, so
// a planned trial with the key of a finished one judges the same page of
// the same task.
func Replan(cfg *Config) ([]Planned, error) {
	all, err := task.Select([]string{cfg.Suite}, nil)
	if err != nil {
		return nil, fmt.Errorf("loading the run's suite: %w", err)
	}
	if cfg.Variants != "" {
		vs, err := task.LoadSuite(cfg.Variants)
		if err != nil {
			return nil, fmt.Errorf("loading the run's variants %s: %w", cfg.Variants, err)
		}
		all = append(all, vs...)
	}
	var tasks []*task.Task
	for _, t := range all {
		if slices.Contains(cfg.Tasks, t.ID) {
			tasks = append(tasks, t)
		}
	}
	return Plan(tasks, cfg.Sources, cfg.Repeat)
}

// ReadJudged reads the finished trials of the run folder out, sorted by
// key, each with its folder and its planned trial (see [Judged]).
func ReadJudged(out string) ([]Judged, error) {
	cfg, err := ReadConfig(out)
	if err != nil {
		return nil, err
	}
	done, _, err := scan(out)
	if err != nil {
		return nil, err
	}
	plan, err := Replan(cfg)
	if err != nil {
		return nil, err
	}
	byKey := map[string]*Planned{}
	for i := range plan {
		byKey[plan[i].Key] = &plan[i]
	}
	js := make([]Judged, 0, len(done))
	for k, f := range done {
		js = append(js, Judged{Trial: f.trial, Dir: filepath.Join(out, "trials", f.dir), Planned: byKey[k]})
	}
	sort.Slice(js, func(i, j int) bool { return js[i].Trial.Key < js[j].Trial.Key })
	return js, nil
}
