package report

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/worldprobe/worldprobe/internal/result"
)

// WorldRow is one model's world-judged trials of one task (task.yaml
// judge:): how many there are, the mean closed score out of the rubric's
// points, and how many are still open (some point unjudged) — an open
// score is shown as open, never as zero.
type WorldRow struct {
	Model  string  `json:"model"`
	Task   string  `json:"task"`
	Trials int     `json:"trials"`
	Max    float64 `json:"max"`
	// Closed counts the trials whose score closed; Mean is their mean
	// score (nil when none closed).
	Closed int      `json:"closed"`
	Mean   *float64 `json:"mean"`
	// Open counts the trials with points still unjudged; OpenJudged and
	// OpenEarned sum what their judged points were worth and earned.
	Open       int     `json:"open"`
	OpenJudged float64 `json:"open_judged"`
	OpenEarned float64 `json:"open_earned"`
	// Failed counts the trials whose world was not captured to the end
	// (a crash, a hang: their scores are as far as the capture went).
	Failed int `json:"failed"`
}

// worldRows groups the world-judged trials by model and task, in order.
func worldRows(trials []*result.Trial) []WorldRow {
	byKey := map[string]*WorldRow{}
	sums := map[string]float64{}
	var keys []string
	for _, t := range trials {
		w := t.World
		if w == nil || t.Outcome == result.OutcomeInfra {
			continue
		}
		model := columnOf(t)
		k := model + "\x00" + t.Task
		r, ok := byKey[k]
		if !ok {
			r = &WorldRow{Model: model, Task: t.Task, Max: w.Max}
			byKey[k] = r
			keys = append(keys, k)
		}
		r.Trials++
		if w.Status != "complete" {
			r.Failed++
		}
		if w.Earned != nil {
			r.Closed++
			sums[k] += *w.Earned
		} else {
			r.Open++
			r.OpenJudged += w.Judged
			r.OpenEarned += w.EarnedOfJudged
		}
	}
	sort.Strings(keys)
	out := make([]WorldRow, 0, len(keys))
	for _, k := range keys {
		r := byKey[k]
		if r.Closed > 0 {
			m := sums[k] / float64(r.Closed)
			r.Mean = &m
		}
		out = append(out, *r)
	}
	return out
}

// worldSection is the leaderboard's table of world scores (nil without
// world-judged trials).
func worldSection(rows []WorldRow) *section {
	if len(rows) == 0 {
		return nil
	}
	s := &section{ID: "world", Title: "World judge scores",
		Intro: "Tasks judged against a rubric (task.yaml judge:; docs/judge.md): each world's points out of the rubric's. A score stays open while any of its halves is unjudged (offline, every model half): an open score is shown as open with what its judged points earned, never as zero.",
		Head:  []string{"model", "task", "trials", "score", "open"}}
	for _, r := range rows {
		score := "—"
		if r.Mean != nil {
			score = fmt.Sprintf("%s / %s", points(*r.Mean), points(r.Max))
		}
		open := "0"
		if r.Open > 0 {
			open = fmt.Sprintf("%d open: %s of %s judged points earned", r.Open, points(r.OpenEarned), points(r.OpenJudged))
		}
		if r.Failed > 0 {
			open += fmt.Sprintf("; %d not captured to the end", r.Failed)
		}
		s.Rows = append(s.Rows, []string{r.Model, r.Task, fmt.Sprint(r.Trials), score, open})
	}
	return s
}

// worldText is a world score for a chip: "212.5/280" or "open".
func worldText(w *result.World) string {
	if w.Earned != nil {
		return fmt.Sprintf("%s/%s", points(*w.Earned), points(w.Max))
	}
	return "open"
}

// worldTitle says a world score in full.
func worldTitle(w *result.World) string {
	var b strings.Builder
	b.WriteString("world judge: " + w.WorldScore.String())
	if w.Status != "complete" {
		fmt.Fprintf(&b, " (%s: %s)", w.Status, w.Reason)
	}
	return b.String()
}

// points is a number of points to the hundredth, without trailing zeros.
func points(x float64) string { return strconv.FormatFloat(math.Round(x*100)/100, 'f', -1, 64) }
