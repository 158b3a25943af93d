// Package storetest is the conformance suite every store.Store passes:
// the SQLite store and the PostgreSQL store run the same cases
// (internal/store's TestConformance), as contracttest is for pages.
package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/result"
	"github.com/worldprobe/worldprobe/internal/store"
)

// Opener opens the same store (the same, initially empty, database) each
// time it is called: a case that closes the store and calls it again must
// find what it saved.
type Opener func() (store.Store, error)

// Fresh makes an empty database for one case and returns its Opener.
type Fresh func(t *testing.T) Opener

// Run runs every case against stores made by fresh.
func Run(t *testing.T, fresh Fresh) {
	cases := []struct {
		name string
		run  func(t *testing.T, open Opener)
	}{
		{"RoundTripReplaceReopen", roundTrip},
		{"Delete", deleteCase},
		{"Find", find},
		{"ConcurrentSavesOfOneKey", concurrentSaves},
		{"Empty", empty},
		{"Planned", planned},
		{"ScoresAndDesign", scores},
		{"WorldScore", worldScore},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.run(t, fresh(t)) })
	}
}

func mustOpen(t *testing.T, open Opener) store.Store {
	t.Helper()
	s, err := open()
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s
}

// sample is a trial with every stored column set and two assertions.
func sample(key string) *result.Trial {
	return &result.Trial{Key: key, Task: "simulation/bouncing-ball", Category: "simulation", Difficulty: "D2",
		Model: "oracle", Candidate: "c.html", Sample: 2, Variant: "v1", Outcome: result.OutcomeOK, Pass: false,
		VCov: 0.5, ACov: 1, SCov: 0.5, TCov: 0, CrashKind: "", Attribution: "physics_violation", DurationMs: 1234.5,
		StartedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Assertions: []result.Assertion{{Probe: "p", Level: "state", Status: result.StatusPass, Message: ""},
			{Probe: "q", Level: "invariant", Status: result.StatusFail, Message: "x = 2, want < 1", Expr: "x < 1"}}}
}

// A saved trial comes back equal; saving its key again replaces it (its
// assertions too); closing and reopening keeps everything; Trials is
// ordered by key.
func roundTrip(t *testing.T, open Opener) {
	ctx := context.Background()
	s, err := open()
	require.NoError(t, err)
	tr := sample("k1")
	require.NoError(t, s.Save(ctx, tr))
	tr0 := *sample("k0")
	tr0.Outcome, tr0.CrashKind, tr0.Pass = result.OutcomeCrash, result.CrashNoCandidate, false
	require.NoError(t, s.Save(ctx, &tr0))
	tr.VCov, tr.Pass = 1, true
	tr.Assertions = tr.Assertions[:1]
	require.NoError(t, s.Save(ctx, tr)) // replaces k1
	require.NoError(t, s.Close())

	s = mustOpen(t, open)
	got, err := s.Trials(ctx)
	require.NoError(t, err)
	require.Len(t, got, 2)
	require.Equal(t, tr0, *got[0])
	require.Equal(t, *tr, *got[1])
	require.Len(t, got[1].Assertions, 1)
}

// A world-judged trial's score comes back as saved: an open score (no
// earned points) stays open, a closed one keeps its points, per test too.
func worldScore(t *testing.T, open Opener) {
	ctx := context.Background()
	s := mustOpen(t, open)
	earned := 212.25
	closed := sample("w1")
	closed.World = &result.World{Rubric: "worldbench/island", Mode: "models", Status: "complete",
		WorldScore: result.WorldScore{Max: 280, Earned: &earned, Judged: 280, EarnedOfJudged: 212.25},
		Tests:      []result.WorldTest{{ID: "WC001", WorldScore: result.WorldScore{Max: 40, Earned: &earned, Judged: 40, EarnedOfJudged: 32.5}}},
		Report:     "judge.html", JSON: "judge.json"}
	openScore := sample("w2")
	openScore.World = &result.World{Rubric: "worldbench/island", Mode: "offline", Status: "partial", Reason: "the page stopped responding",
		WorldScore: result.WorldScore{Max: 280, Judged: 3, EarnedOfJudged: 2, Unjudged: 277}, Tests: []result.WorldTest{}}
	require.NoError(t, s.Save(ctx, closed))
	require.NoError(t, s.Save(ctx, openScore))
	require.NoError(t, s.Close())
	s = mustOpen(t, open)
	got, err := s.Trials(ctx)
	require.NoError(t, err)
	require.Len(t, got, 2)
	require.Equal(t, closed.World, got[0].World)
	require.Equal(t, openScore.World, got[1].World)
	require.Nil(t, got[1].World.Earned, "an open score stays open, never 0")
}

// Delete removes one trial, leaves the others, and is no error for a key
// not stored; a deleted key can be saved again.
func deleteCase(t *testing.T, open Opener) {
	ctx := context.Background()
	s := mustOpen(t, open)
	for _, k := range []string{"a", "b"} {
		require.NoError(t, s.Save(ctx, sample(k)))
	}
	require.NoError(t, s.Delete(ctx, "a"))
	require.NoError(t, s.Delete(ctx, "not-stored"))
	got, err := s.Trials(ctx)
	require.NoError(t, err)
	require.Equal(t, []string{"b"}, keys(got))
	require.NoError(t, s.Save(ctx, sample("a")))
	got, err = s.Trials(ctx)
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b"}, keys(got))
	require.Len(t, got[0].Assertions, 2)
}

// Find returns the stored trials among the keys asked, ordered by key,
// leaving out keys not stored; no keys, no trials.
func find(t *testing.T, open Opener) {
	ctx := context.Background()
	s := mustOpen(t, open)
	for _, k := range []string{"c", "a", "b", "B"} {
		require.NoError(t, s.Save(ctx, sample(k)))
	}
	got, err := s.Find(ctx, []string{"c", "x", "a", "B"})
	require.NoError(t, err)
	require.Equal(t, []string{"B", "a", "c"}, keys(got)) // byte order
	require.Equal(t, *sample("a"), *got[1])
	got, err = s.Find(ctx, nil)
	require.NoError(t, err)
	require.Empty(t, got)
}

// Saves of one key from many goroutines at once (two workers finishing
// the same rescued trial) leave exactly one trial, whole: its assertions
// are those of one of the saves.
func concurrentSaves(t *testing.T, open Opener) {
	ctx := context.Background()
	s := mustOpen(t, open)
	const n = 8
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tr := sample("same")
			tr.DurationMs = float64(i)
			tr.Assertions = nil
			for j := range i + 1 {
				tr.Assertions = append(tr.Assertions, result.Assertion{Probe: fmt.Sprint("p", j), Level: "state", Status: result.StatusPass})
			}
			errs[i] = s.Save(ctx, tr)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	got, err := s.Trials(ctx)
	require.NoError(t, err)
	require.Len(t, got, 1)
	i := int(got[0].DurationMs)
	require.Len(t, got[0].Assertions, i+1, "the assertions are those of the save whose row was kept")
}

// A new store holds no trial.
func empty(t *testing.T, open Opener) {
	s := mustOpen(t, open)
	got, err := s.Trials(context.Background())
	require.NoError(t, err)
	require.Empty(t, got)
}

// A new store has no plan (0); SetPlanned records the plan's size, a
// second call replaces it, and it survives closing and reopening.
func planned(t *testing.T, open Opener) {
	ctx := context.Background()
	s, err := open()
	require.NoError(t, err)
	n, err := s.Planned(ctx)
	require.NoError(t, err)
	require.Equal(t, 0, n)
	require.NoError(t, s.SetPlanned(ctx, 12))
	require.NoError(t, s.SetPlanned(ctx, 7))
	require.NoError(t, s.Close())
	s = mustOpen(t, open)
	n, err = s.Planned(ctx)
	require.NoError(t, err)
	require.Equal(t, 7, n)
}

// A trial's unjudged count and design score are kept in columns of their
// own, apart from pass: a rated design's mean and model, an unjudged
// design's reason with no score (NULL, not 0), no design at all; saving a
// key again replaces them. The document keeps the whole design, ratings
// included.
func scores(t *testing.T, open Opener) {
	ctx := context.Background()
	s := mustOpen(t, open)
	rated := sample("rated")
	rated.Pass, rated.Unjudged = true, 2
	rated.Design = &result.Design{Score: 3.2, Model: "openai/gpt-4.1", Frames: []string{"design-p-1.png"},
		Ratings: []result.DesignRating{{Heuristic: "comfort", Score: 4, Reason: "level horizon"}, {Heuristic: "legibility", Score: 2}}}
	unjudged := sample("unjudged")
	unjudged.Design = &result.Design{Unjudged: "no visual_judge model is configured"}
	none := sample("none")
	for _, tr := range []*result.Trial{rated, unjudged, none} {
		require.NoError(t, s.Save(ctx, tr))
	}
	score := 3.2
	want := []store.Score{
		{Key: "none", Model: "oracle", Task: "simulation/bouncing-ball"},
		{Key: "rated", Model: "oracle", Task: "simulation/bouncing-ball", Pass: true, Unjudged: 2, Design: &score, DesignModel: "openai/gpt-4.1"},
		{Key: "unjudged", Model: "oracle", Task: "simulation/bouncing-ball", DesignUnjudged: "no visual_judge model is configured"},
	}
	got, err := s.Scores(ctx)
	require.NoError(t, err)
	require.Equal(t, want, got)
	docs, err := s.Find(ctx, []string{"rated"})
	require.NoError(t, err)
	require.Equal(t, *rated, *docs[0])

	rated.Design, rated.Unjudged = &result.Design{Unjudged: "the reply has 9 ratings, want 10"}, 0
	require.NoError(t, s.Save(ctx, rated))
	got, err = s.Scores(ctx)
	require.NoError(t, err)
	want[1] = store.Score{Key: "rated", Model: "oracle", Task: "simulation/bouncing-ball", Pass: true, DesignUnjudged: "the reply has 9 ratings, want 10"}
	require.Equal(t, want, got)
}

func keys(ts []*result.Trial) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Key)
	}
	return out
}
