package report

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"net/url"
	"path/filepath"
	"sort"

	"github.com/worldprobe/worldprobe/internal/atomicfile"
	"github.com/worldprobe/worldprobe/internal/metrics"
	"github.com/worldprobe/worldprobe/internal/plot"
	"github.com/worldprobe/worldprobe/internal/result"
)

var (
	//go:embed report.html.tmpl
	reportTemplate string
	//go:embed trial.html.tmpl
	trialTemplate string
	//go:embed report.css
	css string
	//go:embed filter.js
	filterJS string
)

var tmpl = template.Must(template.Must(template.New("report").Funcs(template.FuncMap{
	"pct": pct,
	"inc": func(i int) int { return i + 1 },
}).Parse(reportTemplate)).New("trial").Parse(trialTemplate))

// headView is what both kinds of page put in their <head>: the title,
// the style sheet and a Content-Security-Policy that allows the page's
// own inline style and script (by hash), images and videos from the run
// folder, and nothing else — a string that escaped escaping still could
// not run or fetch anything.
type headView struct {
	Title  string
	CSS    template.CSS
	CSP    string
	Script template.JS
}

func cspFor(script string) string {
	src := "'none'"
	if script != "" {
		src = scriptHash(script)
	}
	return "default-src 'none'; img-src 'self' file:; media-src 'self' file:; style-src 'unsafe-inline'; script-src " + src + "; base-uri 'none'; form-action 'none'"
}

// scriptHash is the CSP source that allows the inline script by its hash.
func scriptHash(script string) string {
	sum := sha256.Sum256([]byte(script))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

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
	Trials  []*result.Trial
	// Board is the leaderboard of Trials as leaderboard.md shows it
	// (NewLeaderboard); nil computes one with metrics' defaults, which
	// have no generation records (RoA and TEM n/a).
	Board *Leaderboard
	// Dirs maps a trial's key to its folder, relative to the report's
	// folder (run.Summary.Dirs: "trials/<name>"). WriteHTML writes the
	// trial's page there (TrialPage) and links the grid to it; a trial
	// without a folder is in the grid without a link.
	Dirs map[string]string
}

// reportView is what report.html shows.
type reportView struct {
	Head                 headView
	Title, Generated     string
	Sandbox, Partial     string
	Unsandboxed          bool
	Trials, Scored       int
	Infra, Retried       int
	Intro                string
	Main                 *section
	Sections             []section
	CategoryBars         template.HTML
	Scatter              template.HTML
	ScatterNote          string
	Grid                 gridView
	Statuses, Categories []string
	Attributions, Models []string
	Marks                []markLegend
}

type markLegend struct{ Class, Mark, Text string }

// WriteHTML renders the report to path, and a page for every trial of
// p.Dirs into its folder (TrialPage), each atomically. Every link is relative, so
// the run folder can be moved or archived as a whole and still opens
// offline. A trial page that cannot be written fails the report; a trace
// that cannot be read is said so on its page.
func WriteHTML(path string, p Page) error {
	dir := filepath.Dir(path)
	if p.Board == nil {
		l, err := NewLeaderboard(p.Title, p.Partial, p.Trials, metrics.BoardOptions{})
		if err != nil {
			return err
		}
		p.Board = l
	}
	trials := append([]*result.Trial(nil), p.Trials...)
	sortTrials(trials)
	dirs := map[string]string{}
	for _, t := range trials {
		// A folder outside the report's, or one that is gone, gets no page.
		if d, ok := p.Dirs[t.Key]; ok && filepath.IsLocal(filepath.FromSlash(d)) && exists(filepath.Join(dir, filepath.FromSlash(d))) {
			dirs[t.Key] = filepath.FromSlash(d)
		}
	}
	if err := writeTrialPages(dir, filepath.Base(path), trials, dirs); err != nil {
		return err
	}
	v := newReportView(p, trials, func(t *result.Trial) string {
		if d, ok := dirs[t.Key]; ok {
			return href(filepath.Join(d, TrialPage))
		}
		return ""
	})
	var buf bytes.Buffer
	if err := tmpl.ExecuteTemplate(&buf, "report", v); err != nil {
		return fmt.Errorf("rendering the report: %w", err)
	}
	if err := atomicfile.Write(path, buf.Bytes()); err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	return nil
}

// href is a relative file path as a link: slashes, each step escaped.
func href(rel string) string {
	return (&url.URL{Path: filepath.ToSlash(rel)}).String()
}

// writeTrialPages writes the page of every trial that has a folder in
// dirs (relative to root, where the report named report is).
func writeTrialPages(root, report string, trials []*result.Trial, dirs map[string]string) error {
	tp := newTrialPages(root, trials, dirs)
	for _, t := range trials {
		d, ok := dirs[t.Key]
		if !ok {
			continue
		}
		tdir := filepath.Join(root, d)
		up, err := filepath.Rel(tdir, root)
		if err != nil {
			return fmt.Errorf("trial %s: %w", t.Key, err)
		}
		v := tp.view(t, href(filepath.Join(up, report)), func(o *result.Trial) string {
			r, err := filepath.Rel(tdir, filepath.Join(root, dirs[o.Key], TrialPage))
			if err != nil {
				return ""
			}
			return href(r)
		})
		v.Head.CSS, v.Head.CSP = template.CSS(css), cspFor("")
		var buf bytes.Buffer
		if err := tmpl.ExecuteTemplate(&buf, "trial", v); err != nil {
			return fmt.Errorf("rendering the page of trial %s: %w", t.Key, err)
		}
		if err := atomicfile.Write(filepath.Join(tdir, TrialPage), buf.Bytes()); err != nil {
			return fmt.Errorf("writing the page of trial %s: %w", t.Key, err)
		}
	}
	return nil
}

// trialPages is what the pages of a run's trials share: each task's
// reference trial (its trace read once, when a page first shows it) and
// each task's trials.
type trialPages struct {
	root      string
	dirs      map[string]string
	refs      map[string]*result.Trial
	refTraces map[string][]traceLine
	byTask    map[string][]*result.Trial
}

// newTrialPages finds the reference trial of each task among trials
// (sorted) that have a folder in dirs.
func newTrialPages(root string, trials []*result.Trial, dirs map[string]string) *trialPages {
	tp := &trialPages{root: root, dirs: dirs, refs: map[string]*result.Trial{}, refTraces: map[string][]traceLine{}, byTask: map[string][]*result.Trial{}}
	for _, t := range trials {
		tp.byTask[t.Task] = append(tp.byTask[t.Task], t)
		if _, ok := dirs[t.Key]; !ok || t.Model != result.ModelOracle || t.Repair != "" {
			continue
		}
		if r := tp.refs[t.Task]; r == nil || better(t, r) {
			tp.refs[t.Task] = t
		}
	}
	return tp
}

// refTrace is the trace of task's reference trial, read on first use: a
// served trial page shows one task's.
func (tp *trialPages) refTrace(task string) []traceLine {
	tr, ok := tp.refTraces[task]
	if !ok {
		// A reference whose trace cannot be read has no curve to show.
		tr, _ = readTrace(filepath.Join(tp.root, tp.dirs[tp.refs[task].Key], traceFile))
		tp.refTraces[task] = tr
	}
	return tr
}

// view is the page of t (which has a folder), linking to the report at
// report and to another trial's page at link(o) (called only for trials
// with a folder).
func (tp *trialPages) view(t *result.Trial, report string, link func(o *result.Trial) string) trialView {
	c := trialContext{dir: filepath.Join(tp.root, tp.dirs[t.Key]), report: report}
	if r := tp.refs[t.Task]; r != nil && r.Key != t.Key {
		c.ref = &refTrial{t: r, href: link(r), trace: tp.refTrace(t.Task)}
	}
	for _, o := range tp.byTask[t.Task] {
		l := ""
		if _, ok := tp.dirs[o.Key]; ok && o.Key != t.Key {
			l = link(o)
		}
		ch := newChip(o, l)
		ch.Who = columnOf(o) + "/" + o.Candidate
		if o.Sample > 0 {
			ch.Who += fmt.Sprintf(" #%d", o.Sample)
		}
		if o.Key == t.Key {
			ch.Class += " self"
		}
		c.siblings = append(c.siblings, ch)
	}
	return newTrialView(t, c)
}

// better reports whether the reference trial a is a better expected
// curve than b: a pass before anything else, then the lower sample.
func better(a, b *result.Trial) bool {
	if a.Pass != b.Pass {
		return a.Pass
	}
	if a.Sample != b.Sample {
		return a.Sample < b.Sample
	}
	return a.Key < b.Key
}

func newReportView(p Page, trials []*result.Trial, link func(*result.Trial) string) reportView {
	b := p.Board.Board
	v := reportView{Title: p.Title, Generated: p.Generated, Sandbox: p.Sandbox, Unsandboxed: p.Unsandboxed, Partial: p.Partial,
		Trials: len(trials), Scored: b.Trials, Infra: b.Infra, Intro: boardIntro(b)}
	v.Head = headView{Title: p.Title, CSS: template.CSS(css), CSP: cspFor(filterJS), Script: template.JS(filterJS)}
	for _, t := range trials {
		if t.Retries > 0 {
			v.Retried++
		}
	}
	v.Main, v.Sections = boardSections(b)
	if ws := worldSection(p.Board.World); ws != nil {
		v.Sections = append(v.Sections, *ws)
	}
	v.CategoryBars = categoryBars(b)
	v.Scatter, v.ScatterNote = costScatter(b)
	v.Grid = newGrid(trials, b.Rows, link)

	seen := map[string]map[string]bool{"status": {}, "category": {}, "attribution": {}}
	for _, t := range trials {
		seen["status"][t.Class()] = true
		seen["category"][t.Category] = true
		if a := attributionOf(t); a != "" {
			seen["attribution"][a] = true
		}
	}
	for _, s := range statusOrder {
		if seen["status"][s] {
			v.Statuses = append(v.Statuses, s)
		}
	}
	v.Categories = sortedKeys(seen["category"])
	v.Attributions = sortedKeys(seen["attribution"])
	for _, r := range b.Rows {
		v.Models = append(v.Models, r.Name())
	}
	for _, s := range statusOrder {
		text := map[string]string{"pass": "pass (V-Cov)", "fail": "fail (V-Cov)", "crash": "crash (V-Cov 0)", "timeout": "timeout (a crash, V-Cov 0)", "infra": "infrastructure error (not scored)"}[s]
		v.Marks = append(v.Marks, markLegend{Class: s, Mark: marks[s], Text: text})
	}
	return v
}

// categoryBars draws V-Cov by category, a bar per leaderboard row.
func categoryBars(b metrics.Board) template.HTML {
	cats := map[string]bool{}
	for _, r := range b.Rows {
		for c := range r.ByCategory {
			cats[c] = true
		}
	}
	if len(cats) == 0 {
		return ""
	}
	var groups []plot.BarGroup
	for _, c := range sortedKeys(cats) {
		g := plot.BarGroup{Label: c}
		for i, r := range b.Rows {
			if s, ok := r.ByCategory[c]; ok && s.Trials > 0 {
				g.Bars = append(g.Bars, plot.Bar{Label: r.Name(), Value: s.VCov, Text: fmt.Sprintf("%s (%d)", pct(s.VCov), s.Trials), Series: i})
			}
		}
		groups = append(groups, g)
	}
	return plot.Bars("V-Cov by category, a bar per model (its scored trials in brackets)", groups)
}

// costScatter draws each row's V-Cov against its mean generation cost
// per page, or says why there is nothing to draw.
func costScatter(b metrics.Board) (template.HTML, string) {
	var pts []plot.Point
	for i, r := range b.Rows {
		e := r.Economics.RoA
		if e.Trials == 0 {
			continue
		}
		cost := e.Denominator / float64(e.Trials)
		pts = append(pts, plot.Point{Label: r.Name(), X: cost, Y: r.VCov, Series: i,
			Title: fmt.Sprintf("%s: V-Cov %s, %s USD per page over %d priced trial(s)", r.Name(), pct(r.VCov), num(cost, 4), e.Trials)})
	}
	if len(pts) == 0 {
		return "", "Cost vs. V-Cov: no trial has a recorded generation cost (gen.json's cost_usd beside a --candidates page), so there is nothing to plot."
	}
	sort.SliceStable(pts, func(i, j int) bool { return pts[i].Label < pts[j].Label })
	return plot.Scatter{Title: "V-Cov against the mean generation cost per page, a point per model",
		X:      plot.Axis{Label: "mean generation cost per page (USD)", Zero: true},
		Y:      plot.Axis{Label: "V-Cov", Fixed: true, Min: 0, Max: 1, Format: func(v float64) string { return pct0(v) }},
		Points: pts}.SVG(), ""
}
