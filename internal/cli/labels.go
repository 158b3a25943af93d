package cli

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/worldprobe/worldprobe/internal/metrics"
	"github.com/worldprobe/worldprobe/internal/task"
)

// Candidate names of a task's own pages in a labels file: the reference
// as 'run --oracle' names it, each blind alternate by its folder below the
// task ("solutions/<style>"), each fixture by its name as 'run --fixtures'
// names it.
const (
	referenceCandidate = "solution"
	alternatePrefix    = task.AlternatesDir + "/"
)

// readLabels reads a labels file: CSV with a header naming the columns
// task, candidate and pass (in any order), or, for a .yaml or .yml file, a
// list of {task, candidate, pass}. pass is true or false (also pass/fail,
// yes/no, 1/0). Every problem names the file and line; a candidate
// labelled twice is one.
func readLabels(path string) ([]metrics.Label, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var labels []metrics.Label
	var lines []int
	switch strings.ToLower(filepath.Ext(path)) {
	case ".yaml", ".yml":
		labels, lines, err = parseYAMLLabels(path, data)
	default:
		labels, lines, err = parseCSVLabels(path, data)
	}
	if err != nil {
		return nil, err
	}
	if len(labels) == 0 {
		return nil, fmt.Errorf("%s: no labels", path)
	}
	seen := map[[2]string]int{}
	var errs []error
	for i, l := range labels {
		k := [2]string{l.Task, l.Candidate}
		if j, dup := seen[k]; dup {
			errs = append(errs, fmt.Errorf("%s:%d: %s %s is labelled twice (also line %d)", path, lines[i], l.Task, l.Candidate, lines[j]))
			continue
		}
		seen[k] = i
	}
	return labels, errors.Join(errs...)
}

func parseCSVLabels(path string, data []byte) ([]metrics.Label, []int, error) {
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	r.TrimLeadingSpace = true
	header, err := r.Read()
	if err == io.EOF {
		return nil, nil, fmt.Errorf("%s: empty file (want a header task,candidate,pass)", path)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	col := map[string]int{}
	for i, h := range header {
		col[strings.ToLower(strings.TrimSpace(h))] = i
	}
	for _, want := range []string{"task", "candidate", "pass"} {
		if _, ok := col[want]; !ok {
			return nil, nil, fmt.Errorf("%s:1: the header has no column %q (want task,candidate,pass)", path, want)
		}
	}
	var labels []metrics.Label
	var lines []int
	var errs []error
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		line, _ := r.FieldPos(0)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		field := func(name string) string {
			if i := col[name]; i < len(rec) {
				return strings.TrimSpace(rec[i])
			}
			return ""
		}
		l, err := label(field("task"), field("candidate"), field("pass"))
		if err != nil {
			errs = append(errs, fmt.Errorf("%s:%d: %w", path, line, err))
			continue
		}
		labels = append(labels, l)
		lines = append(lines, line)
	}
	return labels, lines, errors.Join(errs...)
}

func parseYAMLLabels(path string, data []byte) ([]metrics.Label, []int, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(root.Content) == 0 {
		return nil, nil, fmt.Errorf("%s: empty file (want a list of {task, candidate, pass})", path)
	}
	list := root.Content[0]
	if list.Kind != yaml.SequenceNode {
		return nil, nil, fmt.Errorf("%s:%d: want a list of {task, candidate, pass}", path, list.Line)
	}
	var labels []metrics.Label
	var lines []int
	var errs []error
	for _, n := range list.Content {
		var v struct {
			Task      string `yaml:"task"`
			Candidate string `yaml:"candidate"`
			Pass      string `yaml:"pass"`
		}
		if err := n.Decode(&v); err != nil {
			errs = append(errs, fmt.Errorf("%s:%d: want {task, candidate, pass}: %w", path, n.Line, err))
			continue
		}
		l, err := label(v.Task, v.Candidate, v.Pass)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s:%d: %w", path, n.Line, err))
			continue
		}
		labels = append(labels, l)
		lines = append(lines, n.Line)
	}
	return labels, lines, errors.Join(errs...)
}

// label checks one label's fields.
func label(taskID, candidate, pass string) (metrics.Label, error) {
	l := metrics.Label{Task: taskID, Candidate: candidate}
	switch {
	case taskID == "":
		return l, fmt.Errorf("missing task")
	case candidate == "":
		return l, fmt.Errorf("%s: missing candidate", taskID)
	}
	switch strings.ToLower(pass) {
	case "true", "pass", "yes", "1":
		l.Pass = true
	case "false", "fail", "no", "0":
	default:
		return l, fmt.Errorf("%s %s: pass is %q, want true or false", taskID, candidate, pass)
	}
	return l, nil
}

// suiteLabels labels a suite's own pages by construction: each task's
// reference and blind alternates pass, its fixtures fail. Sorted by task,
// then candidate.
func suiteLabels(tasks []*task.Task) ([]metrics.Label, error) {
	var out []metrics.Label
	for _, t := range tasks {
		out = append(out, metrics.Label{Task: t.ID, Candidate: referenceCandidate, Pass: true})
		alts, err := t.Alternates()
		if err != nil {
			return nil, fmt.Errorf("task %s: %w", t.ID, err)
		}
		for _, a := range alts {
			out = append(out, metrics.Label{Task: t.ID, Candidate: alternatePrefix + a.Style, Pass: true})
		}
		fx, err := t.Fixtures()
		if err != nil {
			return nil, fmt.Errorf("task %s: %w", t.ID, err)
		}
		for _, f := range fx {
			out = append(out, metrics.Label{Task: t.ID, Candidate: f.Name})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Task != out[j].Task {
			return out[i].Task < out[j].Task
		}
		return out[i].Candidate < out[j].Candidate
	})
	return out, nil
}

// labelsCSV writes labels as a labels file.
func labelsCSV(labels []metrics.Label) []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.Write([]string{"task", "candidate", "pass"})
	for _, l := range labels {
		_ = w.Write([]string{l.Task, l.Candidate, fmt.Sprint(l.Pass)})
	}
	w.Flush()
	return b.Bytes()
}
