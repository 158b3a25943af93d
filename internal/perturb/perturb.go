// Package perturb writes Robust variants of tasks: copies of a task whose
// parameters are drawn from their declared ranges (WorldCoder-Robust).
//
// A variant of suites/starter/simulation/bouncing-ball is the folder
// <out>/simulation/bouncing-ball-v1 with:
//
//   - task.yaml: id simulation/bouncing-ball-v1, variant_of and variant set,
//     each parameter's default replaced by its drawn value (ranges kept);
//   - brief.md: the brief with every {{params.NAME}} filled in, so a model
//     sees plain numbers;
//   - contract.yaml: unchanged; it reads params.NAME, which for the variant
//     are the drawn values;
//   - solution/index.html: the reference with its task-params block set to
//     the drawn values;
//   - every other file of the task except candidates/ (fixtures are written
//     against the Core values) and solutions/ (alternate solutions, written
//     blind, hold the Core values and no task-params block).
//
// The draw is deterministic: the same task, variant number and seed give the
// same values on every machine.
package perturb

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/worldprobe/worldprobe/internal/task"
)

// MinShift is how far, as a fraction of its range, a drawn value must lie
// from the default: a variant that barely moves a parameter tests nothing.
const MinShift = 0.15

// Draw returns the parameter values of variant n (from 1) of t. Parameters
// without both bounds keep their defaults. Values are rounded to three
// significant digits (whole numbers for integer parameters), lie in
// [min, max], and differ from the default by at least MinShift of the range
// when the range allows it.
func Draw(t *task.Task, n int, seed uint64) map[string]float64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%d", t.ID, n)
	rng := rand.New(rand.NewPCG(seed, h.Sum64()))
	out := t.ParamValues()
	for _, name := range t.ParamNames() {
		p := t.Params[name]
		if p.Min == nil || p.Max == nil || *p.Min == *p.Max {
			continue
		}
		lo, hi := *p.Min, *p.Max
		best, bestShift := p.Default, -1.0
		for try := 0; try < 64; try++ {
			v := round(lo+rng.Float64()*(hi-lo), p.Integer)
			v = math.Min(hi, math.Max(lo, v))
			shift := math.Abs(v-p.Default) / (hi - lo)
			if shift > bestShift {
				best, bestShift = v, shift
			}
			if shift >= MinShift {
				break
			}
		}
		out[name] = best
	}
	return out
}

// round keeps three significant digits, or rounds to a whole number.
func round(v float64, integer bool) float64 {
	if integer {
		return math.Round(v)
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 3, 64), 64)
	return r
}

// Variant is one written variant.
type Variant struct {
	Task   *task.Task
	Of     string
	N      int
	Values map[string]float64
}

// Write writes variant n of t with values below suite out and loads it back.
func Write(t *task.Task, n int, values map[string]float64, out string) (*Variant, error) {
	id := fmt.Sprintf("%s-v%d", t.ID, n)
	dir := filepath.Join(out, filepath.FromSlash(id))
	if err := os.RemoveAll(dir); err != nil {
		return nil, fmt.Errorf("clearing %s: %w", dir, err)
	}
	if err := task.CopyTree(t.Dir, dir, task.CandidatesDir, task.AlternatesDir); err != nil {
		return nil, fmt.Errorf("copying %s: %w", t.ID, err)
	}
	yml, err := os.ReadFile(filepath.Join(t.Dir, task.TaskFile))
	if err != nil {
		return nil, err
	}
	if yml, err = variantYAML(yml, id, t.ID, n, values); err != nil {
		return nil, fmt.Errorf("%s: %w", t.ID, err)
	}
	if err := os.WriteFile(filepath.Join(dir, task.TaskFile), yml, 0o644); err != nil {
		return nil, err
	}
	raw, err := os.ReadFile(t.BriefPath())
	if err != nil {
		return nil, err
	}
	brief, err := task.RenderBrief(string(raw), values)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t.BriefPath(), err)
	}
	if err := os.WriteFile(filepath.Join(dir, task.BriefFile), []byte(brief), 0o644); err != nil {
		return nil, err
	}
	page, err := os.ReadFile(t.SolutionPath())
	if err != nil {
		return nil, err
	}
	if len(values) > 0 {
		if page, err = task.SetPageParams(page, values); err != nil {
			return nil, fmt.Errorf("%s: %w", t.SolutionPath(), err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, task.SolutionDir, task.PageFile), page, 0o644); err != nil {
		return nil, err
	}
	vt, err := task.Load(dir)
	if err != nil {
		return nil, fmt.Errorf("the variant does not load: %w", err)
	}
	return &Variant{Task: vt, Of: t.ID, N: n, Values: values}, nil
}

// variantYAML edits task.yaml on its node tree (comments and order kept):
// the id, variant_of, variant, and each parameter's default.
func variantYAML(src []byte, id, of string, n int, values map[string]float64) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, fmt.Errorf("task.yaml: %w", err)
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("task.yaml is not a mapping")
	}
	root := doc.Content[0]
	setScalar(root, "id", id, "!!str")
	setScalar(root, "variant_of", of, "!!str")
	setScalar(root, "variant", strconv.Itoa(n), "!!int")
	if params := get(root, "params"); params != nil {
		for name, v := range values {
			p := get(params, name)
			if p == nil || p.Kind != yaml.MappingNode {
				return nil, fmt.Errorf("task.yaml: params.%s is not a mapping", name)
			}
			setScalar(p, "default", task.FormatParam(v), "!!float")
		}
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, err
	}
	return []byte("# Robust variant written by `worldprobe suite perturb`; edit the Core task instead.\n" + strings.TrimPrefix(buf.String(), "---\n")), nil
}

func get(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

func setScalar(m *yaml.Node, key, value, tag string) {
	if v := get(m, key); v != nil {
		v.Kind, v.Value, v.Tag, v.Style = yaml.ScalarNode, value, tag, 0
		return
	}
	m.Content = append(m.Content,
		&yaml.Node{Kind: yaml.ScalarNode, Value: key, Tag: "!!str"},
		&yaml.Node{Kind: yaml.ScalarNode, Value: value, Tag: tag})
}
