package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/worldprobe/worldprobe/internal/metrics"
	"github.com/worldprobe/worldprobe/internal/run"
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
}

// generations reads the gen.json of every planned trial of a --candidates
// source that has one (a missing page's too: a failed generation cost
// money and scores 0), one record per trial. A gen.json that cannot be
// read is left out with a warning.
func generations(plan []run.Planned, sources []run.Source) (gens []metrics.Generation, warnings []string) {
	fromDir := map[string]bool{}
	for _, s := range sources {
		if s.Dir != "" {
			fromDir[s.Model] = true
		}
	}
	read := map[string]*genRecord{} // by path; nil when there is none or it is unreadable
	for _, p := range plan {
		if !fromDir[p.Model] || p.PagesDir == "" {
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
		g := metrics.Generation{Model: p.Model, Task: p.Task.ID, Sample: p.Sample, CostUSD: r.CostUSD}
		if r.LatencyMS != nil {
			s := *r.LatencyMS / 1000
			g.ModelSeconds = &s
		}
		gens = append(gens, g)
	}
	return gens, warnings
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
