package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// writeFile is write_file: a file written whole.
type writeFile struct{}

func (writeFile) Name() string { return "write_file" }

func (writeFile) Description() string {
	return "Write a file of the folder whole, replacing what it held (its folders are created). The page is index.html."
}

func (writeFile) Schema() json.RawMessage {
	return schema(`"path":{"type":"string","description":"the file, relative to the folder, e.g. index.html"},`+
		`"content":{"type":"string","description":"the whole new content of the file"}`, "path", "content")
}

func (writeFile) Run(_ context.Context, env *Env, args json.RawMessage) (string, error) {
	var a struct {
		Path    string  `json:"path"`
		Content *string `json:"content"`
	}
	if err := decode(args, &a); err != nil {
		return "", err
	}
	if a.Content == nil {
		return "", fmt.Errorf("no content given: write_file takes the whole content of the file")
	}
	if err := env.Workspace.WriteFile(a.Path, []byte(*a.Content)); err != nil {
		return "", err
	}
	name, _ := env.Workspace.clean(a.Path)
	return fmt.Sprintf("wrote %s: %s, %s\n", name, bytesText(int64(len(*a.Content))), linesText(*a.Content)), nil
}

// linesText counts the lines of s: "0 lines", "1 line", "40 lines".
func linesText(s string) string {
	n := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		n++
	}
	if n == 1 {
		return "1 line"
	}
	return fmt.Sprintf("%d lines", n)
}
