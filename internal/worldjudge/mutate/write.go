package mutate

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"path/filepath"

	"github.com/worldprobe/worldprobe/internal/atomicfile"
)

//go:embed report.html.tmpl
var reportTmpl string

var tmpl = template.Must(template.New("mutate").Funcs(template.FuncMap{
	"rel": func(base, p string) string {
		if r, err := filepath.Rel(base, p); err == nil {
			return filepath.ToSlash(r)
		}
		return p
	},
	"ran": func(p *bool) string {
		switch {
		case p == nil:
			return "—"
		case *p:
			return "ran"
		}
		return "did not run"
	},
}).Parse(reportTmpl))

// Write writes out/mutate.json and out/report.html (the mutation
// section, linking each judgement's own report), each atomically.
func Write(out string, rep *Report) error {
	if err := atomicfile.WriteJSON(filepath.Join(out, "mutate.json"), rep); err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := tmpl.Execute(&buf, struct {
		*Report
		Out string
	}{rep, out}); err != nil {
		return fmt.Errorf("rendering report.html: %w", err)
	}
	return atomicfile.Write(filepath.Join(out, "report.html"), buf.Bytes())
}
