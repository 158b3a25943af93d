package report

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"sort"
	"time"

	"github.com/worldprobe/worldprobe/internal/result"
)

//go:embed served.html.tmpl
var servedTemplate string

var servedTmpl = template.Must(template.Must(tmpl.Clone()).New("served").Parse(servedTemplate))

// Served renders the report's pages for a web server (internal/serve)
// rather than as files: the same leaderboard, grid and trial pages that
// report.html and its trial pages show, with the links the server
// chooses, a progress section, and one more script on every page.
type Served struct {
	// Root is the run folder; Page.Dirs are relative to it.
	Root string
	// Script runs on every page after the report's own; the pages'
	// Content-Security-Policy allows it by its hash, and allows
	// connections to the page's own origin (its live updates) and
	// nothing else.
	Script string
	// Link is the address of a trial's page (the trial has a folder).
	Link func(t *result.Trial) string
	// Static is the address of the run's report.html ("" for none): the
	// pages' menu links to it.
	Static string
}

// Progress is how far a run is, as the overview shows it.
type Progress struct {
	// Done counts the finished trials; Planned the planned ones (0 when
	// unknown); Running the trial folders without a result yet (running
	// now, or left by an interrupted run).
	Done, Planned, Running int
	// Updated is when the state was read, for a person.
	Updated string
	// Counts are the finished trials by class (pass, fail, crash,
	// timeout, infra) and those with unjudged assertions.
	Counts []Count
	// Steps are the generation and repair jobs that feed the run
	// ('gen --db … --judge RUN'), by kind; none when unknown.
	Steps []StepCount
}

// StepCount is how many generation or repair jobs of one kind
// ("generate", "repair") are in each state.
type StepCount struct {
	Kind string
	// Queued wait (or wait for a retry); Running are being worked on;
	// Done finished; GivenUp were cancelled or discarded (a provider's
	// refusal, a budget, attempts spent).
	Queued, Running, Done, GivenUp int
}

// Count is one number of the progress table.
type Count struct {
	Name string
	N    int
}

// NewProgress counts trials by class, and those with unjudged
// assertions.
func NewProgress(trials []*result.Trial, planned, running int, updated string) Progress {
	p := Progress{Done: len(trials), Planned: planned, Running: running, Updated: updated}
	by := map[string]int{}
	unjudged := 0
	for _, t := range trials {
		by[t.Class()]++
		if t.Unjudged > 0 {
			unjudged++
		}
	}
	for _, s := range statusOrder {
		p.Counts = append(p.Counts, Count{Name: s, N: by[s]})
	}
	p.Counts = append(p.Counts, Count{Name: "unjudged", N: unjudged})
	return p
}

// latestRow is one finished trial in the overview's list of the latest.
type latestRow struct {
	Key, Task, Model, Candidate, Verdict string
	Chip                                 chip
}

// servedView is what a served page shows: Version is the state's version
// (the script asks for the page again when the server announces
// another).
type servedView struct {
	Head     headView
	Title    string
	Static   string
	Version  string
	Progress Progress
	R        reportView
	Latest   []latestRow
}

// maxLatest bounds the overview's list of the latest trials.
const maxLatest = 20

// Page names the served pages: "overview", "leaderboard" or "grid".
func (s Served) Page(w io.Writer, name string, p Page, prog Progress, version string) error {
	if p.Board == nil {
		return fmt.Errorf("rendering the %s page: no leaderboard", name)
	}
	trials := append([]*result.Trial(nil), p.Trials...)
	sortTrials(trials)
	link := func(t *result.Trial) string {
		if _, ok := p.Dirs[t.Key]; ok && s.Link != nil {
			return s.Link(t)
		}
		return ""
	}
	v := servedView{Title: p.Title, Static: s.Static, Version: version, Progress: prog, R: newReportView(p, trials, link)}
	v.Head = s.head(p.Title)
	if name == "overview" {
		latest := append([]*result.Trial(nil), p.Trials...)
		sort.SliceStable(latest, func(i, j int) bool {
			a, b := latest[i].StartedAt.Add(msDuration(latest[i].DurationMs)), latest[j].StartedAt.Add(msDuration(latest[j].DurationMs))
			if !a.Equal(b) {
				return a.After(b)
			}
			return latest[i].Key < latest[j].Key
		})
		for _, t := range latest[:min(len(latest), maxLatest)] {
			c := newChip(t, link(t))
			v.Latest = append(v.Latest, latestRow{Key: t.Key, Task: t.Task, Model: columnOf(t), Candidate: t.Candidate, Verdict: c.Title, Chip: c})
		}
	}
	var buf bytes.Buffer
	if err := servedTmpl.ExecuteTemplate(&buf, "served-"+name, v); err != nil {
		return fmt.Errorf("rendering the %s page: %w", name, err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// Trial writes the page of the trial key of p (which must have a folder
// in p.Dirs), linking back to the overview's grid at report.
func (s Served) Trial(w io.Writer, p Page, key, report string) error {
	trials := append([]*result.Trial(nil), p.Trials...)
	sortTrials(trials)
	var t *result.Trial
	for _, o := range trials {
		if o.Key == key {
			t = o
		}
	}
	if _, ok := p.Dirs[key]; !ok || t == nil {
		return fmt.Errorf("trial %s: no such trial with a folder", key)
	}
	if s.Link == nil {
		return fmt.Errorf("rendering the page of trial %s: Served.Link is not set", key)
	}
	tp := newTrialPages(s.Root, trials, p.Dirs)
	v := tp.view(t, report, s.Link)
	v.Head.CSS = template.CSS(css)
	v.Head.Script = template.JS(s.Script)
	v.Head.CSP = servedCSP(s.Script)
	var buf bytes.Buffer
	if err := servedTmpl.ExecuteTemplate(&buf, "trial", v); err != nil {
		return fmt.Errorf("rendering the page of trial %s: %w", key, err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

func (s Served) head(title string) headView {
	script := filterJS + "\n" + s.Script
	return headView{Title: title, CSS: template.CSS(css), CSP: servedCSP(script), Script: template.JS(script)}
}

// servedCSP is cspFor's policy with the script allowed by its hash and
// connections to the page's own origin (its event stream).
func servedCSP(script string) string {
	return "default-src 'none'; img-src 'self'; media-src 'self'; style-src 'unsafe-inline'; connect-src 'self'; script-src " +
		scriptHash(script) + "; base-uri 'none'; form-action 'none'"
}

func msDuration(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }
