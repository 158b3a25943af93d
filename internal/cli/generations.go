package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/worldprobe/worldprobe/internal/metrics"
	"github.com/worldprobe/worldprobe/internal/result"
	"github.com/worldprobe/worldprobe/internal/run"
	"github.com/worldprobe/worldprobe/internal/task"
)

// genRecordFile is the record 'worldprobe gen' writes beside each page it
// makes, DIR/<task-id>/gen.json. run reads two numbers from it, so that
// the leaderboard's RoA and TEM depend on nothing else of the generator.
const genRecordFile = "gen.json"

// genRecord is what run reads of a gen.json: what the model calls that
// made the page cost and how long they took. A field the file lacks stays
// nil: not recorded, never zero.
type genRecord struct {
	CostUSD   *float64 `json:"cost_usd"`
	LatencyMS *float64 `json:"latency_ms"`
	// Repair is set when the page is a repaired one (error-only,
	// feedback); its cost and time include the first shot's.
	Repair string `json:"repair"`
}

// generations reads the gen.json of every planned trial of a --candidates
// source that has one (a missing page's too: a failed generation cost
// money and scores 0), one record per trial. A gen.json that cannot be
// read is left out with a warning.
func generations(plan []run.Planned, sources []run.Source) (gens []metrics.Generation, warnings []string) {
	fromDir := map[string]bool{}
	for _, s := range sources {
		if s.Dir != "" {
			fromDir[s.ID()] = true
		}
	}
	read := map[string]*genRecord{} // by path; nil when there is none or it is unreadable
	for _, p := range plan {
		if !fromDir[p.ID()] || p.PagesDir == "" {
			continue
		}
		// Beside the page: in the --candidates folder, or in the sample-<k>
		// folder of a gen model folder.
		path := filepath.Join(p.PagesDir, filepath.FromSlash(p.Task.ID), genRecordFile)
		r, done := read[path]
		if !done {
			var err error
			if r, err = readGenRecord(path); err != nil {
				warnings = append(warnings, fmt.Sprintf("%s: %v (its cost and time are left out of RoA and TEM)", path, err))
			}
			read[path] = r
		}
		if r == nil {
			continue
		}
		g := metrics.Generation{Model: p.Model, Task: p.Task.ID, Sample: p.Sample, Repair: p.Repair, CostUSD: r.CostUSD}
		if r.LatencyMS != nil {
			s := *r.LatencyMS / 1000
			g.ModelSeconds = &s
		}
		gens = append(gens, g)
	}
	return gens, warnings
}

// repairOf is how the pages of a --candidates folder (or of each
// sample-<k> folder of a gen model folder) were made, from the gen.json
// records of tasks in it: "" (first-shot, also for a folder
// without records), or the repair they all name. A folder whose records
// name different repairs, or one worldprobe does not know, is refused.
func repairOf(dir string, tasks []*task.Task) (string, error) {
	seen := map[string]string{} // repair → a task whose record names it
	var order []string
	pagesDirs, _, err := run.SampleDirs(dir) // a gen model folder: its sample-<k> folders
	if err != nil {
		return "", err
	}
	if len(pagesDirs) == 0 {
		pagesDirs = []string{dir}
	}
	var paths []string
	for _, d := range pagesDirs {
		for _, t := range tasks {
			paths = append(paths, filepath.Join(d, filepath.FromSlash(t.ID), genRecordFile))
		}
	}
	for _, path := range paths {
		id, _ := filepath.Rel(dir, filepath.Dir(path))
		id = filepath.ToSlash(id)
		r, err := readGenRecord(path)
		if err != nil || r == nil {
			continue // an unreadable record is warned about with the costs
		}
		if r.Repair != "" && !slices.Contains(result.Repairs(), r.Repair) {
			return "", fmt.Errorf("%s: repair %q is none of %s", path, r.Repair, strings.Join(result.Repairs(), ", "))
		}
		if _, ok := seen[r.Repair]; !ok {
			seen[r.Repair] = id
			order = append(order, r.Repair)
		}
	}
	if len(order) > 1 {
		var parts []string
		for _, r := range order {
			name := r
			if r == "" {
				name = "first-shot"
			}
			parts = append(parts, fmt.Sprintf("%s (%s)", name, seen[r]))
		}
		return "", fmt.Errorf("its gen.json records mix pages made in different ways: %s; give each its own folder", strings.Join(parts, ", "))
	}
	if len(order) == 1 {
		return order[0], nil
	}
	return "", nil
}

// readGenRecord reads a gen.json; nil, nil when there is none.
func readGenRecord(path string) (*genRecord, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	r := &genRecord{}
	if err := json.Unmarshal(b, r); err != nil {
		return nil, err
	}
	return r, nil
}

// humanHours is H_human of every planned task: its human_hours, or its
// difficulty's default.
func humanHours(plan []run.Planned) map[string]float64 {
	out := map[string]float64{}
	for _, p := range plan {
		if h := p.Task.EstimatedHumanHours(); h > 0 {
			out[p.Task.ID] = h
		}
	}
	return out
}
