package repair

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/gen"
	"github.com/worldprobe/worldprobe/internal/llm"
	"github.com/worldprobe/worldprobe/internal/task"
)

// TestRunRepairsGeneratedSamplesAndResumes: gen writes three first-shot
// samples (a page with a syntax error, a page without error, a reply
// without a page); the repair writes each as its own page of the
// error-only folder, with a gen.json that prices the first shot and the
// repair together; running again repairs nothing, and other rounds repair
// every page again.
func TestRunRepairsGeneratedSamplesAndResumes(t *testing.T) {
	tasks, err := task.Select([]string{filepath.Join("..", "..", "suites", "starter")},
		[]string{"rendering/fog-depth", "simulation/pendulum", "application/bar-chart"})
	require.NoError(t, err)
	require.Equal(t, []string{"application/bar-chart", "rendering/fog-depth", "simulation/pendulum"}, []string{tasks[0].ID, tasks[1].ID, tasks[2].ID})
	p := newProvider(t, "first_broken.md", "first_fixed.md", "prose_only.md", "claude_paren.md")
	m := &gen.Model{Spec: "generator", Slug: "openai-test-gpt", Role: llm.Generator, Name: "openai/test-gpt", Chat: p.model(t)}
	out := t.TempDir()
	ctx := context.Background()
	_, err = gen.Run(ctx, gen.Options{Tasks: tasks, Models: []*gen.Model{m}, Samples: 1, Out: out, Jobs: 1})
	require.NoError(t, err)

	d := &static{}
	var progress bytes.Buffer
	o := Options{Tasks: tasks, Models: []*gen.Model{m}, Samples: 1, Out: out, Mode: Errors, Rounds: 2, Jobs: 1, Diagnoser: d, Progress: &progress}
	sum, err := Plan(o)
	require.NoError(t, err)
	require.Equal(t, 3, sum.Planned)
	require.Len(t, sum.ToDo, 3)
	require.NoError(t, Execute(ctx, o, sum))
	require.Len(t, p.requests(), 4, "three first shots and one repair call")
	require.Equal(t, "[1/3] application/bar-chart openai-test-gpt+error-only sample 1: fixed in 1 round (1 call, 1 edit applied, 0 refused, $0.0060)\n"+
		"[2/3] rendering/fog-depth openai-test-gpt+error-only sample 1: no error: nothing sent\n"+
		"[3/3] simulation/pendulum openai-test-gpt+error-only sample 1: no first-shot page: nothing to repair\n", progress.String())

	dir := filepath.Join(out, "openai-test-gpt+error-only", "sample-1")
	require.Equal(t, dir, Dir(out, m, Errors, 1))
	read := func(dir, id string) (*gen.Record, string) {
		r, err := gen.ReadRecord(filepath.Join(dir, filepath.FromSlash(id)))
		require.NoError(t, err)
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(id), gen.PageFile))
		if err != nil {
			return r, ""
		}
		return r, string(b)
	}
	first, firstPage := read(gen.CandidatesDir(out, m, 1), "application/bar-chart")
	require.Equal(t, testPage(t, "broken.html"), firstPage, "the first-shot page stays where it is")
	fixed, page := read(dir, "application/bar-chart")
	require.Equal(t, testPage(t, "fixed.html"), page)
	require.FileExists(t, filepath.Join(dir, "application", "bar-chart", TranscriptFile))
	rr := fixed.Repaired.Rounds[0]
	want := *first
	want.Extraction, want.Repair, want.PageDigest = nil, "error-only", fixed.PageDigest
	want.TokensIn, want.TokensOut, want.Turns = 2000, 1000, 2
	want.CostUSD, want.LatencyMS = fixed.CostUSD, first.LatencyMS+rr.LatencyMS
	want.Repaired = &gen.RepairLog{Mode: "errors", MaxRounds: 2, End: gen.RepairFixed, Calls: 1, TokensIn: 1000, TokensOut: 500, CostUSD: rr.CostUSD, LatencyMS: rr.LatencyMS,
		FirstShot: gen.FirstShot{Attempt: 1, Status: gen.StatusDone, PageDigest: first.PageDigest, TokensIn: 1000, TokensOut: 500, CostUSD: first.CostUSD, LatencyMS: first.LatencyMS, Turns: 1},
		Rounds:    []gen.RepairRound{rr}}
	require.Equal(t, &want, fixed)
	require.InDelta(t, 0.012, fixed.CostUSD, 1e-12, "the first shot's $0.006 and the repair's")

	clean, page := read(dir, "rendering/fog-depth")
	require.Equal(t, testPage(t, "fixed.html"), page, "a page without errors is the first-shot page")
	require.Equal(t, gen.RepairNothingToFix, clean.Repaired.End)
	require.Empty(t, clean.Repaired.Rounds)
	require.Equal(t, 0, clean.Repaired.Calls)
	require.InDelta(t, 0.006, clean.CostUSD, 1e-12)

	none, page := read(dir, "simulation/pendulum")
	require.Empty(t, page)
	require.Equal(t, gen.StatusFailed, none.Status)
	require.Equal(t, gen.RepairNoPage, none.Repaired.End)
	require.Equal(t, "the first shot gave no page, so there is nothing to repair (the reply has no code block and no HTML document (236 characters of prose: \"The error says that `THREE.BoxGeometery` is not a constructor. This happens because the class is misspelled; in Three.js the class is called `BoxGeometry`. Rena…\"))", none.Error)

	sum, err = Plan(o)
	require.NoError(t, err)
	require.Equal(t, 3, sum.Kept)
	require.Empty(t, sum.ToDo, "running again repairs nothing")

	o.Rounds = 3
	sum, err = Plan(o)
	require.NoError(t, err)
	require.Len(t, sum.Again, 3)
	require.Equal(t, "it was repaired with --repair 2", sum.Again[0].Why)
}

func TestDirAndLabels(t *testing.T) {
	m := &gen.Model{Slug: "anthropic-claude-sonnet-4-5"}
	require.Equal(t, filepath.Join("gen", "anthropic-claude-sonnet-4-5+feedback", "sample-3"), Dir("gen", m, Feedback, 3))
	require.Equal(t, "error-only", Errors.Label())
	mode, err := ParseMode("feedback")
	require.NoError(t, err)
	require.Equal(t, Feedback, mode)
	_, err = ParseMode("contract")
	require.EqualError(t, err, `unknown repair mode "contract" (known: errors, feedback)`)
}
