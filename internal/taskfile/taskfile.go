// Package taskfile is the one rule for a file a task names in its
// task.yaml or contract.yaml — an injectAudio step's wav:, a room: or a
// probe's rooms: entry: a plain relative path inside the task folder,
// written with /, with the file kind's extension.
package taskfile

import (
	"path"
	"strings"
)

// HasExt reports whether name ends in ext (".wav", ".json"), whatever
// its case: what tells a room file from a capture's name.
func HasExt(name, ext string) bool {
	return len(name) >= len(ext) && strings.EqualFold(name[len(name)-len(ext):], ext)
}

// Check says what is wrong with name as a file of the task folder with
// extension ext (matched whatever its case), "" when nothing is. name must
// use / between folders, be relative, and be clean — no ".", "..", empty
// or trailing elements (path.Clean leaves it as it is) — so that it names
// one file inside the task folder and is written one way.
func Check(name, ext string) string {
	switch {
	case strings.Contains(name, `\`):
		return "must use / between folders"
	case path.IsAbs(name):
		return "must be relative to the task folder"
	case path.Clean(name) != name || name == ".." || strings.HasPrefix(name, "../"):
		return "must be a plain path inside the task folder"
	case !HasExt(name, ext) || name == ext:
		return "must be a " + ext + " file"
	}
	return ""
}
