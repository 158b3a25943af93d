package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/worldprobe/worldprobe/internal/browser"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/atomicfile"
	"github.com/worldprobe/worldprobe/internal/judgerun"
	"github.com/worldprobe/worldprobe/internal/result"
	"github.com/worldprobe/worldprobe/internal/run"
	"github.com/worldprobe/worldprobe/internal/task"
	"github.com/worldprobe/worldprobe/internal/testenv"
	"github.com/worldprobe/worldprobe/internal/trial"
)

// vlmSecret is the visual model's API key in the compare-judges tests; it
// must never be written.
const vlmSecret = "sk-vlm-test-SECRET-93d1"

// visualReplies are how the fake visual model answers, by the task whose
// brief the prompt holds: GPT-style prose and a JSON fence, and a
// hedging answer with a bare fence.
var visualReplies = map[string]string{
	"# Light controls with sliders": "The screenshot shows a white sphere on a dark background and a panel with two sliders and their values.\n\n" +
		"```json\n{\n  \"pass\": true,\n  \"score\": 0.85,\n  \"reason\": \"The sphere, the background and both labelled sliders are visible.\"\n}\n```\n",
	"# Shading modes": "From one frame I can't see the mode keys at work, so this is tentative. The sphere is there and looks lit from the upper left, " +
		"but I can't tell whether the label matches.\n\n```\n{\"pass\": false, \"score\": 0.4, \"reason\": \"The lit sphere is shown, but nothing proves the modes work.\"}\n```\n\nA second screenshot after pressing 1 would settle it.",
}

// fakeVLM answers chat completions as OpenAI does, by the brief in the
// prompt, and counts the calls; each costs 1500 input and 60 output
// tokens.
type fakeVLM struct {
	t     *testing.T
	srv   *httptest.Server
	mu    sync.Mutex
	calls int
}

func newFakeVLM(t *testing.T) *fakeVLM {
	f := &fakeVLM{t: t}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		if r.Header.Get("Authorization") != "Bearer "+vlmSecret {
			t.Errorf("the key was not sent")
		}
		reply := ""
		for start, text := range visualReplies {
			if strings.Contains(string(raw), start) {
				reply = text
			}
		}
		if reply == "" {
			t.Errorf("a prompt with no known brief: %.300s", raw)
		}
		if !strings.Contains(string(raw), `"url":"data:image/png;base64,`) {
			t.Errorf("no screenshot in the request")
		}
		f.mu.Lock()
		f.calls++
		f.mu.Unlock()
		b, _ := json.Marshal(map[string]any{
			"id": "chatcmpl-vlm", "object": "chat.completion", "created": 1760000000, "model": "test-vlm-2025-04-14",
			"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": reply, "refusal": nil},
				"logprobs": nil, "finish_reason": "stop"}},
			"usage": map[string]any{"prompt_tokens": 1500, "completion_tokens": 60, "total_tokens": 1560},
		})
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(b)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeVLM) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

// maskWallTimes replaces the wall-time cells of the paradigm table (wall
// per candidate, relative cost), which vary from run to run, with "…".
func maskWallTimes(md string) string {
	row := regexp.MustCompile(`^\| [a-z]+ \| \d+ \|`)
	lines := strings.Split(md, "\n")
	for i, l := range lines {
		if cells := strings.Split(l, " | "); row.MatchString(l) && len(cells) == 11 {
			cells[8], cells[9] = "…", "…"
			lines[i] = strings.Join(cells, " | ")
		}
	}
	return strings.Join(lines, "\n")
}

// TestCompareJudges makes a small real run folder — two starter tasks,
// their references, a hand-made light-slider page whose hue label has
// another id, and no material-toggle page from that model — then
// compares a DOM check (real Chromium) and a visual model (an httptest
// provider) with its contract: a dry run, the table and judges.md
// (golden: go test ./internal/cli -run TestCompareJudges -update), a false
// positive and a false negative of the visual judge, judges.json, a
// resume that judges nothing, and the visual judge skipped without a key.
// TestCompareJudgesWithFixtures (slow) does the same with the tasks'
// fixtures too.
func TestCompareJudges(t *testing.T) {
	compareJudges(t, false)
}

// TestCompareJudgesWithFixtures is TestCompareJudges with the two tasks'
// seven fixtures in the run as well: ten candidates, the DOM judge's false
// positives (golden testdata/compare-judges.md; -update writes it).
func TestCompareJudgesWithFixtures(t *testing.T) {
	testenv.Slow(t)
	compareJudges(t, true)
}

// compareJudges is TestCompareJudges, with or without the fixtures.
func compareJudges(t *testing.T, fixtures bool) {
	n, golden, runArgs := 3, "compare-judges-small.md", []string{}
	if fixtures {
		n, golden, runArgs = 10, "compare-judges.md", []string{"--fixtures"}
	}
	ref, err := os.ReadFile(filepath.Join("..", "..", "suites", "starter", "application", "light-slider", "solution", "index.html"))
	require.NoError(t, err)
	hand := t.TempDir()
	page := strings.Replace(strings.Replace(string(ref), `id="hue-value"`, `id="hue-label"`, 1), `getElementById('hue-value')`, `getElementById('hue-label')`, 1)
	require.NotEqual(t, string(ref), page)
	require.NoError(t, os.MkdirAll(filepath.Join(hand, "application", "light-slider"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(hand, "application", "light-slider", "index.html"), []byte(page), 0o644))

	out := filepath.Join(t.TempDir(), "run")
	code, _, stderr := execute(t, append([]string{"run", filepath.Join("..", "..", "suites", "starter"), "--task", "application/light-slider", "--task", "rendering/material-toggle",
		"--oracle", "--candidates", "hand=" + hand, "--allow-missing", "--out", out}, runArgs...)...)
	require.Equal(t, ExitOK, code, stderr)

	vlm := newFakeVLM(t)
	models := filepath.Join(t.TempDir(), "models.yaml")
	require.NoError(t, os.WriteFile(models, []byte("pricing:\n  test-vlm: {input: 2.00, output: 8.00}\nroles:\n  visual_judge:\n"+
		"    provider: openai\n    model: test-vlm\n    max_tokens: 500\n    base_url: "+vlm.srv.URL+"/v1\n    key_env: TEST_VLM_KEY\n"), 0o644))
	env := map[string]string{EnvWeb: webDir(t), "TEST_VLM_KEY": vlmSecret}
	ctx := context.Background()

	code, stdout, stderr := executeIn(ctx, env, "compare-judges", out, "--models", models, "--dry-run")
	require.Equal(t, ExitOK, code, stderr)
	require.Regexp(t, fmt.Sprintf(`^dry run: %d candidates of %d finished trials compared \(1 left out\), 0 verdicts kept, %d to reach; nothing is judged or sent
dom: %d pages to load and check in Chromium
visual: %d calls to openai/test-vlm
estimated cost: \$0\.\d{4} for the prompts \(about \d+ input tokens, a screenshot counted as 1000\) \+ at most \$%s for the output \(500 tokens a call\) = at most \$0\.\d{4}
$`, n, n+1, 2*n, n, n, regexp.QuoteMeta(fmt.Sprintf("%.4f", float64(n)*500*8/1e6))), stdout)
	require.Zero(t, vlm.count(), "a dry run sends nothing")

	code, stdout, stderr = executeIn(ctx, map[string]string{EnvWeb: webDir(t)}, "compare-judges", out, "--models", models, "--dry-run")
	require.Equal(t, ExitOK, code, stderr)
	require.Contains(t, stdout, "visual: skipped — no visual model is configured: the visual_judge role's model openai/test-vlm needs an API key in $TEST_VLM_KEY, which is not set (models: "+models+"; docs/models.md)\n")

	code, stdout, stderr = executeIn(ctx, env, "compare-judges", out, "--models", models)
	require.Equal(t, ExitOK, code, stderr)
	require.Equal(t, n, vlm.count())
	require.Contains(t, stderr, fmt.Sprintf("compare-judges %s: %d candidates × 2 judges (dom, visual): 0 verdicts kept, %d to reach, %d jobs → %s\n", out, n, 2*n, browser.DefaultJobs(), filepath.Join(out, "judges.md")))
	require.Contains(t, stderr, "] application/light-slider hand/light-slider dom: fail 0.833: 1 of 6 checks failed: #hue-value: no element matches (named at brief.md:26) (")
	require.Contains(t, stderr, fmt.Sprintf("[%d/%d] ", 2*n, 2*n))
	md, err := os.ReadFile(filepath.Join(out, "judges.md"))
	require.NoError(t, err)
	require.Contains(t, stdout, strings.SplitN(string(md), "\n", 3)[2][:200], "stdout shows the table of judges.md")
	require.True(t, strings.HasSuffix(stdout, "table, every candidate's verdicts and the disagreements: "+filepath.Join(out, "judges.md")+", "+filepath.Join(out, "judges.json")+"\n"), stdout)

	got := maskWallTimes(strings.ReplaceAll(string(md), out, "RUN"))
	golden = filepath.Join("testdata", golden)
	if *update {
		require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err, "go test ./internal/cli -run TestCompareJudges -update writes it")
	require.Equal(t, string(want), got)

	var rep judgerun.Report
	b, err := os.ReadFile(filepath.Join(out, "judges.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &rep))
	require.Equal(t, n, rep.Compared)
	require.Equal(t, []string{"dom", "visual", "contract"}, []string{rep.Rows[0].Judge, rep.Rows[1].Judge, rep.Rows[2].Judge})
	require.InDelta(t, 0.00348, *rep.Rows[1].USDPerCandidate, 1e-12, "1500 × $2 + 60 × $8 per 1M tokens")
	require.Len(t, rep.Items, n)
	require.Len(t, rep.Items[0].Verdicts, 2)

	// Resuming judges nothing, starts no browser and calls no model.
	code, _, stderr = executeIn(ctx, env, "compare-judges", out, "--models", models)
	require.Equal(t, ExitOK, code, stderr)
	require.Contains(t, stderr, fmt.Sprintf(": %d verdicts kept, 0 to reach, ", 2*n))
	require.Equal(t, n, vlm.count())
	md2, err := os.ReadFile(filepath.Join(out, "judges.md"))
	require.NoError(t, err)
	require.Equal(t, got, maskWallTimes(strings.ReplaceAll(string(md2), out, "RUN")), "the same table from the stored verdicts")

	// The key is never written.
	require.NoError(t, filepath.WalkDir(out, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		require.NotContains(t, string(data), vlmSecret, path)
		return nil
	}))

	// Usage errors.
	code, _, stderr = executeIn(ctx, env, "compare-judges", out, "--judges", "dom,agent")
	require.Equal(t, ExitUsage, code)
	require.Contains(t, stderr, `--judges "agent": the judges are dom, visual`)
	code, _, stderr = executeIn(ctx, env, "compare-judges", t.TempDir())
	require.Equal(t, ExitUsage, code)
	require.Contains(t, stderr, "is not a 'worldprobe run' folder")
}

// screenshotRun is a stub executor: it writes each trial's result.json
// (the reference passes, the fixtures fail) and a screenshot, as a real
// run does, without a browser.
type screenshotRun struct{ png []byte }

func (s screenshotRun) Execute(ctx context.Context, runDir string, specs []trial.Spec, done func(trial.Spec, *result.Trial) error) error {
	for _, sp := range specs {
		t := &result.Trial{Key: sp.Key, Task: sp.Task, Model: sp.Model, Candidate: sp.Candidate, Outcome: result.OutcomeOK,
			Pass: sp.Model == "oracle", VCov: 0.5, Assertions: []result.Assertion{}}
		if t.Pass {
			t.VCov = 1
		}
		dir := filepath.Join(runDir, sp.Dir)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, trial.ScreenshotFile), s.png, 0o644); err != nil {
			return err
		}
		if err := atomicfile.WriteJSON(filepath.Join(dir, trial.ResultFile), t); err != nil {
			return err
		}
		if err := done(sp, t); err != nil {
			return err
		}
	}
	return nil
}

// A spending budget stops compare-judges cleanly: the verdicts reached
// are kept, it says how many and how to resume, and it exits 4; raising
// the budget resumes with the rest. The visual judge needs no browser
// when the run kept every screenshot.
func TestCompareJudgesBudgetStops(t *testing.T) {
	suite := filepath.Join(t.TempDir(), "suite")
	dst := filepath.Join(suite, "application", "light-slider")
	require.NoError(t, os.CopyFS(dst, os.DirFS(filepath.Join("..", "..", "suites", "starter", "application", "light-slider"))))
	tk, err := task.Load(dst)
	require.NoError(t, err)
	sources := []run.Source{{Model: "oracle", Oracle: true}, {Model: "fixtures", Fixtures: true}}
	plan, err := run.Plan([]*task.Task{tk}, sources, 1)
	require.NoError(t, err)
	out := filepath.Join(t.TempDir(), "run")
	png, err := os.ReadFile(filepath.Join("..", "judges", "testdata", "replies", "gpt_fenced.md")) // any bytes stand for the picture
	require.NoError(t, err)
	_, err = run.Execute(context.Background(), run.Options{Out: out, Plan: plan, Executor: screenshotRun{png: png},
		Config: run.Config{Suite: suite, Tasks: []string{tk.ID}, Sources: sources, Repeat: 1}})
	require.NoError(t, err)

	vlm := newFakeVLM(t)
	modelsFile := func(budget string) string {
		path := filepath.Join(t.TempDir(), "models.yaml")
		require.NoError(t, os.WriteFile(path, []byte("pricing:\n  test-vlm: {input: 2.00, output: 8.00}\nbudgets:\n  run_usd: "+budget+"\nroles:\n  visual_judge:\n"+
			"    provider: openai\n    model: test-vlm\n    base_url: "+vlm.srv.URL+"/v1\n    key_env: TEST_VLM_KEY\n"), 0o644))
		return path
	}
	env := map[string]string{"TEST_VLM_KEY": vlmSecret}
	tight := modelsFile("0.003")
	// A call costs $0.00348: the first goes through, the second is refused.
	code, stdout, stderr := executeIn(context.Background(), env, "compare-judges", out, "--judges", "visual", "--models", tight, "--jobs", "1")
	require.Equal(t, ExitModelFatal, code, stderr)
	require.Empty(t, stdout, "no table over part of the verdicts")
	require.Equal(t, 1, vlm.count())
	require.Contains(t, stderr, "worldprobe: compare-judges stopped: visual on application/light-slider ")
	require.Contains(t, stderr, ": llm: run budget exceeded: $0.0035 of $0.0030 spent\n1 of 4 verdicts reached and kept, 3 left; raise the budget under budgets: in the models file and resume with: "+
		"worldprobe compare-judges "+out+" --jobs 1 --judges visual --models "+tight+"\n")
	stored, err := filepath.Glob(filepath.Join(out, "trials", "*", "judges", "visual.json"))
	require.NoError(t, err)
	require.Len(t, stored, 1)

	code, stdout, stderr = executeIn(context.Background(), env, "compare-judges", out, "--judges", "visual", "--models", modelsFile("1"), "--jobs", "1")
	require.Equal(t, ExitOK, code, stderr)
	require.Contains(t, stderr, "1 verdict kept, 3 to reach")
	require.Equal(t, 4, vlm.count())
	require.Contains(t, stdout, "| visual | 4 | 100.0% | n/a | 100.0% | 0.0% | 25.0% | 0 |")
}
