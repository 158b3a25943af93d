package worldjudge

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"

	"github.com/worldprobe/worldprobe/internal/atomicfile"
	"github.com/worldprobe/worldprobe/internal/result"
)

//go:embed report.html.tmpl
var reportTmpl string

var tmpl = template.Must(template.New("report").Funcs(template.FuncMap{
	"keys":     sortedKeys,
	"unjudged": func(s string) bool { return s == result.StatusUnjudged },
	"pct":      func(v float64) string { return fmt.Sprintf("%.3f%%", v*100) },
	"secs":     func(ms float64) string { return fmt.Sprintf("%.2f s", ms/1000) },
	"msecs":    func(ms int64) string { return fmt.Sprintf("%.1f s", float64(ms)/1000) },
	"deref": func(p *float64) string {
		if p == nil {
			return "open"
		}
		return fmt.Sprintf("%g", *p)
	},
	"yes": func(p *bool) string {
		switch {
		case p == nil:
			return "—"
		case *p:
			return "yes"
		}
		return "no"
	},
}).Parse(reportTmpl))

// writeHTML renders report.html. Page text in it (errors, refused URLs,
// function names) is escaped by html/template, and its
// Content-Security-Policy, as internal/report's, lets nothing that escaped
// escaping run or fetch: no script, images from the report's folder only.
func writeHTML(path string, rep *Report) error {
	var buf bytes.Buffer
	if err := tmpl.Execute(&buf, rep); err != nil {
		return fmt.Errorf("rendering report.html: %w", err)
	}
	return atomicfile.Write(path, buf.Bytes())
}
