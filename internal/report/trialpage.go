package report

import (
	"errors"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"strings"

	"github.com/worldprobe/worldprobe/internal/plot"
	"github.com/worldprobe/worldprobe/internal/result"
)

// TrialPage is the name of a trial's page in its folder.
const TrialPage = "index.html"

// The files of a trial's folder its page shows.
const (
	traceFile      = "trace.jsonl"
	screenshotFile = "screenshot.png"
)

// Limits that keep a trial page readable whatever the page under test
// published.
const (
	maxTraceRows  = 400 // rows of the trace table
	maxStateChars = 600 // characters of one state in the trace table
	maxValueChars = 160 // characters of one value in an assertion's table
	maxPlots      = 8   // state-over-time plots per trial
)

// trialView is what a trial page shows.
type trialView struct {
	Head   headView
	Report string // the report, relative to the page
	T      *result.Trial
	Column string
	Class  string
	Mark   string
	Crash  *crashView
	Failed []assertionView
	NotRun []result.Assertion
	Passed []result.Assertion
	// Unjudged are the model-dependent checks no model judged; Looks are
	// the scoped visual assertions, each with its frame.
	Unjudged  []result.Assertion
	Looks     []lookView
	Total     int
	PlotsLeft int
	// Screenshot and Trace are the files' names when the folder has them.
	Screenshot, Trace string
	// Videos are the probes' recordings (a clip, a contact sheet, or why
	// there is none).
	Videos    []videoView
	TraceErr  string
	TraceRows []traceRow
	TraceMore int
	Reference *linkView
	// Neighbours are the trials of the same task, this one included
	// (without a link).
	Neighbours []chip
}

// lookView is one scoped visual assertion: its criterion (Expr), status,
// the model's reason, and its frame when the folder has it.
type lookView struct {
	result.Assertion
	Frame   string
	Missing bool
}

// videoView is one probe's recording: File is set when the folder has
// it, Play when it is a video rather than a contact sheet.
type videoView struct {
	result.Video
	Play    bool
	Missing bool
}

type crashView struct {
	Kind, Message, Cause string
}

type linkView struct {
	Href, Text string
}

type assertionView struct {
	result.Assertion
	Values []valueRow
	Plots  []template.HTML
	// Above names the paths it reads that an assertion above plotted;
	// Same those whose values over the probe are the reference's, left
	// unplotted.
	Above, Same []string
}

// valueRow is one state path an assertion read, with its value in this
// trial and in the reference's, where their traces have it.
type valueRow struct {
	Path, Where, Got, Want string
}

type traceRow struct {
	N                        int
	Probe, Kind, Name, State string
	Line, Frame              string
}

// trialContext is what a trial page needs beyond its trial: its folder,
// the reference's trace and the links to its neighbours.
type trialContext struct {
	dir      string // the trial's folder
	report   string // the report, relative to the trial's folder
	ref      *refTrial
	siblings []chip
}

// refTrial is the reference trial of a task, with its trace.
type refTrial struct {
	t     *result.Trial
	href  string // its page, relative to the trial's folder
	trace []traceLine
}

// notRun reports whether an assertion did not run because the page had
// failed (or the contract stopped at a first failure).
func notRun(a result.Assertion) bool {
	return a.Status == result.StatusError && strings.HasPrefix(a.Message, "not run")
}

// newTrialView reads the trial's folder and builds its page.
func newTrialView(t *result.Trial, c trialContext) trialView {
	v := trialView{T: t, Report: c.report, Column: columnOf(t), Class: t.Class(), Mark: marks[t.Class()],
		Total: len(t.Assertions), Neighbours: c.siblings}
	v.Head = headView{Title: fmt.Sprintf("%s · %s/%s", t.Task, v.Column, t.Candidate)}
	if t.Outcome == result.OutcomeCrash {
		v.Crash = &crashView{Kind: t.CrashKind, Message: t.CrashMessage, Cause: t.CrashCause}
	}
	if c.ref != nil {
		v.Reference = &linkView{Href: c.ref.href, Text: fmt.Sprintf("%s/%s sample %d", c.ref.t.Model, c.ref.t.Candidate, c.ref.t.Sample)}
	}
	if exists(filepath.Join(c.dir, screenshotFile)) {
		v.Screenshot = screenshotFile
	}
	for _, rv := range t.Videos {
		vv := videoView{Video: rv, Play: rv.Kind != "contact-sheet"}
		if rv.File != "" && (!filepath.IsLocal(rv.File) || !exists(filepath.Join(c.dir, rv.File))) {
			vv.File, vv.Missing = "", true
		}
		v.Videos = append(v.Videos, vv)
	}
	var trace []traceLine
	if exists(filepath.Join(c.dir, traceFile)) {
		v.Trace = traceFile
		var err error
		path := filepath.Join(c.dir, traceFile)
		if trace, err = readTrace(path); err != nil {
			// The page names the file as its link does: the run folder
			// may have moved.
			v.TraceErr = strings.ReplaceAll(err.Error(), path, traceFile)
		}
	}
	var refTrace []traceLine
	if c.ref != nil {
		refTrace = c.ref.trace
	}
	plotted, left := map[string]bool{}, map[string]bool{}
	for _, a := range t.Assertions {
		if a.Kind == result.KindLook {
			lv := lookView{Assertion: a}
			if a.Image != "" && filepath.IsLocal(a.Image) && exists(filepath.Join(c.dir, a.Image)) {
				lv.Frame = a.Image
			} else if a.Image != "" {
				lv.Missing = true
			}
			v.Looks = append(v.Looks, lv)
		}
		switch {
		case a.Status == result.StatusPass:
			v.Passed = append(v.Passed, a)
		case a.Status == result.StatusUnjudged:
			v.Unjudged = append(v.Unjudged, a)
		case notRun(a):
			v.NotRun = append(v.NotRun, a)
		default:
			av := assertionView{Assertion: a}
			av.Values, av.Plots, av.Above, av.Same = explain(a, trace, refTrace, plotted, left)
			v.Failed = append(v.Failed, av)
		}
	}
	v.PlotsLeft = len(left)
	for i, l := range trace {
		if i == maxTraceRows {
			v.TraceMore = len(trace) - i
			break
		}
		row := traceRow{N: i + 1, Probe: l.Probe, Kind: l.Kind, Name: l.Name, Frame: fmt.Sprint(l.Frame), State: l.stateText(maxStateChars)}
		if l.Line > 0 {
			row.Line = fmt.Sprint(l.Line)
		}
		v.TraceRows = append(v.TraceRows, row)
	}
	return v
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return !errors.Is(err, os.ErrNotExist) && err == nil
}

// explain lists the values a failed assertion read, in this trace and
// the reference's, and plots the numeric ones over the probe's frames.
// plotted holds the probe/path pairs already plotted on the page, left
// those left out past maxPlots.
func explain(a result.Assertion, trace, ref []traceLine, plotted, left map[string]bool) (rows []valueRow, plots []template.HTML, above, same []string) {
	var reads []read
	if a.Probe == "interface" {
		if r, ok := interfaceRead(a.Expr); ok {
			reads = []read{r}
		}
	} else {
		reads = exprReads(a.Expr, snapshotNames(trace, a.Probe))
	}
	for _, r := range reads {
		if r.From != fromTrace {
			got, where, okGot := valueAt(trace, a, r)
			want, _, okWant := valueAt(ref, a, r)
			if okGot || okWant {
				row := valueRow{Path: r.Path.String(), Where: where, Got: "—", Want: "—"}
				if okGot {
					row.Got = compact(got, maxValueChars)
				}
				if okWant {
					row.Want = compact(want, maxValueChars)
				}
				rows = append(rows, row)
			}
		}
		for _, p := range plotPaths(trace, a.Probe, r.Path) {
			key := a.Probe + "\x00" + p.String()
			switch {
			case plotted[key]:
				above = append(above, p.String())
			case len(plotted) >= maxPlots:
				if len(series(trace, a.Probe, p)) >= 2 {
					left[key] = true
				}
			case equalSeries(series(trace, a.Probe, p), series(ref, a.Probe, p)):
				same = append(same, p.String())
			default:
				if svg, ok := stateOverTime(a, p, trace, ref); ok {
					plotted[key] = true
					plots = append(plots, svg)
				}
			}
		}
	}
	return rows, plots, above, same
}

// equalSeries reports whether two series have the same samples (and at
// least one).
func equalSeries(a, b []plot.XY) bool {
	if len(a) == 0 || len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// snapshotNames are the snapshots the probe took, by name.
func snapshotNames(trace []traceLine, probe string) map[string]bool {
	out := map[string]bool{}
	for _, l := range trace {
		if l.Probe == probe && l.Kind == "snapshot" {
			out[l.Name] = true
		}
	}
	return out
}

// valueAt is the value of r in the state the assertion read it from: the
// interface probe's state, the probe's "assert" line with the
// assertion's line, or the named snapshot; where says which.
func valueAt(trace []traceLine, a result.Assertion, r read) (v any, where string, ok bool) {
	for _, l := range trace {
		if l.Probe != a.Probe {
			continue
		}
		var match bool
		switch {
		case r.From == fromSnapshot:
			match, where = l.Kind == "snapshot" && l.Name == r.Name, "snapshot "+r.Name
		case a.Probe == "interface":
			match, where = l.Kind == "state", "state after load"
		default:
			match, where = a.Line > 0 && l.Kind == "assert" && l.Line == a.Line, fmt.Sprintf("s at line %d", a.Line)
		}
		if match {
			v, ok = lookup(l.State, r.Path)
			return v, fmt.Sprintf("%s (frame %d)", where, l.Frame), ok
		}
	}
	return nil, where, false
}

// plotPaths are the numeric paths of p in the probe's states: p itself
// when it is a number, each component when it is a short vector, none
// otherwise.
func plotPaths(trace []traceLine, probe string, p statePath) []statePath {
	for _, l := range trace {
		if l.Probe != probe {
			continue
		}
		v, ok := lookup(l.State, p)
		if !ok {
			continue
		}
		if _, ok := number(v); ok {
			return []statePath{p}
		}
		if n := vectorLen(v); n > 0 {
			out := make([]statePath, n)
			for i := range out {
				out[i] = p.index(i)
			}
			return out
		}
		return nil
	}
	return nil
}

// series is p over the probe's states, x the frames since the probe
// began (a reload's frames go on from where they were).
func series(trace []traceLine, probe string, p statePath) []plot.XY {
	var out []plot.XY
	offset, last := 0, 0
	for _, l := range trace {
		if l.Probe != probe {
			continue
		}
		if l.Frame < last {
			offset += last
		}
		last = l.Frame
		if v, ok := lookup(l.State, p); ok {
			if f, ok := number(v); ok {
				xy := plot.XY{X: float64(l.Frame + offset), Y: f}
				// A snapshot and an assertion at one frame read one state.
				if len(out) == 0 || out[len(out)-1] != xy {
					out = append(out, xy)
				}
			}
		}
	}
	return out
}

// assertFrames are the frames (on series' axis) where the assertion read
// the state.
func assertFrames(trace []traceLine, a result.Assertion) []float64 {
	var out []float64
	offset, last := 0, 0
	for _, l := range trace {
		if l.Probe != a.Probe {
			continue
		}
		if l.Frame < last {
			offset += last
		}
		last = l.Frame
		if a.Line > 0 && l.Kind == "assert" && l.Line == a.Line {
			out = append(out, float64(l.Frame+offset))
		}
	}
	return out
}

// stateOverTime plots p over the probe's frames in this trace, and in the
// reference's when it has it; false when this trace has fewer than two
// values of it.
func stateOverTime(a result.Assertion, p statePath, trace, ref []traceLine) (template.HTML, bool) {
	got := series(trace, a.Probe, p)
	if len(got) < 2 {
		return "", false
	}
	name := p.String()
	c := plot.Lines{Title: fmt.Sprintf("%s in probe %s, per frame: this page against the reference", name, a.Probe),
		X: plot.Axis{Label: "frame (since the probe's page loaded)"}, Y: plot.Axis{Label: name},
		Series: []plot.Series{{Label: "this page", Points: got}}}
	if want := series(ref, a.Probe, p); len(want) > 0 {
		c.Series = append(c.Series, plot.Series{Label: "reference", Points: want, Dashed: true, Series: len(plot.Palette) - 1})
	}
	for _, x := range assertFrames(trace, a) {
		c.Marks = append(c.Marks, plot.Mark{X: x, Label: fmt.Sprintf("the assertion of line %d read the state here", a.Line)})
		c.MarkLabel = "assertion"
	}
	return c.SVG(), true
}
