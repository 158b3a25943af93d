package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// readFile is read_file: a file, whole or a range of its lines.
type readFile struct{}

func (readFile) Name() string { return "read_file" }

func (readFile) Description() string {
	return "Read a text file of the folder, whole or lines start_line to end_line (counted from 1, both included). " +
		"The text comes back exactly as it is in the file, after a line that says which lines these are."
}

func (readFile) Schema() json.RawMessage {
	return schema(`"path":{"type":"string","description":"the file, relative to the folder, e.g. index.html"},`+
		`"start_line":{"type":"integer","minimum":1,"description":"first line to read (default 1)"},`+
		`"end_line":{"type":"integer","minimum":1,"description":"last line to read (default the last line)"}`, "path")
}

func (readFile) Run(_ context.Context, env *Env, args json.RawMessage) (string, error) {
	var a struct {
		Path      string `json:"path"`
		StartLine int    `json:"start_line"`
		EndLine   int    `json:"end_line"`
	}
	if err := decode(args, &a); err != nil {
		return "", err
	}
	b, err := env.Workspace.ReadFile(a.Path)
	if err != nil {
		return "", err
	}
	name, _ := env.Workspace.clean(a.Path)
	if !utf8.Valid(b) {
		return "", fmt.Errorf("%s is not UTF-8 text (%s)", name, bytesText(int64(len(b))))
	}
	if len(b) == 0 {
		return name + " is empty (0 bytes)\n", nil
	}
	lines := strings.SplitAfter(string(b), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	n := len(lines)
	first, last := max(a.StartLine, 1), a.EndLine
	if last == 0 || last > n {
		last = n
	}
	switch {
	case first > n:
		return "", fmt.Errorf("%s has %d lines: start_line %d is past its end", name, n, first)
	case first > last:
		return "", fmt.Errorf("start_line %d is after end_line %d", first, last)
	}
	// Whole lines only, as many as fit under the output cap.
	var body strings.Builder
	shown := first - 1
	for _, l := range lines[first-1 : last] {
		if body.Len()+len(l) > MaxOutput-300 && shown >= first {
			break
		}
		body.WriteString(l)
		shown++
	}
	head := fmt.Sprintf("%s, lines %d-%d of %d:\n", name, first, shown, n)
	if first == 1 && shown == n {
		head = fmt.Sprintf("%s, all %d lines:\n", name, n)
	}
	text := head + body.String()
	if !strings.HasSuffix(text, "\n") {
		text += "\n[no newline at the end of the file]\n"
	}
	if shown < last {
		text += fmt.Sprintf("[cut at line %d to keep the output short; read on with start_line %d]\n", shown, shown+1)
	}
	return text, nil
}
