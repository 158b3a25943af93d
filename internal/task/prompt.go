package task

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/worldprobe/worldprobe/internal/contract"
)

// PromptInterface renders the state interface as the markdown block the
// prompt builder appends to the brief: how to expose the state, a table of
// path, type, unit, meaning (and allowed values when there are enums), and
// what each type used looks like in JSON.
func PromptInterface(t *Task) string {
	var b strings.Builder
	b.WriteString("## State interface\n\n")
	b.WriteString("Expose the page's state as `window.__3D_STATE__`: a plain object (getters are fine) that is read as JSON at any frame, so keep it current every frame. ")
	b.WriteString("A dotted path `a.b` means `window.__3D_STATE__.a.b`. It must contain:\n\n")
	enums := false
	for _, f := range t.State {
		enums = enums || f.Type == "enum"
	}
	if enums {
		b.WriteString("| Path | Type | Unit | Meaning | Values |\n|---|---|---|---|---|\n")
	} else {
		b.WriteString("| Path | Type | Unit | Meaning |\n|---|---|---|---|\n")
	}
	var used []string
	for _, f := range t.State {
		if !contains(used, f.Type) {
			used = append(used, f.Type)
		}
		typ := f.Type
		if f.Nullable {
			typ += " or `null`"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |", f.Path, typ, cell(f.Unit), cell(f.Description))
		if enums {
			vals := make([]string, len(f.Values))
			for i, v := range f.Values {
				vals[i] = "`" + strings.ReplaceAll(fmt.Sprintf("%q", v), "`", "'") + "`"
			}
			fmt.Fprintf(&b, " %s |", strings.Join(vals, ", "))
		}
		b.WriteByte('\n')
	}
	b.WriteString("\nTypes:")
	for _, typ := range contract.Types() {
		if contains(used, typ) {
			fmt.Fprintf(&b, " `%s` is %s;", typ, contract.TypeDescription(typ))
		}
	}
	s := strings.TrimSuffix(b.String(), ";")
	return s + ". Numbers must be finite.\n"
}

// cell escapes text for a markdown table cell.
func cell(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.ReplaceAll(s, "|", `\|`)
}

// ScaffoldFiles lists the scaffold's files: the scaffold page first, then
// every other regular file of its folder and below, in path order, as
// paths relative to that folder (slash separated). Names starting with "."
// are left out. A task without a scaffold has none.
func (t *Task) ScaffoldFiles() ([]string, error) {
	if t.Scaffold == "" {
		return nil, nil
	}
	page := t.ScaffoldPath()
	if _, err := os.Stat(page); err != nil {
		return nil, fmt.Errorf("task %s: scaffold: %w", t.ID, err)
	}
	dir := filepath.Dir(page)
	out := []string{filepath.Base(page)}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.HasPrefix(d.Name(), ".") && p != dir {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || p == page {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("task %s: listing the scaffold's folder: %w", t.ID, err)
	}
	return out, nil
}

// PromptScaffold renders the scaffold as the markdown block the prompt
// builder appends after the state interface: what the answer is (the whole
// changed page) and the source of every scaffold file, each in a fenced
// block. It is "" for a task without a scaffold.
func PromptScaffold(t *Task) (string, error) {
	files, err := t.ScaffoldFiles()
	if err != nil || len(files) == 0 {
		return "", err
	}
	var b strings.Builder
	b.WriteString("## Scaffold\n\n")
	b.WriteString("You do not start from nothing: the app below exists, and the brief above describes it as it must be after your change. ")
	b.WriteString("Change it so that it does everything the brief asks, and keep what it already does right working. ")
	b.WriteString("Your answer is the whole changed page, " + "`" + files[0] + "`" + ": one complete HTML file, not a diff or only the changed parts.")
	if len(files) > 1 {
		b.WriteString(" The other files are shown for reference and are not served beside your page: put what it needs from them inside it.")
	}
	b.WriteString("\n")
	dir := filepath.Dir(t.ScaffoldPath())
	for _, f := range files {
		src, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f)))
		if err != nil {
			return "", fmt.Errorf("task %s: reading the scaffold: %w", t.ID, err)
		}
		fence := "```"
		for strings.Contains(string(src), fence) {
			fence += "`"
		}
		lang := strings.TrimPrefix(filepath.Ext(f), ".")
		if lang == "js" || lang == "mjs" {
			lang = "javascript"
		}
		text := strings.TrimRight(string(src), "\n")
		fmt.Fprintf(&b, "\n### %s\n\n%s%s\n%s\n%s\n", f, fence, lang, text, fence)
	}
	return b.String(), nil
}
