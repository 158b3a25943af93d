package capture

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/worldprobe/worldprobe/internal/worldjudge/measure"
)

// lightProbes is how many intervals each gap between two time samples is
// cut into by light probes: one probe in the middle of each gap, each an
// extra drawn frame (the time samples are probes too, drawn anyway).
const lightProbes = 2

// minLengthFit is the least share of the light probes' variance a day
// length must explain to be used, maxLengthRepeat the most the probes may
// differ from themselves one day later (a share of their range).
const (
	minLengthFit    = 0.5
	maxLengthRepeat = 0.1
)

// seasonSpan is how much page time, in horizons, the season pass may walk
// through looking for each season at the day's time of day.
const seasonSpan = 4

// lightAt steps to frame f (the frames before it not drawn), draws it and
// returns the light probe the capture's hook read right after the render
// to the screen: the mean luma of the lit pixels of the right 80 % of the
// drawing buffer (capture/hook.js), -1 when the page drew nothing the hook
// saw. The day's length is fitted to these (dayLength): a read of a few
// thousand pixels, no screenshot.
func (k *capturer) lightAt(ctx context.Context, f int) (float64, error) {
	if n := f - k.frame() - 1; n > 0 {
		if _, err := k.advance(ctx, n, false); err != nil {
			return 0, err
		}
	}
	var armed bool
	arm := fmt.Sprintf(`window.__wj ? window.__wj.armLuma(%d) : false`, k.o.Pixels.LitLuma.VoidMax)
	if err := k.s.Eval(ctx, k.limit(), arm, &armed); err != nil {
		return 0, err
	}
	if _, err := k.advance(ctx, 1, true); err != nil {
		return 0, err
	}
	if !armed {
		return -1, nil
	}
	var l float64
	if err := k.s.Eval(ctx, k.limit()+k.gpuLimit(), `window.__wj.takeLuma()`, &l); err != nil {
		return 0, err
	}
	return l, nil
}

// dayLength fits the day's length to the light probes (measure.DayLength):
// periods from two probe gaps to the probes' whole span, used when the
// fit explains at least half their variance and the probes come back
// after it (about 1.3 days probed at least; they differ from themselves a
// day later by at most a tenth of their range).
func (k *capturer) dayLength(frames []int, lumas []float64) {
	dn := k.c.DayNight
	if dn == nil || len(frames) < 4 {
		return
	}
	gap := frames[1] - frames[0]
	p, fit, repeat := measure.DayLength(frames, lumas, 2*gap, frames[len(frames)-1]-frames[0])
	dn.LengthFit, dn.LengthRepeat = fit, repeat
	if p > 0 && fit >= minLengthFit && repeat >= 0 && repeat <= maxLengthRepeat {
		k.dayFrames = p
		dn.LengthMs = measure.Round(float64(p)*1000/k.o.FPS, 3)
	}
}

// seasonViews takes the season views at the day's time of day, as
// WorldBench renders each season at the day's tod: in a fresh document,
// the page is stepped through the frames day + k × the day's length
// (every k with a frame from 1 to seasonSpan horizons), and at each the
// page's UI is read; the first frame at which it names a season (more
// often than the time sample naming it least) is that season's view,
// season_<name>, a screenshot with the UI as the time samples are. A
// season no such frame shows keeps the first time sample naming it, and
// so do all of them when the day's length is unknown, the night not
// pinned, or the capture runs on the real clock (the note says which).
func (k *capturer) seasonViews(ctx context.Context, day View) error {
	c, o := k.c, k.o
	if len(c.Seasons) < 2 {
		return nil
	}
	why := ""
	switch {
	case o.RealTime:
		why = "the capture ran on the real clock"
	case c.DayNight == nil || !c.DayNight.Pinned:
		why = "the night was not pinned"
	case k.dayFrames == 0:
		why = fmt.Sprintf("no day length was found in the light probes (fit %.2f, at least %.2f needed; repeat %.2f a day later, at most %.2f, -1 when less than about 1.3 days were probed)",
			c.DayNight.LengthFit, minLengthFit, c.DayNight.LengthRepeat, maxLengthRepeat)
	}
	if why != "" {
		c.SeasonsNote += "; not at the day's time of day: " + why
		return nil
	}
	if err := k.s.Reload(ctx); err != nil {
		return fmt.Errorf("reload for the seasons: %w", pageErr{err})
	}
	k.doc++
	k.rtFrames, k.hidden = 0, false
	if !k.s.Loaded() {
		return fmt.Errorf("reload for the seasons: the document failed: %s", k.s.Log().MainDocFailure)
	}
	p := k.dayFrames
	limit := int(seasonSpan * o.Horizon * o.FPS)
	need := slices.Clone(c.Seasons)
	framed := map[string]string{}
	f := day.Frame - (day.Frame-1)/p*p
	for ; f <= limit && len(need) > 0; f += p {
		// The frames before f are stepped undrawn, f drawn (one Step).
		if _, err := k.advance(ctx, max(1, f-k.frame()), true); err != nil {
			return fmt.Errorf("the seasons at %.2f s: %w", float64(f)/o.FPS, pageErr{err})
		}
		words := k.seasonWords(ctx)
		var shown []string
		for _, s := range need {
			if words[s] > k.seasonLeast[s] {
				shown = append(shown, s)
			}
		}
		if len(shown) == 0 {
			continue
		}
		name := "season_" + shown[0]
		if _, err := k.shot(ctx, name, "season"); err != nil {
			return fmt.Errorf("%s: %w", name, pageErr{err})
		}
		c.Views[len(c.Views)-1].Seasons = shown
		for _, s := range shown {
			framed[s] = name
			need = slices.DeleteFunc(need, func(x string) bool { return x == s })
		}
	}
	for i, a := range c.Aliases {
		if v, ok := framed[strings.TrimPrefix(a.Name, "season_")]; ok && strings.HasPrefix(a.Name, "season_") {
			c.Aliases[i].Of = v
		}
	}
	c.SeasonsNote = fmt.Sprintf("the page's UI named %d seasons as its clock ran (%.0f s sampled); each season view is taken at the day's time of day: the first frame day + k × the day's length (%.2f s, fitted to the light probes) at which the UI names the season, within %.0f s",
		len(c.Seasons), o.Horizon, c.DayNight.LengthMs/1000, seasonSpan*o.Horizon)
	if len(need) > 0 {
		c.SeasonsNote += fmt.Sprintf("; %s never fell at that time of day there: the first time sample naming it instead", strings.Join(need, ", "))
	}
	return k.takeCoverage(ctx)
}
