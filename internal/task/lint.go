package task

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/worldprobe/worldprobe/internal/audio"
	"github.com/worldprobe/worldprobe/internal/contract"
)

// Finding is one problem `worldprobe task check` reports.
type Finding struct {
	File string `json:"file"`
	// Line is 0 when the finding is about the file as a whole.
	Line    int    `json:"line,omitempty"`
	Message string `json:"message"`
}

// String renders "file:line: message".
func (f Finding) String() string {
	return (&contract.PosError{File: f.File, Line: f.Line, Msg: f.Message}).Error()
}

// Lint checks a loaded task beyond what Load validates:
//
//   - brief.md exists and names every declared state path literally;
//   - solution/index.html exists;
//   - contract.yaml parses and compiles, and no probe steps more frames
//     than the task's budget;
//   - every state path an assertion reads (after s., a snapshot, inside a
//     trace) is declared, or is a prefix or an extension of a declared path
//     (ball.position[1] reads ball.position; ball reads ball.position);
//   - every params.x an assertion reads is a declared parameter;
//   - every fixture's expect.yaml is valid, its page exists and the probes
//     it lists exist in the contract (or are the automatic interface probe).
//
// A world-judged task (judge:) has no contract: its brief, reference and
// fixtures are linted, and its rubric is the task checker's to load.
func Lint(t *Task) []Finding {
	var out []Finding
	add := func(err error) { out = append(out, findings(err)...) }

	brief, err := os.ReadFile(t.BriefPath())
	if err != nil {
		out = append(out, Finding{File: t.BriefPath(), Message: "missing brief: " + errText(err)})
	} else {
		for _, f := range t.State {
			if !mentions(string(brief), f.Path) {
				out = append(out, Finding{File: t.BriefPath(),
					Message: fmt.Sprintf("the brief never names state path %s; name every declared path so the model knows what it means", f.Path)})
			}
		}
		out = append(out, lintParams(t, string(brief))...)
	}
	if _, err := os.Stat(t.SolutionPath()); err != nil {
		out = append(out, Finding{File: t.SolutionPath(), Message: "missing reference solution: " + errText(err)})
	}
	if t.Scaffold != "" {
		if _, err := os.Stat(t.ScaffoldPath()); err != nil {
			out = append(out, Finding{File: filepath.Join(t.Dir, TaskFile), Line: lineOfFile(filepath.Join(t.Dir, TaskFile), "scaffold"),
				Message: fmt.Sprintf("scaffold %s: missing page: %s", t.Scaffold, errText(err))})
		}
	}

	if t.WorldJudged() {
		// No contract: the world judge grades the pages against the
		// rubric (task check loads it and names its problems).
		if _, err := t.Fixtures(); err != nil {
			add(err)
		}
		return out
	}
	c, err := contract.Load(t.ContractPath())
	if err != nil {
		add(err)
	} else {
		for _, err := range c.CheckBudget(t.FPS, t.Frames) {
			add(err)
		}
		out = append(out, lintReads(t, c)...)
		out = append(out, lintKinds(t, c)...)
		out = append(out, lintSounds(t, c)...)
		if brief != nil {
			out = append(out, lintCoverage(t, c, string(brief))...)
		}
	}

	fixtures, err := t.Fixtures()
	if err != nil {
		add(err)
	}
	if c != nil {
		for _, f := range fixtures {
			for _, p := range f.Expect.Fails {
				if c.Probe(p) == nil && p != contract.InterfaceProbe {
					msg := fmt.Sprintf("fails names probe %s, which the contract does not have", p)
					if runs := mirrorRuns(c, p); len(runs) > 0 {
						msg += fmt.Sprintf(" (it has hands: mirror: name its runs, %s)", strings.Join(runs, ", "))
					}
					out = append(out, Finding{File: filepath.Join(f.Dir, ExpectFile), Message: msg})
				}
			}
		}
	}
	return out
}

// lintCoverage checks that every requirement of the brief has an id and is
// covered by a probe, that every probe says what it covers, and that covers
// name only requirements the brief has.
func lintCoverage(t *Task, c *contract.Contract, brief string) []Finding {
	reqs, out := ParseRequirements(t.BriefPath(), brief)
	if len(reqs) == 0 && len(out) == 0 {
		return []Finding{{File: t.BriefPath(), Message: "the brief has no requirements: write them as top-level bullets under ## sections, each ending with {#id}"}}
	}
	ids := map[string]bool{}
	for _, r := range reqs {
		ids[r.ID] = true
	}
	coveredBy := map[string][]string{}
	for _, p := range c.Probes {
		if len(p.Covers) == 0 {
			out = append(out, Finding{File: c.File, Line: p.Line,
				Message: fmt.Sprintf("probe %s says nothing about what it covers: list the requirement ids of the brief it checks (covers: [id, …])", p.Name)})
		}
		for _, id := range p.Covers {
			if !ids[id] {
				out = append(out, Finding{File: c.File, Line: p.Line,
					Message: fmt.Sprintf("probe %s covers %s, which the brief has no requirement for", p.Name, id)})
			}
			coveredBy[id] = append(coveredBy[id], p.Name)
		}
	}
	for _, r := range reqs {
		if len(coveredBy[r.ID]) == 0 {
			out = append(out, Finding{File: t.BriefPath(), Line: r.Line,
				Message: fmt.Sprintf("requirement %s (%s) is covered by no probe: add a probe that can break it, and name %s in its covers (%s)",
					r.ID, r.Section, r.ID, abbreviate(r.Text, 60))})
		}
	}
	return out
}

// Coverage maps each requirement id of the brief to the probes that cover
// it, in contract order.
func Coverage(reqs []Requirement, c *contract.Contract) map[string][]string {
	out := make(map[string][]string, len(reqs))
	for _, r := range reqs {
		out[r.ID] = nil
	}
	for _, p := range c.Probes {
		for _, id := range p.Covers {
			if _, ok := out[id]; ok {
				out[id] = append(out[id], p.Name)
			}
		}
	}
	return out
}

// lintReads checks the paths the contract reads against the declared state and params.
func lintReads(t *Task, c *contract.Contract) []Finding {
	declared := make([][]string, len(t.State))
	for i, f := range t.State {
		declared[i] = strings.Split(f.Path, ".")
	}
	var out []Finding
	seen := map[string]bool{}
	for _, r := range c.Reads() {
		key := fmt.Sprint(r.Line, r.Var, r.Path)
		if seen[key] {
			continue
		}
		seen[key] = true
		if r.IsParam() {
			if _, ok := t.Params[r.Segments[0]]; !ok {
				out = append(out, Finding{File: c.File, Line: r.Line,
					Message: fmt.Sprintf("probe %s reads params.%s, which task.yaml does not declare", r.Probe, r.Segments[0])})
			}
			continue
		}
		if !covered(r.Segments, declared) {
			out = append(out, Finding{File: c.File, Line: r.Line,
				Message: fmt.Sprintf("probe %s reads %s.%s, which is not in the declared state interface", r.Probe, r.Var, r.Path)})
		}
	}
	return out
}

// covered reports whether read is a declared path, or a prefix or an
// extension of one. Index segments ("[1]") never match a declared name.
func covered(read []string, declared [][]string) bool {
	for _, d := range declared {
		n := min(len(d), len(read))
		match := true
		for i := range n {
			if d[i] != read[i] {
				match = false
				break
			}
		}
		if match {
			return true
		}
	}
	return false
}

// mentions reports whether text names path as a whole word: the path is
// not part of a longer name on either side.
func mentions(text, path string) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], path)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(path)
		if (start == 0 || !wordByte(text[start-1])) && (end == len(text) || !wordByte(text[end])) {
			return true
		}
		i = start + 1
	}
}

func wordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// findings splits a (joined) error into findings, keeping positions.
func findings(err error) []Finding {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []Finding
		for _, e := range j.Unwrap() {
			out = append(out, findings(e)...)
		}
		return out
	}
	var pe *contract.PosError
	if errors.As(err, &pe) {
		return []Finding{{File: pe.File, Line: pe.Line, Message: pe.Msg}}
	}
	return []Finding{{Message: err.Error()}}
}

func errText(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// mirrorRuns names the runs of the contract's probe base declared with
// hands: mirror, none when it has no such probe.
func mirrorRuns(c *contract.Contract, base string) []string {
	var out []string
	for _, p := range c.Probes {
		if p.Base == base {
			out = append(out, strconv.Quote(p.Name))
		}
	}
	return out
}

// lintKinds checks the probes' kind labels: only a task with a scaffold
// may label probes fail_to_pass or pass_to_pass, and such a task needs at
// least one fail_to_pass probe (the change it asks for).
func lintKinds(t *Task, c *contract.Contract) []Finding {
	var out []Finding
	f2p := 0
	seen := map[int]bool{}
	for _, p := range c.Probes {
		if p.Kind == contract.KindFailToPass {
			f2p++
		}
		if p.Kind != "" && t.Scaffold == "" && !seen[p.Line] {
			seen[p.Line] = true
			out = append(out, Finding{File: c.File, Line: p.Line,
				Message: fmt.Sprintf("probe %s is labelled %s, but the task has no scaffold: set scaffold: in task.yaml, or drop the kind", probeName(p), p.Kind)})
		}
	}
	if t.Scaffold != "" && f2p == 0 {
		out = append(out, Finding{File: c.File,
			Message: "the task has a scaffold but no probe labelled kind: fail_to_pass: label the probes of the change the task asks for"})
	}
	return out
}

// lintSounds reads every wav: file an injectAudio step plays: a missing
// or malformed one is the task's mistake, found before any page runs
// (each file once, at its first step).
func lintSounds(t *Task, c *contract.Contract) []Finding {
	var out []Finding
	seen := map[string]bool{}
	for _, p := range c.Probes {
		for _, s := range append(append([]contract.Step(nil), p.Setup...), p.Steps...) {
			a, ok := s.Action.(*contract.InjectAudioStep)
			if !ok || a.Sound.WAV == "" || seen[a.Sound.WAV] {
				continue
			}
			seen[a.Sound.WAV] = true
			_, err := audio.ReadWAV(t.Dir, a.Sound.WAV)
			var unread *os.PathError
			if errors.As(err, &unread) {
				err = fmt.Errorf("%s: %s", a.Sound.WAV, errText(err))
			}
			if err != nil {
				out = append(out, Finding{File: c.File, Line: s.Line, Message: "injectAudio: " + err.Error()})
			}
		}
	}
	return out
}

// probeName is a probe's name as written in contract.yaml.
func probeName(p *contract.Probe) string {
	if p.Base != "" {
		return p.Base
	}
	return p.Name
}

// lineOfFile is the line of a top-level key of a YAML file, 0 when it
// cannot be read.
func lineOfFile(file, key string) int {
	data, err := os.ReadFile(file)
	if err != nil {
		return 0
	}
	return lineOf(data, key)
}
