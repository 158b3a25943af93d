package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/worldprobe/worldprobe/internal/atomicfile"
	"github.com/worldprobe/worldprobe/internal/metrics"
	"github.com/worldprobe/worldprobe/internal/result"
)

// The leaderboard files, written beside report.html.
const (
	LeaderboardMarkdown = "leaderboard.md"
	LeaderboardJSON     = "leaderboard.json"
)

// Leaderboard is what the leaderboard files hold: a metrics.Board with
// its title.
type Leaderboard struct {
	Title string `json:"title"`
	// Partial, when set, says why the board covers only part of the
	// planned trials.
	Partial string `json:"partial,omitempty"`
	metrics.Board
	// World are the world judge's scores of the tasks judged against a
	// rubric, by model and task (world.go).
	World []WorldRow `json:"world,omitempty"`
}

// NewLeaderboard computes the leaderboard of trials.
func NewLeaderboard(title, partial string, trials []*result.Trial, o metrics.BoardOptions) (*Leaderboard, error) {
	b, err := metrics.NewBoard(trials, o)
	if err != nil {
		return nil, fmt.Errorf("computing the leaderboard: %w", err)
	}
	return &Leaderboard{Title: title, Partial: partial, Board: b, World: worldRows(trials)}, nil
}

// WriteLeaderboards writes l as dir/leaderboard.md and dir/leaderboard.json,
// each atomically.
func WriteLeaderboards(dir string, l *Leaderboard) error {
	var md bytes.Buffer
	Markdown(&md, l)
	js, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding the leaderboard: %w", err)
	}
	if err := atomicfile.Write(filepath.Join(dir, LeaderboardMarkdown), md.Bytes()); err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, LeaderboardJSON), append(js, '\n'))
}

// Markdown writes the leaderboard as a Markdown document: the main table
// (V-Cov with its interval, A/S/T-Cov, pass@k, crashes, RoA, TEM), then
// V-Cov and pass@1 by category, difficulty and subdomain, Core vs. Robust,
// first-shot vs. after repair, failure attribution, and cost and time —
// each section only when the trials have something for it.
func Markdown(w io.Writer, l *Leaderboard) {
	fmt.Fprintf(w, "# %s\n\n", l.Title)
	if l.Partial != "" {
		fmt.Fprintf(w, "**Partial:** %s\n\n", l.Partial)
	}
	fmt.Fprintf(w, "%s\n\n", boardIntro(l.Board))
	main, sections := boardSections(l.Board)
	if main == nil {
		return
	}
	if ws := worldSection(l.World); ws != nil {
		sections = append(sections, *ws)
	}
	table(w, main.Head, main.Rows)
	for _, s := range sections {
		fmt.Fprintf(w, "\n## %s\n\n", s.Title)
		if s.Intro != "" {
			fmt.Fprintf(w, "%s\n", s.Intro)
			if s.Head != nil {
				fmt.Fprintln(w)
			}
		}
		if s.Head != nil {
			table(w, s.Head, s.Rows)
		}
		if len(s.Notes) > 0 {
			fmt.Fprintf(w, "\n- %s\n", strings.Join(s.Notes, "\n- "))
		}
	}
}

// section is one table of the leaderboard, as both the Markdown and the
// HTML report show it: a title, a sentence before the table, the table
// (first column left-aligned, the others numbers) and notes after it.
type section struct {
	// ID is the section's anchor in the HTML report.
	ID, Title string
	Intro     string
	Head      []string
	Rows      [][]string
	Notes     []string
}

// boardIntro is the sentence that heads the leaderboard: how many trials
// it covers and how its numbers were computed.
func boardIntro(b metrics.Board) string {
	infra := ""
	if b.Infra > 0 {
		infra = fmt.Sprintf(" (%d infrastructure error(s) left out: not scored)", b.Infra)
	}
	return fmt.Sprintf("%d scored trial(s)%s. V-Cov's 95%% interval: percentile bootstrap over tasks, %d resamples, seed %d. "+
		"pass@k: unbiased, per task then averaged, where every task has k samples. RoA at R = %s USD/h. "+
		"Every number is explained in docs/metrics.md.", b.Trials, infra, b.Bootstrap.Resamples, b.Bootstrap.Seed, num(b.Rate, 0))
}

// boardSections are the leaderboard's main table (nil when it has no
// rows) and the sections after it, in order, each only when the trials
// have something for it.
func boardSections(b metrics.Board) (*section, []section) {
	if len(b.Rows)+len(b.Feedback) == 0 {
		return nil, nil
	}
	var main *section
	if len(b.Rows) > 0 {
		head, rows := mainTable(b.Rows, b.Ks)
		main = &section{ID: "leaderboard", Head: head, Rows: rows}
	}
	var out []section
	for _, s := range []*section{
		breakdownSection(b, "category", func(r metrics.BoardRow) map[string]metrics.Scores { return r.ByCategory }),
		breakdownSection(b, "difficulty", func(r metrics.BoardRow) map[string]metrics.Scores { return r.ByDiff }),
		breakdownSection(b, "subdomain", func(r metrics.BoardRow) map[string]metrics.Scores { return r.BySubdomain }),
		robustSection(b),
		repairSection(b),
		attributionSection(b),
		economicsSection(b),
		designSection(b),
		feedbackSection(b),
	} {
		if s != nil {
			out = append(out, *s)
		}
	}
	return main, out
}

// mainTable is the leaderboard's table of rows: V-Cov with its interval,
// A/S/T-Cov, the pass@k the rows allow, crashes, RoA and TEM.
func mainTable(rs []metrics.BoardRow, allKs []int) (head []string, rows [][]string) {
	ks := shownKs(rs, allKs)
	head = []string{"model", "trials", "tasks", "V-Cov", "95% CI", "A-Cov", "S-Cov", "T-Cov"}
	for _, k := range ks {
		head = append(head, fmt.Sprintf("pass@%d", k))
	}
	head = append(head, "crashes", "RoA (USD/USD)", "TEM (h/h)")
	for _, r := range rs {
		ci := "n/a"
		if r.VCovCI != nil {
			ci = fmt.Sprintf("%s–%s", pct(r.VCovCI.Lo), pct(r.VCovCI.Hi))
		}
		cells := []string{r.Name(), fmt.Sprint(r.Trials), fmt.Sprint(r.Tasks), pct(r.VCov), ci, pct(r.ACov), pct(r.SCov), pct(r.TCov)}
		for _, k := range ks {
			cells = append(cells, optPct(r.PassAt(k)))
		}
		cells = append(cells, fmt.Sprint(r.Crashes), optNum(r.Economics.RoA.Value, 1), optNum(r.Economics.TEM.Value, 2))
		rows = append(rows, cells)
	}
	return head, rows
}

// feedbackSection is the leaderboard of the pages repaired with contract
// feedback, apart from every other row; its notes give each model's
// pass@1 gain over its first-shot pages.
func feedbackSection(b metrics.Board) *section {
	if len(b.Feedback) == 0 {
		return nil
	}
	head, rows := mainTable(b.Feedback, b.Ks)
	s := &section{ID: "feedback", Title: "Contract-feedback repair: a leaderboard of its own",
		Intro: "Pages repaired after the model was shown the messages of the checks its page failed (`worldprobe gen --repair-mode feedback`). " +
			"Those messages come from the hidden contract, so these rows are ranked here alone and never with the first-shot and error-only rows.",
		Head: head, Rows: rows}
	firstShot := map[string]metrics.BoardRow{}
	for _, r := range b.Rows {
		if r.Repair == "" {
			firstShot[r.Model] = r
		}
	}
	for _, r := range b.Feedback {
		if f, ok := firstShot[r.Model]; ok {
			s.Notes = append(s.Notes, fmt.Sprintf("%s: pass@1 %s first-shot, %s after feedback (%s)", r.Model, pct(f.Pass1), pct(r.Pass1), pts(r.Pass1-f.Pass1)))
		}
	}
	return s
}

// designSection is each row's design score (run --design), apart from
// the functional scores above it: the trials rated and unjudged, the mean
// score and each heuristic's mean rating; nil when no row has one.
func designSection(b metrics.Board) *section {
	var rs []metrics.BoardRow
	var heuristics []string
	seen := map[string]bool{}
	for _, r := range append(append([]metrics.BoardRow(nil), b.Rows...), b.Feedback...) {
		if r.Design == nil {
			continue
		}
		rs = append(rs, r)
		for _, h := range r.Design.Heuristics {
			if !seen[h.Heuristic] {
				seen[h.Heuristic] = true
				heuristics = append(heuristics, h.Heuristic)
			}
		}
	}
	if len(rs) == 0 {
		return nil
	}
	s := &section{ID: "design", Title: "Design score (XR)",
		Intro: "The recorded frames of XR trials rated by the visual_judge model on the ten heuristics of docs/xr-design.md (`run --design`), " +
			"1 poor to 5 excellent: the mean over rated trials, apart from pass and the coverages, which it never changes. " +
			"A trial without a model (or whose reply had no ten ratings) is unjudged, not scored.",
		Head: append([]string{"model", "rated", "unjudged", "design (1–5)"}, heuristics...)}
	for _, r := range rs {
		d := r.Design
		mean := "unjudged"
		if d.Mean != nil {
			mean = num(*d.Mean, 2)
		}
		cells := []string{r.Name(), fmt.Sprint(d.Rated), fmt.Sprint(d.Unjudged), mean}
		for _, h := range heuristics {
			cell := "–"
			for _, m := range d.Heuristics {
				if m.Heuristic == h {
					cell = num(m.Mean, 2)
				}
			}
			cells = append(cells, cell)
		}
		s.Rows = append(s.Rows, cells)
	}
	return s
}

// shownKs are the k of allKs that some row of rs has pass@k for.
func shownKs(rs []metrics.BoardRow, allKs []int) []int {
	var ks []int
	for _, k := range allKs {
		for _, r := range rs {
			if r.PassAt(k) != nil {
				ks = append(ks, k)
				break
			}
		}
	}
	return ks
}

// breakdownSection is V-Cov and pass@1 of every row by the keys of by, a
// column per key; nil when no row has a key.
func breakdownSection(b metrics.Board, what string, by func(metrics.BoardRow) map[string]metrics.Scores) *section {
	seen := map[string]bool{}
	for _, r := range b.Rows {
		for k := range by(r) {
			seen[k] = true
		}
	}
	if len(seen) == 0 {
		return nil
	}
	keys := sortedKeys(seen)
	s := &section{ID: "by-" + what, Title: "By " + what, Intro: "V-Cov · pass@1; – where the model has no trial.", Head: append([]string{"model"}, keys...)}
	for _, r := range b.Rows {
		cells := []string{r.Name()}
		for _, k := range keys {
			if sc, ok := by(r)[k]; ok && sc.Trials > 0 {
				cells = append(cells, pct(sc.VCov)+" · "+pct(sc.Pass1))
			} else {
				cells = append(cells, "–")
			}
		}
		s.Rows = append(s.Rows, cells)
	}
	return s
}

func robustSection(b metrics.Board) *section {
	var rows [][]string
	for _, r := range b.Rows {
		if r.Robust != nil {
			rows = append(rows, []string{r.Name(), pct(r.Core.VCov), pct(r.Robust.VCov), pts(r.Core.VCov - r.Robust.VCov),
				pct(r.Core.Pass1), pct(r.Robust.Pass1), fmt.Sprint(r.Robust.Tasks)})
		}
	}
	if len(rows) == 0 {
		return nil
	}
	return &section{ID: "robust", Title: "Core vs. Robust",
		Intro: "Core: the Core tasks that have Robust variants among the trials; Robust: those variants.",
		Head:  []string{"model", "Core V-Cov", "Robust V-Cov", "drop", "Core pass@1", "Robust pass@1", "variants"}, Rows: rows}
}

func repairSection(b metrics.Board) *section {
	repaired := false
	firstShot := map[string]metrics.BoardRow{}
	for _, r := range b.Rows {
		if r.Repair != "" {
			repaired = true
		} else {
			firstShot[r.Model] = r
		}
	}
	if !repaired {
		return nil
	}
	rows := append([]metrics.BoardRow(nil), b.Rows...)
	sort.SliceStable(rows, func(i, j int) bool {
		if rows[i].Model != rows[j].Model {
			return rows[i].Model < rows[j].Model
		}
		return rows[i].Repair < rows[j].Repair
	})
	s := &section{ID: "repair", Title: "First-shot vs. after repair", Head: []string{"model", "pages", "trials", "pass@1", "V-Cov", "pass@1 gain"}}
	for _, r := range rows {
		repair, gain := r.Repair, "–"
		if repair == "" {
			repair = "first-shot"
		} else if f, ok := firstShot[r.Model]; ok {
			gain = pts(r.Pass1 - f.Pass1)
		}
		s.Rows = append(s.Rows, []string{r.Model, repair, fmt.Sprint(r.Trials), pct(r.Pass1), pct(r.VCov), gain})
	}
	return s
}

// attributionOrder is the attributions of b's failed trials, most
// frequent over all rows first, ties by name.
func attributionOrder(b metrics.Board) []string {
	total := map[string]int{}
	for _, r := range b.Rows {
		for _, s := range r.Attributions.Shares {
			total[s.Attribution] += s.Count
		}
	}
	attrs := sortedKeys(total)
	sort.SliceStable(attrs, func(i, j int) bool { return total[attrs[i]] > total[attrs[j]] })
	return attrs
}

func attributionSection(b metrics.Board) *section {
	attrs := attributionOrder(b)
	if len(attrs) == 0 {
		return nil
	}
	s := &section{ID: "attribution", Title: "Failure attribution", Intro: "Share (count) of each model's failed trials, crashes included.",
		Head: append([]string{"model", "failed"}, attrs...)}
	for _, r := range b.Rows {
		cells := []string{r.Name(), fmt.Sprint(r.Attributions.Failed)}
		for _, a := range attrs {
			n := 0
			for _, sh := range r.Attributions.Shares {
				if sh.Attribution == a {
					n = sh.Count
				}
			}
			if n == 0 {
				cells = append(cells, "–")
			} else {
				cells = append(cells, fmt.Sprintf("%s (%d)", pct(r.Attributions.Share(a)), n))
			}
		}
		s.Rows = append(s.Rows, cells)
	}
	return s
}

// priced reports whether some row of b has a recorded cost or model time.
func priced(b metrics.Board) bool {
	for _, r := range b.Rows {
		if r.Economics.RoA.Trials > 0 || r.Economics.TEM.Trials > 0 {
			return true
		}
	}
	return false
}

func economicsSection(b metrics.Board) *section {
	s := &section{ID: "cost", Title: "Cost and time"}
	if !priced(b) {
		s.Intro = "RoA and TEM: n/a — no trial has a recorded generation cost or model time."
		return s
	}
	s.Intro = "RoA = Σ V-Cov·H_human·R / Σ C_model; TEM = Σ V-Cov·H_human / Σ H_model, over the scored trials " +
		"that have the record (\"with cost\", \"with time\" of \"scored\")."
	s.Head = []string{"model", "scored", "RoA (USD/USD)", "with cost", "cost (USD)", "TEM (h/h)", "with time", "model hours"}
	for _, r := range b.Rows {
		e := r.Economics
		s.Rows = append(s.Rows, []string{r.Name(), fmt.Sprint(e.Scored),
			optNum(e.RoA.Value, 1), fmt.Sprint(e.RoA.Trials), sum(e.RoA, 4),
			optNum(e.TEM.Value, 2), fmt.Sprint(e.TEM.Trials), sum(e.TEM, 4)})
		for _, na := range []struct{ what, why string }{{"RoA", e.RoA.NA}, {"TEM", e.TEM.NA}} {
			if na.why != "" {
				s.Notes = append(s.Notes, fmt.Sprintf("%s, %s: n/a — %s", r.Name(), na.what, na.why))
			}
		}
		if e.NoHours > 0 {
			s.Notes = append(s.Notes, fmt.Sprintf("%s: %d trial(s) of tasks without human hours, not measured", r.Name(), e.NoHours))
		}
	}
	return s
}

// table writes a Markdown table, the first column left-aligned and the
// others right-aligned.
func table(w io.Writer, head []string, rows [][]string) {
	fmt.Fprintf(w, "| %s |\n|---|", strings.Join(escape(head), " | "))
	for range head[1:] {
		fmt.Fprint(w, "---:|")
	}
	fmt.Fprintln(w)
	for _, r := range rows {
		fmt.Fprintf(w, "| %s |\n", strings.Join(escape(r), " | "))
	}
}

func escape(cells []string) []string {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = strings.ReplaceAll(c, "|", `\|`)
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func pts(x float64) string { return fmt.Sprintf("%.1f pts", 100*x) }

func num(x float64, decimals int) string { return fmt.Sprintf("%.*f", decimals, x) }

// sum is a ratio's denominator, – when no trial was measured (a sum
// over nothing is not a zero cost).
func sum(r metrics.Ratio, decimals int) string {
	if r.Trials == 0 {
		return "–"
	}
	return num(r.Denominator, decimals)
}

func optPct(x *float64) string {
	if x == nil {
		return "n/a"
	}
	return pct(*x)
}

func optNum(x *float64, decimals int) string {
	if x == nil {
		return "n/a"
	}
	return num(*x, decimals)
}
