// Package worldjudge grades an open-ended world against a rubric
// (internal/worldjudge/rubric) twice, as WorldBench does — what the running
// world shows and what its code says — with worldprobe's additions: time
// through the virtual clock, offline libraries, and coverage, so that only
// code that ran can earn a code half.
//
// What exists is in docs/judge.md: the capture (internal/worldjudge/capture,
// with the legend framing and the navigator), the pixel measures, the
// quote check, the coverage and, with models, the looking side
// (internal/worldjudge/look: blind identification, the visual item judge,
// the bug-hunt) and the reading side (ReadCode: the code probe, quote repair
// and the evidence agent, internal/worldjudge/probe); scores are aggregated
// from the halves' statuses (score.go). A half no model judged is
// "unjudged" — never 0 and never full — and keeps its score open.
package worldjudge

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
	"time"

	"github.com/worldprobe/worldprobe/internal/atomicfile"
	"github.com/worldprobe/worldprobe/internal/browser"
	"github.com/worldprobe/worldprobe/internal/resolve"
	"github.com/worldprobe/worldprobe/internal/result"
	"github.com/worldprobe/worldprobe/internal/session"
	"github.com/worldprobe/worldprobe/internal/trial"
	"github.com/worldprobe/worldprobe/internal/worldjudge/capture"
	"github.com/worldprobe/worldprobe/internal/worldjudge/coverage"
	"github.com/worldprobe/worldprobe/internal/worldjudge/measure"
	"github.com/worldprobe/worldprobe/internal/worldjudge/probe"
	"github.com/worldprobe/worldprobe/internal/worldjudge/rubric"
)

// Half statuses: a half is unjudged (StatusUnjudged, result's word), or
// judged "pass" or "fail" by a measure.
const (
	StatusPass = "pass"
	StatusFail = "fail"
	// StatusNotApplicable is a gate worldprobe has no use for.
	StatusNotApplicable = "not_applicable"
)

// Report statuses.
const (
	// Complete: the world was captured to the end.
	Complete = "complete"
	// Partial: the capture stopped early (Reason); what it saw is kept.
	Partial = "partial"
	// NotCaptured: nothing was captured (structural gate, load failure).
	NotCaptured = "not_captured"
	// Overloaded: the machine, not the world, kept the capture from
	// finishing (ErrOverloaded); judge it again on a quieter machine.
	Overloaded = "machine_overloaded"
)

// Options parametrise a judgement.
type Options struct {
	Rubric  *rubric.Rubric
	Capture capture.Options
	// Offline: no model is asked; model halves stay unjudged.
	Offline bool
	// Look are the looking side's models (looking.go); without them every
	// sight half that needs a model stays unjudged.
	Look LookModels
	// Models gives the model roles (an *llm.Registry does); nil, or
	// Offline, judges without models.
	Models Models
	// Judging names this configuration as trial keys record it:
	// JudgingOffline, or "models" and each role's models (the command
	// that sets the models names them). "" is JudgingOffline when Offline.
	Judging string
}

// JudgingOffline names the world judge's configuration without models.
const JudgingOffline = "offline"

// Name is o's Judging, JudgingOffline for an offline judge left unnamed.
func (o Options) Name() string {
	if o.Judging == "" && (o.Offline || o.Models == nil) {
		return JudgingOffline
	}
	return o.Judging
}

// Report is one world's judgement (judge.json).
type Report struct {
	World  string `json:"world"`
	Name   string `json:"name"`
	SHA256 string `json:"sha256"`
	Rubric string `json:"rubric"`
	Mode   string `json:"mode"`
	// Status is complete, partial or not_captured; Reason names why it is
	// not complete.
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
	// Capture is what was seen: frames, aliases, day/night, seasons,
	// bursts, timing.
	Capture *capture.Capture `json:"capture"`
	// Pixels are the rubric's pixel measures over the capture.
	Pixels Pixels `json:"pixels"`
	// Coverage summarises V8 block coverage of the world's inline scripts.
	Coverage *CoverageSummary `json:"coverage,omitempty"`
	Tests    []TestReport     `json:"tests"`
	Gates    []GateReport     `json:"gates"`
	Score    Score            `json:"score"`
	// RefusedQuotes lists every quote a model gave that earned nothing,
	// with why (not source text, too short, never ran, …).
	RefusedQuotes []RefusedQuote `json:"refused_quotes,omitempty"`
	// NotBuilt lists what this judge does not do yet.
	NotBuilt []string `json:"not_built"`
	// Looks are the looking side's model verdicts (blind identification,
	// the visual item judge, the bug-hunt); nil offline.
	Looks *Looks `json:"looks,omitempty"`
	// Biomes is the per-biome breakdown; Lost every lost point with its
	// class (score.go).
	Biomes []BiomeReport `json:"biomes,omitempty"`
	Lost   *Lost         `json:"lost,omitempty"`
	// Placement is WC002's reading of the code (place.go); nil offline.
	Placement *Placement `json:"placement,omitempty"`
}

// Pixels are the pixel measures (measure package, thresholds from the
// rubric).
type Pixels struct {
	// DayNight repeats the capture's pick.
	DayNight *capture.DayNight `json:"day_night,omitempty"`
	// DiffVsDay is frame_diff(day, sample) for every other time sample;
	// LightFollowsSun holds when one reaches frame_diff.light_change.
	DiffVsDay       map[string]float64 `json:"diff_vs_day,omitempty"`
	LightFollowsSun *bool              `json:"light_follows_sun,omitempty"`
	// TintVsDay is the chroma shift from the day of every sample between
	// day and night (lit luma in the middle half of their range);
	// DuskDawnTint holds when one reaches chroma.dusk_shift.
	TintVsDay    map[string]float64 `json:"tint_vs_day,omitempty"`
	DuskDawnTint *bool              `json:"dusk_dawn_tint,omitempty"`
	// SeasonShift is the chroma shift of each season view from the first;
	// informative only (season views are at different times of day).
	SeasonShift map[string]float64 `json:"season_shift,omitempty"`
	// Motion is the page camera's larger burst fraction; MotionGate holds
	// when it reaches motion_min (WC004's gate on a model's "it moves").
	// BiomeMotion is the same per biome, from the bursts of its close view
	// (motion.go); a biome without them is judged on Motion.
	Motion      *float64                `json:"motion,omitempty"`
	MotionGate  *bool                   `json:"motion_gate,omitempty"`
	BiomeMotion map[string]*BiomeMotion `json:"biome_motion,omitempty"`
}

// CoverageSummary is the coverage report with the lines that never ran.
type CoverageSummary struct {
	*coverage.Report
	// NotRun are the ranges of lines with code that never ran.
	NotRun []Span `json:"not_run"`
}

// Span is a range of 1-based lines.
type Span struct {
	From int `json:"from"`
	To   int `json:"to"`
}

// Tally is what a test, or the whole ladder, earned so far.
type Tally struct {
	// Earned is null until every half is judged (forbidden items too).
	Earned *float64 `json:"earned"`
	// Judged is the points whose halves have a verdict; EarnedOfJudged
	// what those earned; Unjudged the rest.
	Judged         float64 `json:"judged"`
	EarnedOfJudged float64 `json:"earned_of_judged"`
	Unjudged       float64 `json:"unjudged"`
}

// round rounds the tally to 2 decimals and closes it (Earned) when open
// is false.
func (t *Tally) round(open bool) {
	t.Judged = measure.Round(t.Judged, 2)
	t.EarnedOfJudged = measure.Round(t.EarnedOfJudged, 2)
	t.Unjudged = measure.Round(t.Unjudged, 2)
	t.Earned = nil
	if !open {
		e := t.EarnedOfJudged
		t.Earned = &e
	}
}

// TestReport is one test of the ladder.
type TestReport struct {
	ID     string  `json:"id"`
	Title  string  `json:"title"`
	Points float64 `json:"points"`
	Tally
	Parts     []PartReport `json:"parts,omitempty"`
	Items     []ItemReport `json:"items,omitempty"`
	Forbidden []ItemReport `json:"forbidden,omitempty"`
	// Biomes are a per-biome test's biome scores (score.go).
	Biomes []BiomeTally `json:"biomes,omitempty"`
}

// PartReport is a separately scored part (WC001's bug-hunt).
type PartReport struct {
	ID     string   `json:"id"`
	Points float64  `json:"points"`
	Status string   `json:"status"`
	Reason string   `json:"reason"`
	Frames []string `json:"frames,omitempty"`
	// Biome is the biome of a per-biome part (WC002); Earned what a
	// judged part earned when it is not all or nothing (the bug-hunt).
	Biome  string   `json:"biome,omitempty"`
	Earned *float64 `json:"earned,omitempty"`
}

// ItemReport is one item with its halves.
type ItemReport struct {
	ID     string       `json:"id"`
	Biome  string       `json:"biome,omitempty"`
	Label  string       `json:"label"`
	Points float64      `json:"points"`
	Earned *float64     `json:"earned"`
	Halves []HalfReport `json:"halves"`
	// Lost and Class: the points a closed item lost and their E1–E4 class
	// (WC003 and WC004; score.go).
	Lost  float64 `json:"lost,omitempty"`
	Class string  `json:"class,omitempty"`
}

// HalfReport is one witness of an item.
type HalfReport struct {
	Half string `json:"half"`
	// Share is the half's share of the item's points.
	Share  float64 `json:"share"`
	Status string  `json:"status"`
	Reason string  `json:"reason"`
	// Evidence points at what decided or would decide it.
	Frames  []string       `json:"frames,omitempty"`
	Measure map[string]any `json:"measure,omitempty"`
	// Earned is the half's points when a verdict gives it other than its
	// share or nothing (WC001's source judge: points × probability).
	Earned *float64 `json:"earned,omitempty"`
	// Evidence are the code quotes that decided a code half, checked; Hunt
	// is the evidence agent's search when one ran.
	Evidence []probe.Evidence `json:"evidence,omitempty"`
	Hunt     *probe.Hunt      `json:"hunt,omitempty"`
}

// GateReport is a cross-test rule.
type GateReport struct {
	ID     string `json:"id"`
	Status string `json:"status"`
	Reason string `json:"reason"`
}

// Score is the ladder's total, open while any test is.
type Score struct {
	Max float64 `json:"max"`
	Tally
}

// NotBuilt is what the judge leaves out, said in every report.
var NotBuilt = []string{
	"season frames at the day's time of day only when about 1.3 days fall within the horizon (the day's length is measured, never read from the page); else each season's view is the first time sample naming it",
}

// Judge captures the world at path into dir and grades it. The error is
// for infrastructure only; a world that fails is a report with a reason.
func Judge(ctx context.Context, b *browser.Browser, res *resolve.Resolver, path, dir string, o Options) (rep *Report, err error) {
	defer func() {
		if p := recover(); p != nil {
			// A bug of ours must not end the run: the world gets a reason.
			rep, err = uncaptured(path, o.Rubric, NotCaptured, fmt.Sprintf("the judge failed: %v", p)), nil
			_ = os.WriteFile(filepath.Join(dir, "panic.txt"), debug.Stack(), 0o644)
		}
	}()
	if o.Capture.Biomes == nil {
		o.Capture.Biomes = o.Rubric.Biomes
	}
	c, err := captureUnderLoad(ctx, b, res, path, dir, o.Capture)
	if err != nil {
		if errors.Is(err, ErrOverloaded) {
			return uncaptured(path, o.Rubric, Overloaded, err.Error()), nil
		}
		return nil, err
	}
	html, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the world: %w", err)
	}
	var looks *Looks
	if o.Look.Enabled() && !o.Offline {
		looks = Look(ctx, o.Look, o.Rubric, dir, c)
	}
	rep = GradeWith(o.Rubric, path, string(html), c, looks)
	if err := readWithModels(ctx, rep, o, string(html)); err != nil {
		return nil, err
	}
	Aggregate(o.Rubric, rep)
	return rep, nil
}

// uncaptured is the report of a world with no capture at all.
func uncaptured(path string, r *rubric.Rubric, status, reason string) *Report {
	return &Report{World: path, Name: Name(path), Rubric: r.Name, Mode: "offline", Status: status, Reason: reason, NotBuilt: NotBuilt}
}

// ErrOverloaded: the world missed its deadline on every attempt while the
// machine was overloaded, and a blank page could not run promptly either.
var ErrOverloaded = errors.New("the machine was too overloaded to capture the world")

// captureUnderLoad captures the world; when a call into it misses its
// deadline while the machine is overloaded (trial.OverloadPerCore), it
// captures again with the deadline doubled, up to trial.DefaultRetries
// times, as trials do; then a blank page must load and step within a
// twentieth of the deadline (at least trial.HealthWithin) for the miss to
// be the world's, else ErrOverloaded.
func captureUnderLoad(ctx context.Context, b *browser.Browser, res *resolve.Resolver, path, dir string, o capture.Options) (*capture.Capture, error) {
	if o.CallTimeout <= 0 {
		o.CallTimeout = session.DefaultCallTimeout
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	c, own, err := trial.RetryUnderLoad(ctx, trial.Machine{}, b, res, o.CallTimeout, ErrOverloaded,
		func(deadline time.Duration) (*capture.Capture, bool, error) {
			o.CallTimeout = deadline
			c, err := capture.Run(ctx, b, res, path, dir, o)
			return c, err == nil && c.DeadlineMissed, err
		},
		func(missed time.Duration, load float64) error {
			o.Logger.Info("world missed its deadline on a loaded machine; capturing again", "world", path, "deadline", missed, "load_per_core", load)
			if err := os.RemoveAll(filepath.Join(dir, "frames")); err != nil {
				return fmt.Errorf("clearing the frames of the last attempt: %w", err)
			}
			return nil
		})
	if err != nil {
		return c, err
	}
	if own != nil && own.Within > 0 {
		c.Failure += fmt.Sprintf(" (the machine was loaded, %.1f per core, but a blank page loaded and ran within %s: the world's own timeout)", own.Load, own.Within)
	}
	return c, nil
}

// Name is a world's report folder name: its folder's name for
// world.html or index.html, else its file name without extension.
func Name(path string) string {
	base := filepath.Base(path)
	if base == "world.html" || base == "index.html" {
		return filepath.Base(filepath.Dir(path))
	}
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// Grade grades a capture offline.
func Grade(r *rubric.Rubric, path, html string, c *capture.Capture) *Report {
	return GradeWith(r, path, html, c, nil)
}

// GradeWith grades a capture with the looking side's verdicts (nil:
// offline).
func GradeWith(r *rubric.Rubric, path, html string, c *capture.Capture, looks *Looks) *Report {
	rep := &Report{World: path, Name: Name(path), SHA256: c.SHA256, Rubric: r.Name, Mode: "offline", Capture: c, NotBuilt: NotBuilt}
	switch {
	case c.Failure == "":
		rep.Status = Complete
	case len(c.Views) == 0:
		rep.Status, rep.Reason = NotCaptured, c.Failure
	default:
		rep.Status, rep.Reason = Partial, c.Failure
	}
	rep.Pixels = pixels(r, c)
	if len(c.Coverage) > 0 {
		cr := coverage.Map(html, c.EntryURL, c.Coverage)
		rep.Coverage = &CoverageSummary{Report: cr, NotRun: notRun(cr)}
	}
	rep.Tests = tests(r, c, rep.Pixels)
	rep.Gates = gates(r, c)
	if looks != nil {
		rep.Mode, rep.Looks = "models", looks
		applyLooks(r, rep, looks, rep.Pixels)
	}
	Aggregate(r, rep)
	return rep
}

func notRun(r *coverage.Report) []Span {
	var out []Span
	for l := 1; l < len(r.Lines); l++ {
		if r.Lines[l] != coverage.NotRun {
			continue
		}
		if n := len(out); n > 0 && out[n-1].To == l-1 {
			out[n-1].To = l
			continue
		}
		// Lines with no code in between (blank, markup) join a range too.
		if n := len(out); n > 0 && gapUnknown(r, out[n-1].To, l) {
			out[n-1].To = l
			continue
		}
		out = append(out, Span{From: l, To: l})
	}
	return out
}

func gapUnknown(r *coverage.Report, from, to int) bool {
	for l := from + 1; l < to; l++ {
		if r.Lines[l] != coverage.Unknown {
			return false
		}
	}
	return true
}

func view(c *capture.Capture, name string) *capture.View {
	for i := range c.Views {
		if c.Views[i].Name == name {
			return &c.Views[i]
		}
	}
	return nil
}

func pixels(r *rubric.Rubric, c *capture.Capture) Pixels {
	p := Pixels{DayNight: c.DayNight}
	px := r.Pixels
	if c.DayNight != nil {
		day, night := view(c, c.DayNight.Day), view(c, c.DayNight.Night)
		cc := measure.ChromaConfig{CropLeft: px.Chroma.CropLeft, Width: px.Chroma.Resize[0], Height: px.Chroma.Resize[1], MinSum: px.Chroma.MinRGBSum}
		kDay := measure.LandChroma(day.RGB(), cc)
		p.DiffVsDay, p.TintVsDay = map[string]float64{}, map[string]float64{}
		light, tint := false, false
		for _, v := range c.Views {
			if v.Kind != "time" || v.Name == day.Name {
				continue
			}
			d := measure.FrameDiff(day.RGB(), v.RGB(), px.FrameDiff.CropLeft)
			p.DiffVsDay[v.Name] = d
			light = light || d >= px.FrameDiff.LightChange
			// A dusk or dawn is between day and night: with more samples
			// than WorldBench's four times of day, only those whose lit
			// luma lies in the middle half of the night–day range count
			// (else every dark sample would pass as a "tint").
			lo, hi := night.Luma+(day.Luma-night.Luma)/4, day.Luma-(day.Luma-night.Luma)/4
			if v.Name != night.Name && v.Luma >= lo && v.Luma <= hi {
				s := measure.Shift(kDay, measure.LandChroma(v.RGB(), cc))
				p.TintVsDay[v.Name] = s
				tint = tint || s >= px.Chroma.DuskShift
			}
		}
		p.LightFollowsSun, p.DuskDawnTint = &light, &tint
		if len(c.Seasons) >= 2 {
			p.SeasonShift = map[string]float64{}
			var first measure.Chroma
			for _, a := range c.Aliases {
				if !strings.HasPrefix(a.Name, "season_") {
					continue
				}
				k := measure.LandChroma(view(c, a.Of).RGB(), cc)
				if len(p.SeasonShift) == 0 {
					first = k
				}
				p.SeasonShift[a.Name] = measure.Shift(first, k)
			}
		}
	}
	p.Motion, p.MotionGate, p.BiomeMotion = motionPixels(c, px.MotionMin)
	return p
}

const (
	reasonCode    = "needs the code probe (a model); offline"
	reasonSight   = "needs the visual judge over blind-confirmed frames (a model); offline"
	reasonNoFrame = "no frames were captured"
)

func tests(r *rubric.Rubric, c *capture.Capture, p Pixels) []TestReport {
	var out []TestReport
	wide := []string{}
	for _, a := range c.Aliases {
		if a.Name == "overview" {
			wide = append(wide, a.Of)
		}
	}
	for _, v := range c.Views {
		if v.Kind == "orbit" {
			wide = append(wide, v.Name)
		}
	}
	for ti := range r.Tests {
		t := &r.Tests[ti]
		tr := TestReport{ID: t.ID, Title: t.Title, Points: t.Points}
		for _, part := range t.Parts {
			if part.ID == "visual_bughunt" {
				pr := PartReport{ID: part.ID, Points: part.Points, Status: result.StatusUnjudged, Reason: "needs the visual bug-hunt (a vision model, 1 or 3 votes per frame); offline", Frames: wide}
				tr.Parts = append(tr.Parts, pr)
				tr.Unjudged += part.Points
			}
		}
		if t.ID == "WC002" {
			// Coverage and placement: a model classifies the code; the
			// frames count only through blind identification.
			tr.Unjudged += t.Points
			tr.Parts = append(tr.Parts, PartReport{ID: "coverage_and_placement", Points: t.Points, Status: result.StatusUnjudged,
				Reason: "needs the classify and extract models and blind identification; offline"})
		}
		for _, it := range t.Items {
			ir := ItemReport{ID: it.ID, Biome: it.Biome, Label: it.Label, Points: r.ItemPoints(t, it)}
			shares := halfShares(t.ID, it)
			all := true
			earned := 0.0
			for _, h := range it.Halves {
				hr := HalfReport{Half: h, Share: shares[h], Status: result.StatusUnjudged}
				switch h {
				case rubric.HalfCode, rubric.HalfCodeMotion:
					hr.Reason = reasonCode
				case rubric.HalfSightMotion:
					hr.Reason = reasonSight + "; the burst gate is measured"
					hr.Frames = overlays(c, it.Biome)
					if phi, gate, ok, from := biomeMotion(p, it.Biome); ok {
						hr.Measure = map[string]any{"max_fraction": phi, "gate": gate, "bursts": from}
					}
				default:
					hr.Reason = reasonSight
					if len(c.Views) == 0 {
						hr.Reason = reasonNoFrame
					}
					if t.ID == "WC005" {
						sightWC005(&hr, it, c, p)
					}
				}
				pts := measure.Round(ir.Points*hr.Share, 2)
				switch hr.Status {
				case StatusPass:
					tr.Judged += pts
					tr.EarnedOfJudged += pts
					earned += pts
				case StatusFail:
					tr.Judged += pts
				default:
					all = false
					tr.Unjudged += pts
				}
				ir.Halves = append(ir.Halves, hr)
			}
			if all {
				e := measure.Round(earned, 2)
				ir.Earned = &e
			}
			tr.Items = append(tr.Items, ir)
		}
		for _, f := range t.Forbidden {
			tr.Forbidden = append(tr.Forbidden, ItemReport{ID: f.ID, Biome: f.Biome, Label: f.Label, Points: -f.Penalty, Halves: []HalfReport{
				{Half: rubric.HalfCode, Status: result.StatusUnjudged, Reason: reasonCode},
				{Half: rubric.HalfSight, Status: result.StatusUnjudged, Reason: reasonSight},
			}})
		}
		// The test's maximum is fixed (WorldBench rounds each item's
		// points, so they may not add up to it exactly): what is not
		// judged is the rest of it. A forbidden item's penalty is open
		// until judged (none is, offline).
		if tr.Unjudged > 0 {
			tr.Unjudged = t.Points - measure.Round(tr.Judged, 2)
		}
		tr.round(tr.Unjudged > 0 || len(tr.Forbidden) > 0)
		out = append(out, tr)
	}
	return out
}

// halfShares is each half's share of its item (WorldBench's formulas):
// WC003 half code, half sight; WC004 half look (code, sight) and half
// motion (code, or code and pixels for weather, water and terrain); WC005
// half and half when the item has a sight verdict; code alone otherwise.
func halfShares(test string, it rubric.Item) map[string]float64 {
	out := map[string]float64{}
	hs := it.Halves
	switch {
	case len(hs) == 1:
		out[hs[0]] = 1
	case test == "WC004" && it.Motion:
		out[rubric.HalfCode], out[rubric.HalfSight] = 0.25, 0.25
		if len(hs) == 4 {
			out[rubric.HalfCodeMotion], out[rubric.HalfSightMotion] = 0.25, 0.25
		} else {
			out[rubric.HalfCodeMotion] = 0.5
		}
	default:
		for _, h := range hs {
			out[h] = 1 / float64(len(hs))
		}
	}
	return out
}

// sightWC005 judges WC005's pixel halves from the time samples.
func sightWC005(hr *HalfReport, it rubric.Item, c *capture.Capture, p Pixels) {
	if it.Sight != "pixel" {
		return
	}
	set := func(ok bool, m map[string]any) {
		hr.Status, hr.Measure = StatusFail, m
		if ok {
			hr.Status = StatusPass
		}
	}
	var times []string
	for _, v := range c.Views {
		if v.Kind == "time" {
			times = append(times, v.File)
		}
	}
	hr.Frames = times
	switch it.Measure {
	case "night_dimming":
		if dn := p.DayNight; dn != nil {
			hr.Reason = "lit luma of the brightest and darkest time samples"
			set(dn.Pinned, map[string]any{"day": dn.Day, "night": dn.Night, "gap": dn.Gap})
		}
	case "light_follows_sun":
		if p.LightFollowsSun != nil {
			hr.Reason = "frame difference from the day frame"
			set(*p.LightFollowsSun, map[string]any{"diff_vs_day": p.DiffVsDay})
		}
	case "dusk_dawn_tint":
		if p.DuskDawnTint != nil {
			hr.Reason = "chroma shift from the day frame of the samples between day and night (lit luma in the middle half of their range)"
			set(*p.DuskDawnTint, map[string]any{"tint_vs_day": p.TintVsDay})
		}
	case "season_world_tint":
		hr.Reason = "unjudged: the season views are time samples at different times of day, so their tint is not the season's alone; the shifts are shown"
		if p.SeasonShift != nil {
			hr.Measure = map[string]any{"season_shift": p.SeasonShift}
		} else {
			// WorldBench's measure is false without two season frames.
			hr.Status, hr.Reason = StatusFail, "no season views: "+c.SeasonsNote
		}
	}
}

func gates(r *rubric.Rubric, c *capture.Capture) []GateReport {
	var out []GateReport
	for _, g := range r.Gates {
		gr := GateReport{ID: g.ID, Status: result.StatusUnjudged, Reason: "needs a vision model; offline"}
		switch g.ID {
		case "structural":
			gr.Status, gr.Reason = StatusPass, "non-empty and names three, canvas or webgl"
			if strings.HasPrefix(c.Failure, "structural:") {
				gr.Status, gr.Reason = StatusFail, c.Failure
			}
		case "clock_patch":
			gr.Status, gr.Reason = StatusNotApplicable, "worldprobe drives the world's clock itself (virtual time); no model patches the world"
		case "island_gate":
			gr.Reason = "follows ocean_void, which needs a vision model; offline"
		}
		out = append(out, gr)
	}
	return out
}

// Write writes dir/judge.json and dir/report.html, each atomically.
func Write(dir string, rep *Report) error {
	if err := atomicfile.WriteJSON(filepath.Join(dir, "judge.json"), rep); err != nil {
		return err
	}
	return writeHTML(filepath.Join(dir, "report.html"), rep)
}

// sortedKeys lists a map's keys in order, for the HTML report.
func sortedKeys(m map[string]float64) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
