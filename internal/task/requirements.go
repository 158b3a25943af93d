package task

import (
	"fmt"
	"os"
	"regexp"
	"strings"
)

// Requirement is one requirement of a brief: a top-level bullet of one of
// its sections (Scene, Behaviour, Controls, State, …), with the stable id
// written at the bullet's end as {#id}. Probes name the requirements they
// check in their covers: list; 'task check' refuses a requirement no probe
// covers. The ids are the brief's own bookkeeping: the prompt a model gets
// has them removed.
type Requirement struct {
	ID      string `json:"id"`
	Section string `json:"section"`
	// Text is the bullet, its lines joined, without the id.
	Text string `json:"text"`
	Line int    `json:"line"`
}

// requirementIDRE matches the id marker at the end of a bullet's last line.
var requirementIDRE = regexp.MustCompile(`\s*\{#([a-z0-9][a-z0-9-]*)\}\s*$`)

// anyIDRE finds id markers anywhere, for stripping them from prompts.
var anyIDRE = regexp.MustCompile(`[ \t]*\{#[a-z0-9][a-z0-9-]*\}`)

// ParseRequirements reads the requirements of a brief: every top-level
// bullet ("- " at the start of a line) under a "## " heading, its indented
// continuation lines included. Problems (a bullet without an id, an id used
// twice) are findings at their line in file.
func ParseRequirements(file, brief string) ([]Requirement, []Finding) {
	var reqs []Requirement
	var out []Finding
	section := ""
	var cur *Requirement
	var curLast string // the bullet's last line, where its id goes
	seen := map[string]int{}
	flush := func() {
		if cur == nil {
			return
		}
		m := requirementIDRE.FindStringSubmatch(curLast)
		if m == nil {
			out = append(out, Finding{File: file, Line: cur.Line,
				Message: fmt.Sprintf("requirement in section %q has no id: end the bullet with {#some-id} (%s)", section, abbreviate(cur.Text, 60))})
		} else {
			cur.ID = m[1]
			cur.Text = strings.TrimSpace(requirementIDRE.ReplaceAllString(cur.Text, ""))
			if line, dup := seen[cur.ID]; dup {
				out = append(out, Finding{File: file, Line: cur.Line, Message: fmt.Sprintf("requirement id %s is already used at line %d", cur.ID, line)})
			} else {
				seen[cur.ID] = cur.Line
				reqs = append(reqs, *cur)
			}
		}
		cur = nil
	}
	for i, line := range strings.Split(brief, "\n") {
		switch {
		case strings.HasPrefix(line, "## "):
			flush()
			section = strings.TrimSpace(strings.TrimPrefix(line, "## "))
		case strings.HasPrefix(line, "#"):
			flush()
			section = ""
		case strings.HasPrefix(line, "- ") && section != "":
			flush()
			cur = &Requirement{Section: section, Text: strings.TrimSpace(line[2:]), Line: i + 1}
			curLast = line
		case cur != nil && strings.TrimSpace(line) != "" && (strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t")):
			cur.Text += " " + strings.TrimSpace(line)
			curLast = line
		case strings.TrimSpace(line) == "":
			// A blank line may separate the bullet from nested text; the id
			// stays on the last line with text.
		default:
			flush()
		}
	}
	flush()
	return reqs, out
}

// StripRequirementIDs removes the {#id} markers of a brief.
func StripRequirementIDs(brief string) string {
	return anyIDRE.ReplaceAllString(brief, "")
}

// Requirements reads the task's requirements from brief.md.
func (t *Task) Requirements() ([]Requirement, []Finding, error) {
	b, err := os.ReadFile(t.BriefPath())
	if err != nil {
		return nil, nil, err
	}
	reqs, fs := ParseRequirements(t.BriefPath(), string(b))
	return reqs, fs, nil
}

func abbreviate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
