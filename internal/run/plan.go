// Package run plans and executes an evaluation run: tasks × models ×
// samples, each trial judged in the browser, its result.json written
// atomically the moment it finishes, stored in SQLite, and summarised in a
// leaderboard and an HTML report. Running the same command again resumes.
package run

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/worldprobe/worldprobe/internal/contract"
	"github.com/worldprobe/worldprobe/internal/task"
	"github.com/worldprobe/worldprobe/internal/trial"
	"github.com/worldprobe/worldprobe/internal/worldjudge/rubric"
)

// Source is where one model's candidate pages are.
type Source struct {
	Model string `json:"model"`
	// Dir holds DIR/<task-id>/index.html or DIR/<task-id>.html — or, as
	// 'worldprobe gen' writes a model's folder, DIR/sample-<k>/ folders of
	// that shape, each a sample of the model (pass@k counts them).
	Dir string `json:"dir,omitempty"`
	// Oracle uses each task's reference solution; Fixtures its flawed fixtures.
	Oracle   bool `json:"oracle,omitempty"`
	Fixtures bool `json:"fixtures,omitempty"`
	// Repair says how Dir's pages were made when they are not the model's
	// first answers ("error-only", "feedback": result.Repairs), as the
	// gen.json records beside them say. Two sources may have the same
	// Model when their Repair differs: the first-shot and the repaired
	// pages of one model, each a leaderboard row of its own.
	Repair string `json:"repair,omitempty"`
}

// ID names the source among the run's: its model, and its repair when it
// has one ("gpt (error-only)", as leaderboard rows are named).
func (s Source) ID() string { return sourceID(s.Model, s.Repair) }

func sourceID(model, repair string) string {
	if repair == "" {
		return model
	}
	return model + " (" + repair + ")"
}

// Planned is one trial to run.
type Planned struct {
	Key      string
	Task     *task.Task
	Contract *contract.Contract
	Model    string
	// Repair is the source's (Source.Repair): "" for first-shot pages.
	Repair    string
	Candidate string // name shown in reports
	// PagesDir is the folder of pages (DIR/<task-id>/…) the page was
	// looked for in: the --candidates folder, or its sample-<k> folder.
	PagesDir string
	Page     string // path of the HTML file; "" when the model produced none
	Digest   string // sha256 of the page ("" when missing)
	// TaskDigest is the sha256 of the task folder, computed once in Plan.
	TaskDigest string
	Sample     int
	Variant    string
	Params     map[string]any
	// Expect is set for fixtures: what the fixture must fail.
	Expect *task.Fixture
	// WorldJudge is how a task judged against a rubric is judged
	// (trial.Spec.WorldJudge), part of the key; set by JudgeWorlds.
	WorldJudge string
}

// JudgeWorlds records in each of plan's trials of a task judged against
// a rubric how its world judge judges (judging: "offline", or the models
// of its roles; worldjudge.Options.Name): it is part of the trial's key
// and spec, so that a run judged offline and one judged with models are
// different trials, and a worker judges each trial as it was planned.
// Other trials keep their keys.
func JudgeWorlds(plan []Planned, judging string) {
	for i := range plan {
		if plan[i].Task.WorldJudged() {
			plan[i].WorldJudge = judging
			plan[i].Key = plan[i].key()
		}
	}
}

// key is the trial's key: its semantic inputs, digested.
func (p Planned) key() string {
	parts := []any{p.Task.ID, p.TaskDigest, p.Model, p.Candidate, p.Digest, p.Sample, p.Variant}
	if p.Repair != "" {
		parts = append(parts, p.Repair) // first-shot keys stay as they were
	}
	if p.WorldJudge != "" {
		parts = append(parts, "world judge", p.WorldJudge)
	}
	return key(parts...)
}

// ID names the trial's source ([Source.ID]).
func (p Planned) ID() string { return sourceID(p.Model, p.Repair) }

// Dir is the trial's folder name inside the run folder.
func (p Planned) Dir() string {
	model := p.Model
	if p.Repair != "" {
		model += "+" + p.Repair
	}
	name := fmt.Sprintf("%s__%s__%s__s%d", strings.ReplaceAll(p.Task.ID, "/", "_"), model, p.Candidate, p.Sample)
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ' ' || r == ':' {
			return '_'
		}
		return r
	}, name)
}

// Spec is the planned trial as plain data, its paths relative to the run
// folder runDir.
func (p Planned) Spec(runDir string) (trial.Spec, error) {
	rel := func(path string) (string, error) {
		if path == "" {
			return "", nil
		}
		abs, err := filepath.Abs(path)
		if err != nil {
			return "", err
		}
		root, err := filepath.Abs(runDir)
		if err != nil {
			return "", err
		}
		r, err := filepath.Rel(root, abs)
		if err != nil {
			return "", fmt.Errorf("trial %s: %w", p.Dir(), err)
		}
		return filepath.ToSlash(r), nil
	}
	taskDir, err := rel(p.Task.Dir)
	if err != nil {
		return trial.Spec{}, err
	}
	page, err := rel(p.Page)
	if err != nil {
		return trial.Spec{}, err
	}
	return trial.Spec{Key: p.Key, Task: p.Task.ID, TaskDir: taskDir, TaskDigest: p.TaskDigest, Page: page, PageDigest: p.Digest,
		Model: p.Model, Repair: p.Repair, Candidate: p.Candidate, Variant: p.Variant, Sample: p.Sample,
		Dir: "trials/" + p.Dir(), WorldJudge: p.WorldJudge}, nil
}

// Plan builds the trials for tasks × sources × samples in a stable order.
func Plan(tasks []*task.Task, sources []Source, repeat int) ([]Planned, error) {
	var out []Planned
	for _, t := range tasks {
		var c *contract.Contract
		if t.WorldJudged() {
			// No contract: the world judge grades the pages against the
			// rubric, whose problems are named here, with their lines.
			if _, err := rubric.Load(t.RubricDir()); err != nil {
				return nil, fmt.Errorf("task %s: judge: %w", t.ID, err)
			}
		} else {
			var err error
			if c, err = contract.Load(t.ContractPath()); err != nil {
				return nil, fmt.Errorf("task %s: %w", t.ID, err)
			}
		}
		td, err := t.Digest()
		if err != nil {
			return nil, fmt.Errorf("task %s: %w", t.ID, err)
		}
		for _, src := range sources {
			pages, err := candidates(t, src)
			if err != nil {
				return nil, err
			}
			for _, pg := range pages {
				dg, err := fileDigest(pg.path)
				if err != nil {
					return nil, err
				}
				for r := 0; r < max(1, repeat); r++ {
					// Generated sample s (1, 2, …) judged r times: samples
					// stay distinct, and a folder of one page keeps its
					// samples 0 … repeat-1.
					k := max(0, pg.sample-1)*max(1, repeat) + r
					out = append(out, planOne(t, c, td, src, pg, dg, k))
				}
			}
		}
	}
	return out, nil
}

// planOne is the trial of page pg of source src for task t (contract c,
// digest td), pg's digest dg, as its k-th sample.
func planOne(t *task.Task, c *contract.Contract, td string, src Source, pg candidatePage, dg string, k int) Planned {
	p := Planned{Task: t, Contract: c, Model: src.Model, Repair: src.Repair, Candidate: pg.name, Page: pg.path, PagesDir: pg.dir, Digest: dg,
		TaskDigest: td, Sample: k, Params: t.DefaultParams(), Expect: pg.expect, Variant: t.VariantName()}
	p.Key = p.key()
	return p
}

// PlanSample is the trial Plan makes, with repeat 1, of generated sample
// k (1, 2, …) of task t from src, a model's folder of sample-<k> folders
// as 'worldprobe gen' writes it: same key, same folder. A generation job
// that has written its page enqueues this trial (package queue).
func PlanSample(t *task.Task, src Source, k int) (Planned, error) {
	c, err := contract.Load(t.ContractPath())
	if err != nil {
		return Planned{}, fmt.Errorf("task %s: %w", t.ID, err)
	}
	td, err := t.Digest()
	if err != nil {
		return Planned{}, fmt.Errorf("task %s: %w", t.ID, err)
	}
	pg := pageIn(filepath.Join(src.Dir, fmt.Sprintf("sample-%d", k)), t, k)
	dg, err := fileDigest(pg.path)
	if err != nil {
		return Planned{}, err
	}
	return planOne(t, c, td, src, pg, dg, k-1), nil
}

type candidatePage struct {
	name   string
	path   string
	expect *task.Fixture
	// sample is the generated sample the page is (its sample-<k> folder),
	// 0 for a folder of one page per task; dir is that folder of pages.
	sample int
	dir    string
}

// SampleDirs lists dir's sample-<k> folders (as 'worldprobe gen' writes a
// model's samples) in order of k, with their k; none when dir is a folder
// of pages.
func SampleDirs(dir string) ([]string, []int, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("candidates folder: %w", err)
	}
	type sd struct {
		path string
		k    int
	}
	var found []sd
	for _, e := range entries {
		var k int
		if _, err := fmt.Sscanf(e.Name(), "sample-%d", &k); err != nil || !e.IsDir() || k < 1 || e.Name() != fmt.Sprintf("sample-%d", k) {
			continue
		}
		found = append(found, sd{filepath.Join(dir, e.Name()), k})
	}
	sort.Slice(found, func(i, j int) bool { return found[i].k < found[j].k })
	var dirs []string
	var ks []int
	for _, f := range found {
		dirs, ks = append(dirs, f.path), append(ks, f.k)
	}
	return dirs, ks, nil
}

func candidates(t *task.Task, src Source) ([]candidatePage, error) {
	switch {
	case src.Oracle:
		return []candidatePage{{name: "solution", path: t.SolutionPath()}}, nil
	case src.Fixtures:
		fx, err := t.Fixtures()
		if err != nil {
			return nil, fmt.Errorf("task %s: %w", t.ID, err)
		}
		var out []candidatePage
		for i := range fx {
			out = append(out, candidatePage{name: fx[i].Name, path: fx[i].Page, expect: &fx[i]})
		}
		return out, nil
	}
	dirs, ks, err := SampleDirs(src.Dir)
	if err != nil {
		return nil, err
	}
	if len(dirs) == 0 {
		return []candidatePage{pageIn(src.Dir, t, 0)}, nil
	}
	var out []candidatePage
	for i, d := range dirs {
		out = append(out, pageIn(d, t, ks[i]))
	}
	return out, nil
}

// pageIn is t's page in a folder of pages; with no page there, the model
// produced nothing for the task: a trial that scores zero.
func pageIn(dir string, t *task.Task, sample int) candidatePage {
	for _, p := range []string{
		filepath.Join(dir, filepath.FromSlash(t.ID), "index.html"),
		filepath.Join(dir, filepath.FromSlash(t.ID)+".html"),
	} {
		if _, err := os.Stat(p); err == nil {
			return candidatePage{name: t.Slug(), path: p, sample: sample, dir: dir}
		}
	}
	return candidatePage{name: t.Slug(), sample: sample, dir: dir}
}

func fileDigest(path string) (string, error) {
	if path == "" {
		return "", nil
	}
	return trial.FileDigest(path)
}

// key identifies a trial by its semantic inputs only.
func key(parts ...any) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%v\x00", p)
	}
	return hex.EncodeToString(h.Sum(nil))[:20]
}

// Missing is a candidates folder (a Source with Dir) without a page for
// some of the planned tasks.
type Missing struct {
	Source Source
	// Tasks are the task ids it has no page for, in plan order; Of is how
	// many tasks it was planned for.
	Tasks []string
	Of    int
}

// Most reports whether the page is missing for at least half the tasks.
func (m Missing) Most() bool { return 2*len(m.Tasks) >= m.Of }

// Expected is where the page of task id was looked for.
func (m Missing) Expected(id string) (dir, file string) {
	base := m.Source.Dir
	if dirs, _, err := SampleDirs(base); err == nil && len(dirs) > 0 {
		base = filepath.Join(base, "sample-<k>")
	}
	return filepath.Join(base, filepath.FromSlash(id), "index.html"), filepath.Join(base, filepath.FromSlash(id)+".html")
}

// MissingPages lists, in the order of sources, the candidates folders
// the plan has no page from for some task (trials that will be
// no_candidate crashes).
func MissingPages(plan []Planned, sources []Source) []Missing {
	var out []Missing
	for _, src := range sources {
		if src.Dir == "" {
			continue
		}
		m := Missing{Source: src}
		seen, missing := map[string]bool{}, map[string]bool{}
		for _, p := range plan {
			if p.ID() != src.ID() {
				continue
			}
			if !seen[p.Task.ID] {
				seen[p.Task.ID] = true
				m.Of++
			}
			// A task counts as missing when any of its samples has no page.
			if p.Page == "" && !missing[p.Task.ID] {
				missing[p.Task.ID] = true
				m.Tasks = append(m.Tasks, p.Task.ID)
			}
		}
		if len(m.Tasks) > 0 {
			out = append(out, m)
		}
	}
	return out
}
