package worldjudge

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"os"

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

func writeHTML(path string, rep *Report) error {
	var buf bytes.Buffer
	if err := tmpl.Execute(&buf, rep); err != nil {
		return fmt.Errorf("rendering report.html: %w", err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("writing report.html: %w", err)
	}
	return nil
}
