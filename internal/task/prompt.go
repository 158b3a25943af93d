package task

import (
	"fmt"
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
