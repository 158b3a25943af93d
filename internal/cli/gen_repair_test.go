package cli

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/diagnose"
	"github.com/worldprobe/worldprobe/internal/gen"
	"github.com/worldprobe/worldprobe/internal/repair"
	"github.com/worldprobe/worldprobe/internal/report"
	"github.com/worldprobe/worldprobe/internal/task"
)

// repairProvider is an OpenAI-style provider that answers a generation
// call (gen's instruction) with first and a repair call (the repair
// instruction) with fix, and keeps every call's turns.
type repairProvider struct {
	t          *testing.T
	srv        *httptest.Server
	first, fix string
	mu         sync.Mutex
	calls      [][]turn
}

func newRepairProvider(t *testing.T, first, fix string) *repairProvider {
	p := &repairProvider{t: t, first: first, fix: fix}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		require.NotContains(t, string(raw), genSecret)
		var body struct {
			Messages []struct {
				Role    string `json:"role"`
				Content any    `json:"content"`
			} `json:"messages"`
		}
		require.NoError(t, json.Unmarshal(raw, &body))
		var turns []turn
		for _, m := range body.Messages {
			turns = append(turns, turn{m.Role, text(m.Content)})
		}
		p.mu.Lock()
		p.calls = append(p.calls, turns)
		p.mu.Unlock()
		reply, in, out := "", 300, 400
		switch turns[0].Text {
		case gen.Instructions:
			reply = p.first
		case repair.Instructions(repair.Errors), repair.Instructions(repair.Feedback):
			reply, in, out = p.fix, 500, 100
		default:
			t.Errorf("a call with another instruction: %.100q", turns[0].Text)
		}
		w.Header().Set("Content-Type", "application/json")
		b, _ := json.Marshal(map[string]any{"id": "chatcmpl-1", "object": "chat.completion", "created": 1760000000, "model": "test-gpt",
			"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": reply}, "finish_reason": "stop"}},
			"usage":   map[string]any{"prompt_tokens": in, "completion_tokens": out, "total_tokens": in + out}})
		_, _ = w.Write(b)
	}))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *repairProvider) requests() [][]turn {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([][]turn(nil), p.calls...)
}

// TestGenRepairEndToEnd: gen with a first reply whose page throws at load
// and one repair round whose edit (with prose around it) fixes it, in the
// real browser; the first-shot page stays where it was and the repaired
// one is written beside it with its gen.json; running gen again makes no
// call; run judges both folders under one name: two leaderboard rows, the
// first-shot page crashed, the repaired one passes and is priced with the
// first shot's cost and the repair's.
func TestGenRepairEndToEnd(t *testing.T) {
	tasks, err := task.LoadSuite(tinySuite())
	require.NoError(t, err)
	solution, err := os.ReadFile(tasks[0].SolutionPath())
	require.NoError(t, err)
	good := strings.TrimSpace(string(solution)) + "\n"
	line := "const box = new THREE.Mesh(new THREE.BoxGeometry(0.5, 0.5, 0.5), new THREE.MeshBasicMaterial({ color: 0x33aaff }));"
	typo := strings.Replace(line, "BoxGeometry", "BoxGeometery", 1)
	broken := strings.Replace(good, line, typo, 1)
	require.NotEqual(t, good, broken)
	first := "Here is the page you asked for.\n\n```html\n" + broken + "```\n\nThe box moves at 1 m/s along x.\n"
	fix := "The page stops at load because `THREE.BoxGeometery` does not exist in Three.js: the class is `BoxGeometry`.\n\n" +
		"```html\n<<<<<<< SEARCH\n" + typo + "\n=======\n" + line + "\n>>>>>>> REPLACE\n```\n\nWith this the box is created and the loop runs.\n"
	p := newRepairProvider(t, first, fix)
	models := genModelsFile(t, &fakeProvider{srv: p.srv}, nil, "")
	out := filepath.Join(t.TempDir(), "gen")
	env := map[string]string{"TEST_OPENAI_KEY": genSecret, EnvWeb: webDir(t)}
	args := []string{"gen", tinySuite(), "--model", "generator", "--models", models, "--out", out, "--repair", "1"}
	code, stdout, stderr := executeIn(context.Background(), env, args...)
	require.Equal(t, ExitOK, code, "stderr: %s", stderr)
	cands, fixed := filepath.Join(out, "openai-test-gpt", "sample-1"), filepath.Join(out, "openai-test-gpt+error-only", "sample-1")
	require.Contains(t, stderr, "repair (error-only, up to 1 round): 1 page (0 kept, 1 to repair) → "+filepath.Join(out, "<model-slug>+error-only")+"\n")
	require.Contains(t, stderr, "[1/1] simulation/tiny openai-test-gpt+error-only sample 1: fixed in 1 round (1 call, 1 edit applied, 0 refused, $0.0018)\n")
	require.Contains(t, stdout, "\nerror-only repair of 1 page: 1 fixed; 1 repaired now in 1 call, 0 kept\n"+
		"repair cost $0.0018, tokens in 500, out 100 (each repaired page's gen.json adds its first shot's)\n"+
		"pages in "+out+"; judge them with:\n  worldprobe run "+tinySuite()+" --candidates openai-test-gpt="+cands+" --candidates openai-test-gpt="+fixed+"\n")

	// The repair call: the repair instruction, the exception and the page;
	// not the brief.
	calls := p.requests()
	require.Len(t, calls, 2)
	want := repair.RoundPrompt(repair.Errors, &repair.Findings{
		Checked: "The page's scripts were parsed, then the page was loaded in Chromium (with WebGL) and run for 300 frames at 60 frames per second.",
		Items: []repair.Finding{{Kind: diagnose.KindException, Text: "Uncaught TypeError: THREE.BoxGeometery is not a constructor",
			Line: 7, Column: 28, When: "while the page loaded", Count: 1}}}, broken)
	require.Equal(t, []turn{{"system", repair.Instructions(repair.Errors)}, {"user", want}}, calls[1])
	require.Contains(t, want, "1. uncaught exception at line 7, column 28, while the page loaded: Uncaught TypeError: THREE.BoxGeometery is not a constructor\n   line 7 of the page: "+typo+"\n")
	brief, err := os.ReadFile(filepath.Join(tasks[0].Dir, "brief.md"))
	require.NoError(t, err)
	require.NotContains(t, want, strings.TrimSpace(strings.Split(string(brief), "\n")[2]), "the brief is not sent again")

	page := func(dir string) string {
		b, err := os.ReadFile(filepath.Join(dir, "simulation", "tiny", gen.PageFile))
		require.NoError(t, err)
		return string(b)
	}
	require.Equal(t, broken, page(cands), "the first-shot page is kept as it is")
	require.Equal(t, good, page(fixed))
	r, err := gen.ReadRecord(filepath.Join(fixed, "simulation", "tiny"))
	require.NoError(t, err)
	require.Equal(t, "error-only", r.Repair)
	require.Equal(t, gen.RepairFixed, r.Repaired.End)
	require.Equal(t, 2, r.Turns)
	require.Equal(t, int64(800), r.TokensIn)
	require.InDelta(t, 0.0038+0.0018, r.CostUSD, 1e-12)
	require.Equal(t, 1, r.Repaired.Rounds[0].EditsApplied)
	require.FileExists(t, filepath.Join(fixed, "simulation", "tiny", repair.TranscriptFile))

	code, stdout, stderr = executeIn(context.Background(), env, args...)
	require.Equal(t, ExitOK, code, "stderr: %s", stderr)
	require.Len(t, p.requests(), 2, "running again makes no call")
	require.Contains(t, stdout, "error-only repair of 1 page: 1 fixed; 0 repaired now in 0 calls, 1 kept\n")

	runOut := filepath.Join(t.TempDir(), "run")
	code, stdout, stderr = executeIn(context.Background(), env, "run", tinySuite(), "--candidates", "openai-test-gpt="+cands,
		"--candidates", "openai-test-gpt="+fixed, "--out", runOut)
	require.Equal(t, ExitOK, code, "stderr: %s", stderr)
	require.Contains(t, stdout, "2 trials (2 run, 0 kept)")
	trials := readTrials(t, runOut)
	require.Len(t, trials, 2)
	fs, rep := trials["simulation_tiny__openai-test-gpt__tiny__s0"], trials["simulation_tiny__openai-test-gpt+error-only__tiny__s0"]
	require.NotNil(t, fs, "trials: %v", trials)
	require.NotNil(t, rep, "trials: %v", trials)
	require.Equal(t, "crash", fs.Outcome)
	require.Equal(t, "js_exception", fs.CrashKind)
	require.Empty(t, fs.Repair)
	require.Equal(t, "ok", rep.Outcome)
	require.True(t, rep.Pass)
	require.Equal(t, "error-only", rep.Repair)

	var l report.Leaderboard
	b, err := os.ReadFile(filepath.Join(runOut, report.LeaderboardJSON))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &l))
	require.Len(t, l.Rows, 2)
	require.Empty(t, l.Feedback)
	require.Equal(t, []string{"openai-test-gpt (error-only)", "openai-test-gpt"}, []string{l.Rows[0].Name(), l.Rows[1].Name()})
	require.Equal(t, 1.0, l.Rows[0].Pass1)
	require.Equal(t, 0.0, l.Rows[1].Pass1)
	// RoA = V-Cov 1 × 0.2 h × $60/h / ($0.0038 of the first shot + $0.0018 of the repair).
	require.InDelta(t, 0.2*60/0.0056, *l.Rows[0].Economics.RoA.Value, 1e-6)
	md, err := os.ReadFile(filepath.Join(runOut, report.LeaderboardMarkdown))
	require.NoError(t, err)
	require.Contains(t, string(md), "| openai-test-gpt | error-only | 1 | 100.0% | 100.0% | 100.0 pts |")
}

// TestGenFeedbackRepairIsRankedApart: --repair-mode feedback judges the
// first-shot page against its contract and sends the failed checks'
// message: strings only; its folder is labelled feedback and run ranks
// it in a leaderboard of its own.
func TestGenFeedbackRepairIsRankedApart(t *testing.T) {
	suite := filepath.Join("..", "diagnose", "testdata", "suite")
	tasks, err := task.LoadSuite(suite)
	require.NoError(t, err)
	solution, err := os.ReadFile(tasks[0].SolutionPath())
	require.NoError(t, err)
	good := strings.TrimSpace(string(solution)) + "\n"
	moving, still := "box.position.x = ((now || t0) - t0) / 1000;", "box.position.x = 0;"
	frozen := strings.Replace(good, moving, still, 1)
	fix := "The box never moves because its position is reset to 0 every frame.\n\n<<<<<<< SEARCH\n(function loop(now) { " + still +
		"\n=======\n(function loop(now) { " + moving + "\n>>>>>>> REPLACE\n"
	p := newRepairProvider(t, "```html\n"+frozen+"```\n", fix)
	models := genModelsFile(t, &fakeProvider{srv: p.srv}, nil, "")
	out := filepath.Join(t.TempDir(), "gen")
	env := map[string]string{"TEST_OPENAI_KEY": genSecret, EnvWeb: webDir(t)}
	code, stdout, stderr := executeIn(context.Background(), env, "gen", suite, "--model", "generator", "--models", models, "--out", out,
		"--repair", "2", "--repair-mode", "feedback")
	require.Equal(t, ExitOK, code, "stderr: %s", stderr)
	cands, fed := filepath.Join(out, "openai-test-gpt", "sample-1"), filepath.Join(out, "openai-test-gpt+feedback", "sample-1")
	require.Contains(t, stdout, "\nfeedback repair of 1 page: 1 fixed; 1 repaired now in 1 call, 0 kept\n")
	calls := p.requests()
	require.Len(t, calls, 2)
	require.Equal(t, turn{"system", repair.Instructions(repair.Feedback)}, calls[1][0])
	require.Equal(t, repair.RoundPrompt(repair.Feedback, &repair.Findings{
		Checked: "The page was loaded in Chromium (with WebGL) and tested against the checks of its task.",
		Items: []repair.Finding{{Kind: diagnose.KindFailedCheck, Text: "the box moves along x at 1 m/s", Count: 1},
			{Kind: diagnose.KindFailedCheck, Text: "1 more checks that have no description did not pass"}}}, frozen), calls[1][1].Text)
	require.NotContains(t, calls[1][1].Text, "approx(", "no expression of the contract")
	r, err := gen.ReadRecord(filepath.Join(fed, "simulation", "mover"))
	require.NoError(t, err)
	require.Equal(t, "feedback", r.Repair)
	require.Equal(t, gen.RepairFixed, r.Repaired.End)

	runOut := filepath.Join(t.TempDir(), "run")
	code, stdout, stderr = executeIn(context.Background(), env, "run", suite, "--candidates", "gpt="+cands, "--candidates", "gpt="+fed, "--out", runOut)
	require.Equal(t, ExitOK, code, "stderr: %s", stderr)
	require.Contains(t, stdout, "\ncontract-feedback repair, ranked apart (the model saw its failed checks' messages):\n")
	var l report.Leaderboard
	b, err := os.ReadFile(filepath.Join(runOut, report.LeaderboardJSON))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &l))
	require.Len(t, l.Rows, 1, "the first-shot row alone")
	require.Equal(t, "gpt", l.Rows[0].Name())
	require.Equal(t, 0.0, l.Rows[0].Pass1)
	require.Len(t, l.Feedback, 1)
	require.Equal(t, "gpt (feedback)", l.Feedback[0].Name())
	require.Equal(t, 1.0, l.Feedback[0].Pass1)
}

// A dry run with --repair says the repair calls are not estimated, and
// starts no browser.
func TestGenDryRunWithRepair(t *testing.T) {
	p := newRepairProvider(t, "", "")
	models := genModelsFile(t, &fakeProvider{srv: p.srv}, nil, "")
	code, stdout, stderr := executeIn(context.Background(), nil, "gen", tinySuite(), "--model", "generator", "--models", models,
		"--out", filepath.Join(t.TempDir(), "gen"), "--repair", "2", "--dry-run")
	require.Equal(t, ExitOK, code, "stderr: %s", stderr)
	require.Empty(t, p.requests())
	require.True(t, strings.HasSuffix(stdout, "repair (error-only): up to 2 rounds of at most 3 calls for each page whose check finds something; "+
		"not estimated (which pages need it is known only once they are generated and checked)\n"), stdout)
}

// A first shot without a page has nothing to repair: its repaired sample
// is failed too (run judges it as no_candidate, its cost counted), and no
// browser is started for it.
func TestGenRepairOfASampleWithoutAPage(t *testing.T) {
	p := newRepairProvider(t, "I'm sorry, but I can't help with that request.", "")
	models := genModelsFile(t, &fakeProvider{srv: p.srv}, nil, "")
	out := filepath.Join(t.TempDir(), "gen")
	code, stdout, stderr := executeIn(context.Background(), map[string]string{"TEST_OPENAI_KEY": genSecret}, "gen", tinySuite(),
		"--model", "generator", "--models", models, "--out", out, "--repair", "1", "--chromium", "/nonexistent/chromium")
	require.Equal(t, ExitOK, code, "stderr: %s", stderr)
	require.Contains(t, stdout, "\nerror-only repair of 1 page: 1 without a first-shot page; 1 repaired now in 0 calls, 0 kept\n")
	require.Contains(t, stderr, "simulation/tiny openai-test-gpt+error-only sample 1: no first-shot page: nothing to repair\n")
	r, err := gen.ReadRecord(filepath.Join(out, "openai-test-gpt+error-only", "sample-1", "simulation", "tiny"))
	require.NoError(t, err)
	require.Equal(t, gen.StatusFailed, r.Status)
	require.Equal(t, gen.RepairNoPage, r.Repaired.End)
	require.InDelta(t, 0.0038, r.CostUSD, 1e-12, "the first shot's cost")
	require.Len(t, p.requests(), 1)
}
