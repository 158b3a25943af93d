package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// listFiles is list_files: the files of the folder, with their sizes.
type listFiles struct{}

func (listFiles) Name() string { return "list_files" }

func (listFiles) Description() string {
	return "List the files of the folder (or of one of its subfolders), with their sizes in bytes."
}

func (listFiles) Schema() json.RawMessage {
	return schema(`"path":{"type":"string","description":"a subfolder to list; the whole folder when left out"}`)
}

// maxListed caps the entries list_files shows.
const maxListed = 200

func (listFiles) Run(_ context.Context, env *Env, args json.RawMessage) (string, error) {
	var a struct {
		Path string `json:"path"`
	}
	if err := decode(args, &a); err != nil {
		return "", err
	}
	if a.Path == "" {
		a.Path = "."
	}
	files, err := env.Workspace.Files(a.Path)
	if err != nil {
		return "", err
	}
	if len(files) == 0 {
		return "no files\n", nil
	}
	var b strings.Builder
	for i, f := range files {
		if i == maxListed {
			fmt.Fprintf(&b, "[%d more files not listed]\n", len(files)-maxListed)
			break
		}
		if f.Link {
			fmt.Fprintf(&b, "%s (symbolic link, not followed)\n", f.Path)
			continue
		}
		fmt.Fprintf(&b, "%s %s\n", f.Path, bytesText(f.Size))
	}
	return b.String(), nil
}

// bytesText writes a size: "0 bytes", "1 byte", "2113 bytes".
func bytesText(n int64) string {
	if n == 1 {
		return "1 byte"
	}
	return fmt.Sprintf("%d bytes", n)
}
