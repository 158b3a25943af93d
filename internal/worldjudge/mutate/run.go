package mutate

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/worldprobe/worldprobe/internal/atomicfile"
	"github.com/worldprobe/worldprobe/internal/browser"
	jsmutate "github.com/worldprobe/worldprobe/internal/mutate"
	"github.com/worldprobe/worldprobe/internal/resolve"
	"github.com/worldprobe/worldprobe/internal/worldjudge"
	"github.com/worldprobe/worldprobe/internal/worldjudge/probe"
	"github.com/worldprobe/worldprobe/internal/worldjudge/quote"
	"github.com/worldprobe/worldprobe/internal/worldjudge/rubric"
)

// Options parametrise a mutation test.
type Options struct {
	// Judge are the judge's options (rubric, capture, models); Offline or
	// no models: targets come from Functions or the keyword hints, and
	// only the quote table is measured.
	Judge worldjudge.Options
	// Functions names the builders to remove (--function); empty: from
	// the code probe's quotes with models, else from the keyword hints.
	Functions []string
}

// Report is mutate.json.
type Report struct {
	World  string `json:"world"`
	Rubric string `json:"rubric"`
	Mode   string `json:"mode"`
	// TargetsFrom says where the targets came from (flag, quotes,
	// keywords) and Note anything the reader must know about it.
	TargetsFrom string `json:"targets_from"`
	Note        string `json:"note,omitempty"`
	// Original is the judgement of the unchanged world (its folder).
	Original Original  `json:"original"`
	Targets  []*Target `json:"targets"`
	Variants []Variant `json:"variants"`
	// Points is Table 5: per removal, the points each judge kept on the
	// removed items (with models); Quotes the quote table (every mode).
	Points []Row      `json:"points"`
	Quotes []QuoteRow `json:"quotes"`
}

// Original is the unchanged world's judgement.
type Original struct {
	Dir    string   `json:"dir"`
	Status string   `json:"status"`
	Errors []string `json:"errors,omitempty"`
	// Points are the four judges' points on every target's items before
	// any removal.
	Points Columns `json:"points"`
}

// Variant is one mutant: a target removed one way.
type Variant struct {
	Function string `json:"function"`
	How      string `json:"how"`
	// Edit says what was changed; File is the mutant page, Dir its
	// judgement.
	Edit string `json:"edit,omitempty"`
	File string `json:"file,omitempty"`
	Dir  string `json:"dir,omitempty"`
	// Built is false when the removal could not be made (Reason says
	// why: no call statement, other references); Loaded false when the
	// mutant did not load (Reason: the capture's failure, or page errors
	// the original did not have). Neither is scored.
	Built  bool   `json:"built"`
	Loaded bool   `json:"loaded"`
	Reason string `json:"reason,omitempty"`
	// Points kept on the target's items by each judge.
	Points Columns `json:"points"`
	// Quotes are the original body's lines checked against the mutant.
	Quotes []QuoteCheck `json:"quotes,omitempty"`
}

// QuoteCheck is one line of the removed builder's original body, quoted
// as a code-only judge would and checked against the mutant: source text
// by WorldBench's rules, and whether its lines ran.
type QuoteCheck struct {
	Line     int    `json:"line"`
	Quote    string `json:"quote"`
	Verified bool   `json:"verified"`
	Ran      *bool  `json:"ran"`
	// Refused is the check's refusal (not_in_source, not_run, a hint).
	Refused string `json:"refused,omitempty"`
}

// Run judges the world at path, picks the targets, builds every removal
// of every target, judges each mutant's changed biomes and tallies the
// points each judge kept. Files go under out: original/, each variant's
// <function>-<how>/ (the mutant as world.html and its judgement),
// mutate.json and report.html. The error is for infrastructure and for
// user input (a --function the world lacks).
func Run(ctx context.Context, b *browser.Browser, res *resolve.Resolver, path, out string, o Options) (*Report, error) {
	html, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the world: %w", err)
	}
	builders, skipped := jsmutate.Builders(html)
	if len(builders) == 0 {
		why := "it has no named function"
		if len(skipped) > 0 {
			why = "its scripts do not parse: " + strings.Join(skipped, "; ")
		}
		return nil, fmt.Errorf("%s: nothing to remove: %s", path, why)
	}
	withModels := !o.Judge.Offline && o.Judge.Models != nil
	rep := &Report{World: path, Rubric: o.Judge.Rubric.Name, Mode: "offline"}
	if withModels {
		rep.Mode = "models"
	}
	var targets []*Target
	if len(o.Functions) > 0 {
		if targets, err = byName(builders, o.Functions); err != nil {
			return nil, err
		}
		rep.TargetsFrom = FromFlag
	}
	origDir := filepath.Join(out, "original")
	if err := os.MkdirAll(origDir, 0o755); err != nil {
		return nil, fmt.Errorf("making %s: %w", origDir, err)
	}
	orig, err := worldjudge.Judge(ctx, b, res, path, origDir, o.Judge)
	if err != nil {
		return nil, fmt.Errorf("judging the original: %w", err)
	}
	if err := worldjudge.Write(origDir, orig); err != nil {
		return nil, err
	}
	rep.Original = Original{Dir: origDir, Status: orig.Status}
	if orig.Capture != nil {
		rep.Original.Errors = orig.Capture.Errors
	}
	if orig.Status != worldjudge.Complete {
		return nil, fmt.Errorf("the original world was not captured to the end (%s: %s): nothing to compare a mutant with", orig.Status, orig.Reason)
	}
	switch {
	case len(targets) > 0:
		// named by the user; their items, with models, from the quotes
		if withModels {
			mapped := byQuotes(builders, orig, string(html))
			for _, t := range targets {
				for _, m := range mapped {
					if m.Function == t.Function {
						for _, it := range m.Items {
							t.addItem(it, "")
						}
					}
				}
			}
		}
	case withModels:
		targets, rep.TargetsFrom = byQuotes(builders, orig, string(html)), FromQuotes
		if len(targets) == 0 {
			targets, rep.TargetsFrom = byKeywords(builders, o.Judge.Rubric, string(html)), FromKeywords
			rep.Note = "no verified quote of the code probe lies in a builder function: targets from the rubric's keyword hints"
		}
	default:
		targets, rep.TargetsFrom = byKeywords(builders, o.Judge.Rubric, string(html)), FromKeywords
		rep.Note = "offline: targets from the rubric's keyword hints (biome ids, scope aliases, item ids); no item is mapped to code without the code probe, so only the quote table is measured"
	}
	if len(targets) == 0 {
		return nil, errors.New("no target: no builder function matches the rubric's hints; name some with --function")
	}
	rep.Targets = targets
	for _, t := range targets {
		rep.Original.Points.add(columns(orig, t.Items))
	}
	for _, t := range targets {
		for _, how := range jsmutate.Removals {
			v, err := variant(ctx, b, res, html, orig, t, how, out, o)
			if err != nil {
				return nil, err
			}
			rep.Variants = append(rep.Variants, v)
		}
	}
	rep.Points, rep.Quotes = table(rep)
	return rep, nil
}

// variant builds, loads and judges one removal.
func variant(ctx context.Context, b *browser.Browser, res *resolve.Resolver, html []byte, orig *worldjudge.Report, t *Target, how, out string, o Options) (Variant, error) {
	v := Variant{Function: t.Function, How: how}
	page, desc, err := jsmutate.Remove(html, t.Function, how)
	if err != nil {
		v.Reason = err.Error()
		return v, nil
	}
	v.Built, v.Edit = true, desc
	v.Dir = filepath.Join(out, t.Function+"-"+how)
	if err := os.MkdirAll(v.Dir, 0o755); err != nil {
		return v, fmt.Errorf("making %s: %w", v.Dir, err)
	}
	v.File = filepath.Join(v.Dir, "world.html")
	if err := atomicfile.Write(v.File, page); err != nil {
		return v, err
	}
	jo := o.Judge
	jo.Rubric = changed(o.Judge.Rubric, t)
	rep, err := worldjudge.Judge(ctx, b, res, v.File, v.Dir, jo)
	if err != nil {
		return v, fmt.Errorf("judging %s: %w", v.File, err)
	}
	if err := worldjudge.Write(v.Dir, rep); err != nil {
		return v, err
	}
	v.Loaded = true
	switch {
	case rep.Status != worldjudge.Complete:
		v.Loaded, v.Reason = false, "the mutant was not captured to the end: "+rep.Reason
	case rep.Capture != nil:
		if e := newErrors(orig.Capture.Errors, rep.Capture.Errors); len(e) > 0 {
			v.Loaded, v.Reason = false, "the mutant throws what the original did not: "+strings.Join(e, "; ")
		}
	}
	if !v.Loaded {
		return v, nil
	}
	v.Points = columns(rep, t.Items)
	v.Quotes = checkQuotes(string(html), string(page), rep, t, o.Judge.Rubric)
	return v, nil
}

func newErrors(before, after []string) []string {
	had := map[string]bool{}
	for _, e := range before {
		had[e] = true
	}
	var out []string
	for _, e := range after {
		if !had[e] {
			out = append(out, e)
		}
	}
	return out
}

// changed is the rubric cut to what a mutant is judged on again: the
// target's biomes in WC003 and WC004 (every item and forbidden item of
// those biomes, so that their points are the same), and its WC005 items.
// WC001 and WC002 are left out. The biomes stay (blind identification
// names them all, as in the original judgement).
func changed(r *rubric.Rubric, t *Target) *rubric.Rubric {
	sub := *r
	sub.Tests = nil
	items := map[string]bool{}
	for _, it := range t.Items {
		items[it.key()] = true
	}
	for _, tt := range r.Tests {
		if !removable[tt.ID] {
			continue
		}
		nt := tt
		nt.Items, nt.Forbidden, nt.Parts = nil, nil, nil
		for _, it := range tt.Items {
			if (it.Biome != "" && contains(t.Biomes, it.Biome)) || items[tt.ID+"/"+it.Biome+"/"+it.ID] {
				nt.Items = append(nt.Items, it)
			}
		}
		for _, f := range tt.Forbidden {
			if f.Biome != "" && contains(t.Biomes, f.Biome) {
				nt.Forbidden = append(nt.Forbidden, f)
			}
		}
		if len(nt.Items) > 0 {
			sub.Tests = append(sub.Tests, nt)
		}
	}
	return &sub
}

// checkQuotes quotes every substantive line of the builder's original
// body (8 characters or more without whitespace, not only a comment or
// brackets) and checks each against the mutant's source by WorldBench's
// rules and against the mutant's coverage.
func checkQuotes(orig, mutant string, rep *worldjudge.Report, t *Target, r *rubric.Rubric) []QuoteCheck {
	rules := quote.Rules{MinChars: r.Quote.MinChars, MinMatchShare: r.Quote.MinMatchShare, MinPrefixShare: r.Quote.MinPrefixShare}
	src := quote.NewSource(mutant)
	lines := strings.Split(orig, "\n")
	var out []QuoteCheck
	for l := t.Body[0]; l <= t.Body[1] && l <= len(lines); l++ {
		q := strings.TrimSpace(lines[l-1])
		if l == t.Body[0] {
			// the line that opens the body: what follows its brace
			if i := strings.LastIndex(q, "{"); i >= 0 {
				q = strings.TrimSpace(q[i+1:])
			}
		}
		if len(quote.Normalize(strings.Trim(q, "{}();"))) < r.Quote.MinChars || probe.Hint(q) != "" {
			continue
		}
		// No repair: a line of the removed code is quoted as it was.
		qc := QuoteCheck{Line: l, Quote: q}
		v := src.Check(q, rules)
		switch {
		case !v.Verified:
			qc.Refused = v.Reason
		case rep.Coverage != nil:
			qc.Verified = true
			ran := rep.Coverage.Quote(v).Ran
			qc.Ran = &ran
			if !ran {
				qc.Refused = probe.RefusedNotRun
			}
		default:
			qc.Verified = true
		}
		out = append(out, qc)
	}
	return out
}
