package report

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"sort"

	"github.com/worldprobe/worldprobe/internal/metrics"
	"github.com/worldprobe/worldprobe/internal/result"
)

//go:embed report.html.tmpl
var htmlTemplate string

var tmpl = template.Must(template.New("report").Funcs(template.FuncMap{
	"pct":   func(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) },
	"width": func(x float64) string { return fmt.Sprintf("%.1f", 100*x) },
	"drop":  func(core, robust float64) string { return fmt.Sprintf("%.1f pts", 100*(core-robust)) },
}).Parse(htmlTemplate))

// Page is what the HTML report shows.
type Page struct {
	Title     string
	Generated string
	// Sandbox says how the browser was confined (browser.Sandbox.String);
	// Unsandboxed puts a warning at the top when it was not.
	Sandbox     string
	Unsandboxed bool
	// Partial, when set, says why the report covers only part of the
	// planned trials (an interrupted run); it heads the page.
	Partial string
	// Rows are the first-shot and error-only rows; Feedback the rows of
	// pages repaired with contract feedback, ranked apart.
	Rows       []metrics.Row
	Feedback   []metrics.Row
	Categories []string
	Trials     []*result.Trial
}

// WriteHTML renders the report to path atomically. Screenshot paths in
// trials are made relative to the report's folder, so the run folder can
// be moved or archived as a whole and still opens offline.
func WriteHTML(path string, p Page) error {
	dir := filepath.Dir(path)
	others, feedback := metrics.FeedbackApart(p.Trials)
	p.Rows, p.Feedback = metrics.Leaderboard(others), metrics.Leaderboard(feedback)
	p.Categories = metrics.Categories(p.Trials)
	trials := make([]*result.Trial, len(p.Trials))
	for i, t := range p.Trials {
		c := *t
		if c.Screenshot != "" {
			if rel, err := filepath.Rel(dir, c.Screenshot); err == nil {
				c.Screenshot = filepath.ToSlash(rel)
			}
		}
		trials[i] = &c
	}
	sort.SliceStable(trials, func(i, j int) bool {
		if trials[i].Task != trials[j].Task {
			return trials[i].Task < trials[j].Task
		}
		return trials[i].Model < trials[j].Model
	})
	p.Trials = trials
	var buf bytes.Buffer
	if err := tmpl.Execute(&buf, p); err != nil {
		return fmt.Errorf("rendering the report: %w", err)
	}
	return writeAtomic(path, buf.Bytes())
}

// writeAtomic writes data to path through a temporary file and a rename,
// so that a reader never sees half a file.
func writeAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
