package task

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// ParamsElementID is the id of the JSON block in a reference solution that
// holds the task's parameters:
//
//	<script type="application/json" id="task-params">{"gravity": 9.81}</script>
//
// The reference reads its values from there; `worldprobe suite perturb`
// rewrites only that block's JSON for a Robust variant.
const ParamsElementID = "task-params"

// placeholderRE matches {{params.NAME}} in a brief, with optional spaces.
var placeholderRE = regexp.MustCompile(`\{\{\s*params\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}`)

// paramsBlockRE finds the parameters block of a reference solution. It
// matches the element, not JavaScript, so a regular expression is enough.
var paramsBlockRE = regexp.MustCompile(`(?is)<script\b[^>]*\bid\s*=\s*["']?` + ParamsElementID + `["']?[^>]*>(.*?)</script\s*>`)

// FormatParam renders a parameter value as a brief shows it: the shortest
// decimal that reads back as the same number (9.81, 12, 0.35).
func FormatParam(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// Placeholders returns the parameter names a brief writes as
// {{params.NAME}}, in order of first use.
func Placeholders(brief string) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range placeholderRE.FindAllStringSubmatch(brief, -1) {
		if !seen[m[1]] {
			seen[m[1]] = true
			out = append(out, m[1])
		}
	}
	return out
}

// RenderBrief fills every {{params.NAME}} of brief with its value. A
// placeholder without a value is an error.
func RenderBrief(brief string, values map[string]float64) (string, error) {
	var missing []string
	out := placeholderRE.ReplaceAllStringFunc(brief, func(m string) string {
		name := placeholderRE.FindStringSubmatch(m)[1]
		v, ok := values[name]
		if !ok {
			missing = append(missing, name)
			return m
		}
		return FormatParam(v)
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("the brief names undeclared parameters: %s", strings.Join(missing, ", "))
	}
	return out, nil
}

// VariantName is "v<N>" for a Robust variant and "" for a Core task.
func (t *Task) VariantName() string {
	if t.VariantOf == "" {
		return ""
	}
	return fmt.Sprintf("v%d", t.Variant)
}

// ParamValues returns the task's parameter values (the defaults; for a
// Robust variant, its drawn values).
func (t *Task) ParamValues() map[string]float64 {
	out := make(map[string]float64, len(t.Params))
	for n, p := range t.Params {
		out[n] = p.Default
	}
	return out
}

// Brief returns the task's brief with its parameter values filled in.
func (t *Task) Brief() (string, error) {
	b, err := os.ReadFile(t.BriefPath())
	if err != nil {
		return "", fmt.Errorf("reading the brief of %s: %w", t.ID, err)
	}
	out, err := RenderBrief(string(b), t.ParamValues())
	if err != nil {
		return "", fmt.Errorf("%s: %w", t.BriefPath(), err)
	}
	return out, nil
}

// Prompt is everything the model is told about the task: the rendered
// brief, without its requirement ids, followed by the state interface and,
// for a task with a scaffold, the scaffold's source (PromptScaffold).
func (t *Task) Prompt() (string, error) {
	brief, err := t.Brief()
	if err != nil {
		return "", err
	}
	out := strings.TrimRight(StripRequirementIDs(brief), "\n") + "\n\n" + PromptInterface(t)
	scaffold, err := PromptScaffold(t)
	if err != nil {
		return "", err
	}
	if scaffold != "" {
		out += "\n" + scaffold
	}
	return out, nil
}

// ErrNoParamsBlock reports a page without a task-params block.
var ErrNoParamsBlock = errors.New(`no <script type="application/json" id="` + ParamsElementID + `"> block`)

// PageParams reads the parameters block of a page.
func PageParams(html []byte) (map[string]float64, error) {
	m := paramsBlockRE.FindSubmatch(html)
	if m == nil {
		return nil, ErrNoParamsBlock
	}
	var out map[string]float64
	if err := json.Unmarshal(bytes.TrimSpace(m[1]), &out); err != nil {
		return nil, fmt.Errorf("the %s block is not a JSON object of numbers: %w", ParamsElementID, err)
	}
	return out, nil
}

// SetPageParams returns html with its parameters block replaced by values
// (keys sorted, so the output is stable).
func SetPageParams(html []byte, values map[string]float64) ([]byte, error) {
	loc := paramsBlockRE.FindSubmatchIndex(html)
	if loc == nil {
		return nil, ErrNoParamsBlock
	}
	names := make([]string, 0, len(values))
	for n := range values {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteByte('{')
	for i, n := range names {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q: %s", n, FormatParam(values[n]))
	}
	b.WriteByte('}')
	out := make([]byte, 0, len(html)+b.Len())
	out = append(out, html[:loc[2]]...)
	out = append(out, b.String()...)
	out = append(out, html[loc[3]:]...)
	return out, nil
}

// lintParams checks that a task with parameters uses them consistently:
// the brief states each one as {{params.NAME}} (and names no other), and
// the reference solution reads them from its task-params block, which
// holds exactly the declared names with their defaults (their drawn
// values, for a variant).
func lintParams(t *Task, brief string) []Finding {
	var out []Finding
	if t.VariantOf != "" {
		// A variant's brief has its values filled in already.
		brief = ""
	}
	used := map[string]bool{}
	for _, n := range Placeholders(brief) {
		used[n] = true
		if _, ok := t.Params[n]; !ok {
			out = append(out, Finding{File: t.BriefPath(), Message: fmt.Sprintf("the brief writes {{params.%s}}, but task.yaml declares no parameter %s", n, n)})
		}
	}
	if len(t.Params) == 0 {
		return out
	}
	for _, n := range t.ParamNames() {
		if !used[n] && t.VariantOf == "" {
			out = append(out, Finding{File: t.BriefPath(), Message: fmt.Sprintf("the brief never states parameter %s: write its value as {{params.%s}}", n, n)})
		}
	}
	html, err := os.ReadFile(t.SolutionPath())
	if err != nil {
		return out // reported by Lint
	}
	got, err := PageParams(html)
	if err != nil {
		if errors.Is(err, ErrNoParamsBlock) {
			return append(out, Finding{File: t.SolutionPath(), Message: `the reference must read its parameters from a <script type="application/json" id="` + ParamsElementID + `"> block holding each one's default`})
		}
		return append(out, Finding{File: t.SolutionPath(), Message: err.Error()})
	}
	want := t.ParamValues()
	for _, n := range t.ParamNames() {
		v, ok := got[n]
		switch {
		case !ok:
			out = append(out, Finding{File: t.SolutionPath(), Message: fmt.Sprintf("the %s block lacks parameter %s", ParamsElementID, n)})
		case v != want[n]:
			out = append(out, Finding{File: t.SolutionPath(), Message: fmt.Sprintf("the %s block sets %s = %s, but task.yaml says %s", ParamsElementID, n, FormatParam(v), FormatParam(want[n]))})
		}
	}
	extra := make([]string, 0, len(got))
	for n := range got {
		extra = append(extra, n)
	}
	sort.Strings(extra)
	for _, n := range extra {
		if _, ok := t.Params[n]; !ok {
			out = append(out, Finding{File: t.SolutionPath(), Message: fmt.Sprintf("the %s block sets %s, which task.yaml does not declare", ParamsElementID, n)})
		}
	}
	return out
}
