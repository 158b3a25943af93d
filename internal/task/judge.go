package task

import (
	"path"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
)

// RubricFile is the file a rubric folder holds (internal/worldjudge/rubric).
const RubricFile = "rubric.yaml"

// JudgeSpec is task.yaml's judge: a task whose pages are open-ended
// worlds judged by the world judge (docs/judge.md) against a rubric,
// instead of a contract over a state interface.
type JudgeSpec struct {
	// Rubric is the rubric folder (its rubric.yaml), relative to the task
	// folder, e.g. ../rubric.
	Rubric string `yaml:"rubric" json:"rubric"`
	// Horizon is how much page time the capture's day-cycle pass samples,
	// in seconds, and Samples how many drawn frames it takes (0: the
	// judge's defaults, 120 s and 12): a world whose prompt asks for a
	// short day needs no two minutes.
	Horizon float64 `yaml:"horizon,omitempty" json:"horizon,omitempty"`
	Samples int     `yaml:"samples,omitempty" json:"samples,omitempty"`
}

// WorldJudged reports whether the task's pages go to the world judge.
func (t *Task) WorldJudged() bool { return t.Judge != nil }

// RubricDir is the task's rubric folder ("" without judge:).
func (t *Task) RubricDir() string {
	if t.Judge == nil {
		return ""
	}
	return filepath.Join(t.Dir, filepath.FromSlash(t.Judge.Rubric))
}

// judge checks task.yaml's judge (the decoder has made sure it is a
// mapping of known fields): a relative rubric folder, and no state interface, contract-only fields or headset beside
// it.
func (v *validator) judge(t *Task) {
	r := ""
	if t.Judge != nil {
		r = t.Judge.Rubric
	}
	clean := path.Clean(filepath.ToSlash(r))
	switch {
	case strings.TrimSpace(r) == "":
		v.errorf(at("judge"), "judge: missing rubric (the rubric folder, relative to the task folder, e.g. ../rubric)")
	case path.IsAbs(clean) || filepath.IsAbs(r):
		v.errorf(at("judge", "rubric"), "judge: rubric %q: want a path relative to the task folder, e.g. ../rubric", r)
	}
	if v.has("judge") && lookup(v.root, "judge", "horizon") != nil && (t.Judge.Horizon <= 0 || t.Judge.Horizon > 3600) {
		v.errorf(at("judge", "horizon"), "judge: horizon must be in (0, 3600] seconds of page time")
	}
	if lookup(v.root, "judge", "samples") != nil && (t.Judge.Samples < 2 || t.Judge.Samples > 100) {
		v.errorf(at("judge", "samples"), "judge: samples must be 2 to 100")
	}
	for _, k := range []string{"state", "params", "controls", "scaffold", "xr"} {
		if v.has(k) {
			v.errorf(at(k), "%s: a task judged by the world judge (judge:) has no %s", k, k)
		}
	}
}

// nodeLineOf is the line of the node at keys in a YAML document.
func nodeLineOf(data []byte, keys ...any) int {
	var root yaml.Node
	if yaml.Unmarshal(data, &root) != nil || len(root.Content) == 0 {
		return 0
	}
	return nodeLine(root.Content[0], keys...)
}
