package repair

import (
	"fmt"
	"strings"

	"github.com/worldprobe/worldprobe/internal/result"
)

// Mode is what a repair round sends back to the model.
type Mode string

// Repair modes (--repair-mode).
const (
	// Errors sends the errors the page raised: JavaScript syntax errors,
	// uncaught exceptions, console errors, WebGL and load failures, a hang
	// or a crash of the page. Nothing of the contract, no render, no score.
	Errors Mode = "errors"
	// Feedback sends the messages of the contract checks the page failed
	// (the message: strings and their status, never an expression or a
	// line of the contract). Its pages are scored apart from every other.
	Feedback Mode = "feedback"
)

// Modes lists the repair modes, the default first.
func Modes() []Mode { return []Mode{Errors, Feedback} }

// ParseMode reads a --repair-mode value.
func ParseMode(s string) (Mode, error) {
	for _, m := range Modes() {
		if string(m) == s {
			return m, nil
		}
	}
	return "", fmt.Errorf("unknown repair mode %q (known: errors, feedback)", s)
}

// Label is how results name the pages repaired in mode m (Trial.Repair,
// gen.json's repair, the folder suffix): result.RepairErrorOnly or
// result.RepairFeedback.
func (m Mode) Label() string {
	if m == Feedback {
		return result.RepairFeedback
	}
	return result.RepairErrorOnly
}

// Finding is one thing a round sends back to the model: an error the page
// raised or a check it failed.
type Finding struct {
	// Kind names it for the model: "syntax error", "uncaught exception",
	// "console error", "WebGL failure", "load failure", "failed check", …
	Kind string `json:"kind"`
	// Text is its message.
	Text string `json:"text"`
	// Line and Column place it in the page, from 1 (0 when unknown).
	Line   int `json:"line,omitempty"`
	Column int `json:"column,omitempty"`
	// Where names the file it happened in when that is not the page (a
	// library's URL); Line and Column are then that file's.
	Where string `json:"where,omitempty"`
	// When says when it happened ("while the page loaded", "from frame
	// 12"); Count how many times (0 or 1: once).
	When  string `json:"when,omitempty"`
	Count int    `json:"count,omitempty"`
	// AtLeast is set when Count is a lower bound (the runtime stopped
	// recording a page that raised too much).
	AtLeast bool `json:"at_least,omitempty"`
}

// Findings are what one check of a page found.
type Findings struct {
	// Checked says how the page was checked, for the model: "It was
	// loaded in Chromium … and run for 300 frames …".
	Checked string `json:"checked"`
	// Items are the findings, in order; none: nothing to repair.
	Items []Finding `json:"items"`
}

// Clean reports whether the check found nothing.
func (f *Findings) Clean() bool { return f == nil || len(f.Items) == 0 }

// EditFormat is the part of every repair instruction that teaches the
// edit format: SEARCH/REPLACE blocks, read by [ParseEdits].
const EditFormat = `Answer with edits to the page as SEARCH/REPLACE blocks, one block per change:

<<<<<<< SEARCH
the lines of the page to change, copied exactly
=======
the lines that replace them
>>>>>>> REPLACE

- SEARCH must be copied from the page exactly, character for character, indentation included, and must occur in the page exactly once: add lines around the change until it is unique. Keep it short: the lines that change and a line or two around them.
- Several blocks are fine. Every SEARCH is looked up in the page as it was sent to you, and blocks must not overlap.
- To delete lines, leave REPLACE empty. To add lines, put the line before them in SEARCH and repeat it in REPLACE, followed by the new lines.
- Do not send the whole file again, and change nothing but what the fix needs. Write no explanation.`

// Instructions is the system text of every repair call of mode m.
func Instructions(m Mode) string {
	if m == Feedback {
		return `You fix a web page: one HTML file, with its JavaScript and CSS inline, that shows an interactive 3D scene made with Three.js. The page was tested against the checks of its task and failed some of them. You are given the message of every check it failed and the page as it is now: change the page so that it does what each message says.

` + EditFormat
	}
	return `You fix a web page: one HTML file, with its JavaScript and CSS inline, that shows an interactive 3D scene made with Three.js. The page raised errors when it was loaded and run in a browser. You are given those errors and the page as it is now: fix the cause of each error.

` + EditFormat
}

// RoundPrompt is the user turn of a repair round: what the check found
// (each finding with the page's line it points at) and the page as it is
// now. Nothing else: not the task, not the contract.
func RoundPrompt(m Mode, f *Findings, page string) string {
	var b strings.Builder
	b.WriteString(f.Checked)
	if m == Feedback {
		b.WriteString(" It failed these checks:\n\n")
	} else {
		b.WriteString(" It raised these errors:\n\n")
	}
	lines := strings.Split(strings.ReplaceAll(page, "\r\n", "\n"), "\n")
	for i, it := range f.Items {
		fmt.Fprintf(&b, "%d. %s\n", i+1, it.describe())
		if it.Where == "" && it.Line > 0 && it.Line <= len(lines) && strings.TrimSpace(lines[it.Line-1]) != "" {
			fmt.Fprintf(&b, "   line %d of the page: %s\n", it.Line, shorten(lines[it.Line-1], 200))
		}
	}
	if m == Feedback {
		b.WriteString("\nChange the page so that it passes them, with SEARCH/REPLACE edits. The page as it is now:\n\n")
	} else {
		b.WriteString("\nFix them with SEARCH/REPLACE edits. The page as it is now:\n\n")
	}
	fence := "```"
	for strings.Contains(page, fence) {
		fence += "`"
	}
	b.WriteString(fence + "html\n" + page)
	if !strings.HasSuffix(page, "\n") {
		b.WriteString("\n")
	}
	b.WriteString(fence + "\n")
	return b.String()
}

// describe is a finding on one line: "uncaught exception at line 8,
// column 64, while the page loaded: TypeError: …".
func (it Finding) describe() string {
	var where []string
	switch {
	case it.Where != "" && it.Line > 0:
		where = append(where, fmt.Sprintf("in %s at line %d, column %d", it.Where, it.Line, it.Column))
	case it.Where != "":
		where = append(where, "in "+it.Where)
	case it.Line > 0 && it.Column > 0:
		where = append(where, fmt.Sprintf("at line %d, column %d", it.Line, it.Column))
	case it.Line > 0:
		where = append(where, fmt.Sprintf("at line %d", it.Line))
	}
	if it.When != "" {
		where = append(where, it.When)
	}
	switch {
	case it.Count > 1 && it.AtLeast:
		where = append(where, fmt.Sprintf("at least %d times", it.Count))
	case it.Count > 1:
		where = append(where, fmt.Sprintf("%d times", it.Count))
	}
	head := it.Kind
	if len(where) > 0 {
		head += " " + strings.Join(where, ", ")
	}
	return head + ": " + oneLine(it.Text)
}

// oneLine joins the lines of s with " / ", cut to 600 characters.
func oneLine(s string) string {
	parts := strings.FieldsFunc(strings.TrimSpace(s), func(r rune) bool { return r == '\n' || r == '\r' })
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return shorten(strings.Join(parts, " / "), 600)
}

// RetryPrompt is the user turn that answers a reply not every edit of
// which could be used, within the same round: why each was refused, which
// were applied, and what to send again.
func RetryPrompt(applied []int, rejected []Rejection, malformed []Malformed, rewriteRefused string) string {
	var b strings.Builder
	if len(rejected)+len(malformed) == 0 {
		b.WriteString("Your answer has no SEARCH/REPLACE block")
		if rewriteRefused != "" {
			b.WriteString(" (" + rewriteRefused + ")")
		}
		b.WriteString(". Answer with SEARCH/REPLACE blocks, in the format described, that fix what is listed above.\n")
		return b.String()
	}
	b.WriteString("Some of your edits could not be applied:\n")
	for _, r := range rejected {
		b.WriteString("- " + r.String() + "\n")
	}
	for _, m := range malformed {
		b.WriteString("- " + m.String() + "\n")
	}
	switch len(applied) {
	case 0:
		b.WriteString("No edit was applied: the page is as it was sent to you.")
	case 1:
		fmt.Fprintf(&b, "Edit %d was applied.", applied[0])
	default:
		parts := make([]string, len(applied))
		for i, n := range applied {
			parts[i] = fmt.Sprint(n)
		}
		fmt.Fprintf(&b, "Edits %s and %s were applied.", strings.Join(parts[:len(parts)-1], ", "), parts[len(parts)-1])
	}
	b.WriteString(" Send again, as SEARCH/REPLACE blocks, only the changes that were not applied, written against the page as it is now")
	if len(applied) > 0 {
		b.WriteString(" (with the applied edits in it)")
	}
	b.WriteString(".\n")
	return b.String()
}
