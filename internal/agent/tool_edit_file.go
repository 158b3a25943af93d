package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// editFile is edit_file: one exact piece of a file replaced.
type editFile struct{}

func (editFile) Name() string { return "edit_file" }

func (editFile) Description() string {
	return "Replace one piece of a file: old_text must occur in the file exactly once, character for character " +
		"(spaces, indentation and line ends included), and becomes new_text. To change several places, make several calls; " +
		"include enough of the surrounding lines in old_text that it occurs only once."
}

func (editFile) Schema() json.RawMessage {
	return schema(`"path":{"type":"string","description":"the file, relative to the folder, e.g. index.html"},`+
		`"old_text":{"type":"string","description":"the exact text to replace; it must occur exactly once"},`+
		`"new_text":{"type":"string","description":"the text to put in its place (empty to delete it)"}`, "path", "old_text", "new_text")
}

func (editFile) Run(_ context.Context, env *Env, args json.RawMessage) (string, error) {
	var a struct {
		Path    string  `json:"path"`
		OldText string  `json:"old_text"`
		NewText *string `json:"new_text"`
	}
	if err := decode(args, &a); err != nil {
		return "", err
	}
	if a.OldText == "" {
		return "", fmt.Errorf("old_text is empty: give the exact text to replace (write_file writes a whole file)")
	}
	if a.NewText == nil {
		return "", fmt.Errorf("no new_text given (an empty string deletes old_text)")
	}
	b, err := env.Workspace.ReadFile(a.Path)
	if err != nil {
		return "", err
	}
	name, _ := env.Workspace.clean(a.Path)
	text := string(b)
	switch n := strings.Count(text, a.OldText); n {
	case 0:
		hint := "read_file shows the exact text; check spaces, indentation and line ends"
		if trimmed := strings.TrimSpace(a.OldText); trimmed != a.OldText && trimmed != "" && strings.Contains(text, trimmed) {
			hint = "it does occur without its leading or trailing spaces and line ends; copy it exactly"
		}
		return "", fmt.Errorf("old_text does not occur in %s, so nothing was changed: %s", name, hint)
	case 1:
	default:
		return "", fmt.Errorf("old_text occurs %d times in %s (at lines %s), so nothing was changed: include more of the surrounding lines so that it occurs once",
			n, name, occurrences(text, a.OldText))
	}
	at := strings.Index(text, a.OldText)
	out := text[:at] + *a.NewText + text[at+len(a.OldText):]
	if err := env.Workspace.WriteFile(a.Path, []byte(out)); err != nil {
		return "", err
	}
	line := strings.Count(text[:at], "\n") + 1
	return fmt.Sprintf("edited %s at line %d: %s replaced by %s; the file now has %s\n",
		name, line, linesText(a.OldText), linesText(*a.NewText), linesText(out)), nil
}

// occurrences lists the lines where sub starts in text: "12, 40".
func occurrences(text, sub string) string {
	var lines []string
	for off := 0; ; {
		i := strings.Index(text[off:], sub)
		if i < 0 || len(lines) == 10 {
			break
		}
		lines = append(lines, fmt.Sprint(strings.Count(text[:off+i], "\n")+1))
		off += i + len(sub)
	}
	return strings.Join(lines, ", ")
}
