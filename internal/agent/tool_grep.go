package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// grep is grep: the lines of the folder's files that match a regular
// expression.
type grep struct{}

func (grep) Name() string { return "grep" }

func (grep) Description() string {
	return "Search the folder's text files (or one file or subfolder) for lines matching a regular expression (RE2 syntax, as Go's regexp). " +
		"Each match comes back as path:line: text."
}

func (grep) Schema() json.RawMessage {
	return schema(`"pattern":{"type":"string","description":"the regular expression, e.g. __3D_STATE__ or function\\s+animate"},`+
		`"path":{"type":"string","description":"a file or subfolder to search; the whole folder when left out"},`+
		`"ignore_case":{"type":"boolean","description":"match letters in either case"}`, "pattern")
}

// Caps of grep's answer.
const (
	maxMatches   = 100
	maxMatchLine = 240
)

func (grep) Run(_ context.Context, env *Env, args json.RawMessage) (string, error) {
	var a struct {
		Pattern    string `json:"pattern"`
		Path       string `json:"path"`
		IgnoreCase bool   `json:"ignore_case"`
	}
	if err := decode(args, &a); err != nil {
		return "", err
	}
	if a.Pattern == "" {
		return "", fmt.Errorf("no pattern given")
	}
	expr := a.Pattern
	if a.IgnoreCase {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return "", fmt.Errorf("pattern %q is not a regular expression: %v", a.Pattern, err)
	}
	if a.Path == "" {
		a.Path = "."
	}
	files, err := env.Workspace.Files(a.Path)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	matches, skipped := 0, 0
	for _, f := range files {
		if f.Link {
			continue
		}
		data, err := env.Workspace.ReadFile(f.Path)
		if err != nil {
			return "", err
		}
		if !utf8.Valid(data) {
			skipped++
			continue
		}
		for i, line := range strings.Split(string(data), "\n") {
			if !re.MatchString(line) {
				continue
			}
			matches++
			if matches > maxMatches {
				continue
			}
			if len(line) > maxMatchLine {
				cut := maxMatchLine
				for !utf8.RuneStart(line[cut]) {
					cut--
				}
				line = line[:cut] + " […]"
			}
			fmt.Fprintf(&b, "%s:%d: %s\n", f.Path, i+1, line)
		}
	}
	switch {
	case matches == 0:
		b.WriteString("no match\n")
	case matches > maxMatches:
		fmt.Fprintf(&b, "[%d matches, the first %d shown; narrow the pattern or the path]\n", matches, maxMatches)
	}
	if skipped > 0 {
		fmt.Fprintf(&b, "[%d files that are not UTF-8 text were not searched]\n", skipped)
	}
	return b.String(), nil
}
