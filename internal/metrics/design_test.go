package metrics

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/result"
)

func rated(score float64, ratings ...int) *result.Design {
	d := &result.Design{Score: score, Model: "openai/gpt-4.1"}
	for i, r := range ratings {
		d.Ratings = append(d.Ratings, result.DesignRating{Heuristic: []string{"comfort", "legibility", "feedback"}[i], Score: r})
	}
	return d
}

// The design score is the mean over rated trials, each heuristic's mean
// over the trials that rated it; unjudged designs are counted, not
// scored; infrastructure errors and trials without a design are left
// out, and pass plays no part.
func TestDesign(t *testing.T) {
	ts := []*result.Trial{
		{Outcome: result.OutcomeOK, Pass: true, Design: rated(3.2, 4, 2, 3)},
		{Outcome: result.OutcomeOK, Pass: false, Design: rated(4, 5, 3)},
		{Outcome: result.OutcomeCrash, Design: &result.Design{Unjudged: "no visual_judge model is configured"}},
		{Outcome: result.OutcomeOK, Pass: true},
		{Outcome: result.OutcomeInfra, Design: rated(1, 1, 1, 1)},
	}
	mean := 3.6
	require.Equal(t, &DesignScore{Rated: 2, Unjudged: 1, Mean: &mean, Heuristics: []HeuristicMean{
		{Heuristic: "comfort", Mean: 4.5, Trials: 2}, {Heuristic: "legibility", Mean: 2.5, Trials: 2}, {Heuristic: "feedback", Mean: 3, Trials: 1}}},
		Design(ts))

	// Only unjudged: counted, no mean.
	require.Equal(t, &DesignScore{Unjudged: 1}, Design(ts[2:4]))
	// Not asked for: no design score at all.
	require.Nil(t, Design(ts[3:]))
	require.Nil(t, Design(nil))
}
