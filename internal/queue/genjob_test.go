package queue

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/gen"
	"github.com/worldprobe/worldprobe/internal/llm"
	"github.com/worldprobe/worldprobe/internal/pgtest"
	"github.com/worldprobe/worldprobe/internal/result"
	"github.com/worldprobe/worldprobe/internal/run"
	"github.com/worldprobe/worldprobe/internal/task"
	"github.com/worldprobe/worldprobe/internal/testenv"
)

const genTestKey = "sk-genjob-test-SECRET"

// provider is an OpenAI-style chat completions server that writes a page
// in two turns: the first answer is cut off by the output limit
// (finish_reason "length"), the continuation ends it. It counts the
// requests it received and the ones it answered, by the request's
// messages. With hold set, the first continuation request is held until
// its client goes away (the worker is stopped or killed mid-way).
type provider struct {
	t     *testing.T
	srv   *httptest.Server
	first string
	rest  string
	hold  bool
	held  chan struct{}

	mu       sync.Mutex
	received map[string]int // "first" / "continuation" → requests
	answered map[string]int
	bodies   map[string]int // sha256 of the messages → answers
}

func newProvider(t *testing.T, page string, hold bool) *provider {
	reply := "Here is the page.\n\n```html\n" + page + "\n```\n"
	cut := strings.Index(reply, "<script>")
	require.Positive(t, cut)
	p := &provider{t: t, first: reply[:cut], rest: reply[cut:], hold: hold, held: make(chan struct{}),
		received: map[string]int{}, answered: map[string]int{}, bodies: map[string]int{}}
	p.srv = httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *provider) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	if r.Header.Get("Authorization") != "Bearer "+genTestKey || r.URL.Path != "/v1/chat/completions" {
		p.t.Errorf("a request to %s without the key", r.URL.Path)
	}
	var body struct {
		Messages []struct {
			Role string `json:"role"`
		} `json:"messages"`
	}
	require.NoError(p.t, json.Unmarshal(raw, &body))
	which, text, finish := "first", p.first, "length"
	for _, m := range body.Messages {
		if m.Role == "assistant" {
			which, text, finish = "continuation", p.rest, "stop"
		}
	}
	var msgs struct {
		Messages json.RawMessage `json:"messages"`
	}
	require.NoError(p.t, json.Unmarshal(raw, &msgs))
	sum := sha256.Sum256(msgs.Messages)
	p.mu.Lock()
	p.received[which]++
	hold := p.hold && which == "continuation" && p.received[which] == 1
	p.mu.Unlock()
	if hold {
		close(p.held)
		<-r.Context().Done() // never answered: its client went away
		return
	}
	resp := map[string]any{
		"id": "chatcmpl-genjob", "object": "chat.completion", "created": 1760000000, "model": "test-gpt-2025-01-01",
		"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": text, "refusal": nil},
			"logprobs": nil, "finish_reason": finish}},
		"usage": map[string]any{"prompt_tokens": 1000, "completion_tokens": 500, "total_tokens": 1500},
	}
	w.Header().Set("Content-Type", "application/json")
	b, _ := json.Marshal(resp)
	_, _ = w.Write(b)
	p.mu.Lock()
	p.answered[which]++
	p.bodies[hex.EncodeToString(sum[:])]++
	p.mu.Unlock()
}

// counts are the requests received and answered, and how many times the
// most answered request was answered.
func (p *provider) counts() (received, answered map[string]int, most int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	received, answered = map[string]int{}, map[string]int{}
	for k, v := range p.received {
		received[k] = v
	}
	for k, v := range p.answered {
		answered[k] = v
	}
	for _, v := range p.bodies {
		most = max(most, v)
	}
	return received, answered, most
}

// model is the generator role on the provider through the real model
// access layer ($2 / $8 per 1M tokens: $0.006 a call).
func (p *provider) model(t *testing.T) *gen.Model { return providerModel(t, p.srv.URL) }

// providerModel is the generator role on the provider at url.
func providerModel(t *testing.T, url string) *gen.Model {
	t.Helper()
	cfg := &llm.Config{Version: 1, Pricing: map[string]llm.Price{"test-gpt": {Input: 2, Output: 8}},
		Roles: map[llm.Role]llm.RoleConfig{llm.Generator: {ModelConfig: llm.ModelConfig{Provider: "openai", Model: "test-gpt",
			BaseURL: url + "/v1", KeyEnv: "TEST_KEY", MaxTokens: 8000}}}}
	reg, err := llm.New(cfg, func(k string) string {
		if k == "TEST_KEY" {
			return genTestKey
		}
		return ""
	})
	require.NoError(t, err)
	m, err := reg.Role(context.Background(), llm.Generator)
	require.NoError(t, err)
	return &gen.Model{Spec: "openai/test-gpt", Slug: gen.Slug("openai/test-gpt"), Role: llm.Generator, Name: "openai/test-gpt", Chat: m}
}

// tinyTask is testdata's tiny task in a folder of the test's, and its
// reference page.
func tinyTask(t *testing.T) (*task.Task, string) {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "suite", "simulation", "tiny")
	require.NoError(t, os.CopyFS(dst, os.DirFS(filepath.Join("testdata", "suite", "simulation", "tiny"))))
	tk, err := task.Load(dst)
	require.NoError(t, err)
	page, err := os.ReadFile(tk.SolutionPath())
	require.NoError(t, err)
	return tk, string(page)
}

// listJobs lists q's jobs of kind.
func listJobs(t *testing.T, q *Queue, kind string) []*rivertype.JobRow {
	t.Helper()
	res, err := q.client.JobList(context.Background(), river.NewJobListParams().Kinds(kind).First(100))
	require.NoError(t, err)
	return res.Jobs
}

// A generation job stopped mid-way — its first answer stored, its worker
// stopped while the continuation was on its way — is run again by the
// next worker, which gets the first answer from the database: the model
// answers each of the sample's two calls exactly once. The finished
// generation enqueues its trial (the key 'run --candidates' plans), which
// the next worker judges; enqueueing the finished job again writes nothing
// and calls nothing.
func TestGenerationJobStoppedMidwayPaysOnce(t *testing.T) {
	for _, db := range []string{"SQLite", "Postgres"} {
		t.Run(db, func(t *testing.T) {
			ctx := context.Background()
			var open func(cfg Config) *Queue
			if db == "SQLite" {
				path := filepath.Join(t.TempDir(), "queue.db")
				open = func(cfg Config) *Queue {
					q, err := OpenSQLite(ctx, path, cfg)
					require.NoError(t, err)
					t.Cleanup(func() { q.Close() })
					return q
				}
			} else {
				url := pgtest.Start(t).NewDB(t)
				open = func(cfg Config) *Queue {
					q, err := OpenPostgres(ctx, url, cfg)
					require.NoError(t, err)
					t.Cleanup(func() { q.Close() })
					return q
				}
			}
			testGenerationPaysOnce(t, open)
		})
	}
}

func testGenerationPaysOnce(t *testing.T, open func(Config) *Queue) {
	ctx := context.Background()
	tk, page := tinyTask(t)
	p := newProvider(t, page, true)
	m := p.model(t)
	out := filepath.Join(t.TempDir(), "gen")
	runDir := filepath.Join(t.TempDir(), "run")
	require.NoError(t, run.CreateFolder(runDir))

	enq := open(Config{})
	s, err := gen.NewSample(tk, m, 1, out)
	require.NoError(t, err)
	args, err := GenerateJob(s, out, nil, &Judge{Run: runDir, Model: "gpt"})
	require.NoError(t, err)
	ids, err := enq.Enqueue(ctx, []river.JobArgs{args})
	require.NoError(t, err)
	again, err := enq.Enqueue(ctx, []river.JobArgs{args})
	require.NoError(t, err)
	require.Equal(t, ids, again, "one job per key while it waits")

	a := open(Config{Workers: 1, GenOnly: true, Models: ModelList{m}, StopGrace: 50 * time.Millisecond})
	require.NoError(t, a.Start(ctx))
	select {
	case <-p.held:
	case <-time.After(60 * time.Second):
		t.Fatal("the continuation never came")
	}
	require.NoError(t, a.Stop(ctx))
	n, err := enq.StoredCalls(ctx, args.Key)
	require.NoError(t, err)
	require.Equal(t, 1, n, "the first answer is stored before the job ends")
	rec, err := gen.ReadRecord(s.Dir)
	require.NoError(t, err)
	require.Nil(t, rec, "no gen.json: the sample is unfinished")
	js := listJobs(t, enq, kindGenerate)
	require.Len(t, js, 1)
	require.Equal(t, rivertype.JobStateAvailable, js[0].State, "back in the queue for the next worker")

	b := open(Config{Workers: 1, Models: ModelList{m}, Runner: runner()})
	require.NoError(t, b.Start(ctx))
	require.NoError(t, enq.Wait(ctx, ids))
	received, answered, most := p.counts()
	require.Equal(t, map[string]int{"first": 1, "continuation": 2}, received, "the first call is never sent again")
	require.Equal(t, map[string]int{"first": 1, "continuation": 1}, answered)
	require.Equal(t, 1, most, "no request answered twice")
	n, err = enq.StoredCalls(ctx, args.Key)
	require.NoError(t, err)
	require.Equal(t, 2, n)
	rec, err = gen.ReadRecord(s.Dir)
	require.NoError(t, err)
	require.Equal(t, gen.StatusDone, rec.Status)
	require.Equal(t, 2, rec.Turns)
	require.Equal(t, int64(2000), rec.TokensIn)
	require.InDelta(t, 0.012, rec.CostUSD, 1e-9, "two calls paid, each once")
	got, err := os.ReadFile(filepath.Join(s.Dir, gen.PageFile))
	require.NoError(t, err)
	require.Equal(t, strings.TrimSpace(page), strings.TrimSpace(string(got)))

	// The trial the finished generation enqueued: the key run plans for
	// the model's folder, judged by b.
	plan, err := run.Plan([]*task.Task{tk}, []run.Source{{Model: "gpt", Dir: filepath.Join(out, m.Slug)}}, 1)
	require.NoError(t, err)
	require.Len(t, plan, 1)
	results, err := b.Results(ctx, runDir)
	require.NoError(t, err)
	var trials []*result.Trial
	require.Eventually(t, func() bool {
		found, err := results.Find(ctx, []string{plan[0].Key})
		require.NoError(t, err)
		trials = found
		return len(found) == 1
	}, 120*time.Second, 50*time.Millisecond)
	require.True(t, trials[0].Pass, "%+v", trials[0].Assertions)
	require.Len(t, listJobs(t, enq, kindTrial), 1)

	// Enqueued again once finished: the job keeps the gen.json and calls
	// nothing.
	ids2, err := enq.Enqueue(ctx, []river.JobArgs{args})
	require.NoError(t, err)
	require.NotEqual(t, ids, ids2)
	require.NoError(t, enq.Wait(ctx, ids2))
	received2, _, _ := p.counts()
	require.Equal(t, received, received2)
	again2, err := gen.ReadRecord(s.Dir)
	require.NoError(t, err)
	require.Equal(t, rec, again2)
	for _, j := range listJobs(t, enq, kindGenerate) {
		require.Equal(t, 1, j.Attempt, "a released attempt is not counted")
	}
}

// envHelperWorker, set to a PostgreSQL URL, makes TestHelperGenWorker a
// generation worker on that queue (with the provider at
// envHelperProvider) that runs until it is killed.
const (
	envHelperWorker   = "WORLDPROBE_TEST_GENWORKER_DB"
	envHelperProvider = "WORLDPROBE_TEST_GENWORKER_PROVIDER"
)

// TestHelperGenWorker is the worker process TestGenerationJobKilledIsRescued
// kills; without its environment it does nothing.
func TestHelperGenWorker(t *testing.T) {
	url := os.Getenv(envHelperWorker)
	if url == "" {
		t.Skip("run by TestGenerationJobKilledIsRescued as its worker process")
	}
	ctx := context.Background()
	q, err := OpenPostgres(ctx, url, Config{Workers: 1, GenOnly: true, Models: ModelList{providerModel(t, os.Getenv(envHelperProvider))}})
	require.NoError(t, err)
	require.NoError(t, q.Start(ctx))
	select {} // until killed
}

// A generation worker process killed (SIGKILL) while the continuation of
// a cut-off reply is on its way: River's rescuer (on the next worker,
// every 30 s) finds the job older than RescueAfter and retries it, and the
// next worker sends only the continuation — each of the sample's two
// requests is answered exactly once.
func TestGenerationJobKilledIsRescued(t *testing.T) {
	testenv.Slow(t)
	ctx := context.Background()
	url := pgtest.Start(t).NewDB(t)
	tk, page := tinyTask(t)
	p := newProvider(t, page, true)
	m := p.model(t)
	out := filepath.Join(t.TempDir(), "gen")
	enq, err := OpenPostgres(ctx, url, Config{})
	require.NoError(t, err)
	defer enq.Close()
	s, err := gen.NewSample(tk, m, 1, out)
	require.NoError(t, err)
	args, err := GenerateJob(s, out, nil, nil)
	require.NoError(t, err)
	ids, err := enq.Enqueue(ctx, []river.JobArgs{args})
	require.NoError(t, err)

	cmd := exec.Command(os.Args[0], "-test.run", "^TestHelperGenWorker$")
	cmd.Env = append(os.Environ(), envHelperWorker+"="+url, envHelperProvider+"="+p.srv.URL)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	require.NoError(t, cmd.Start())
	select {
	case <-p.held:
	case <-time.After(120 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the worker process never sent the continuation")
	}
	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()
	js := listJobs(t, enq, kindGenerate)
	require.Len(t, js, 1)
	require.Equal(t, rivertype.JobStateRunning, js[0].State, "its worker is dead: the job stays running until it is rescued")
	n, err := enq.StoredCalls(ctx, args.Key)
	require.NoError(t, err)
	require.Equal(t, 1, n)

	b, err := OpenPostgres(ctx, url, Config{Workers: 1, GenOnly: true, Models: ModelList{m}, RescueAfter: 2 * time.Second})
	require.NoError(t, err)
	defer b.Close()
	require.NoError(t, b.Start(ctx))
	wctx, cancel := context.WithTimeout(ctx, 150*time.Second)
	defer cancel()
	require.NoError(t, enq.Wait(wctx, ids))
	received, answered, most := p.counts()
	require.Equal(t, map[string]int{"first": 1, "continuation": 2}, received)
	require.Equal(t, map[string]int{"first": 1, "continuation": 1}, answered)
	require.Equal(t, 1, most)
	js = listJobs(t, enq, kindGenerate)
	require.Len(t, js, 1)
	require.Equal(t, 2, js[0].Attempt, "the killed attempt and the rescued one")
	rec, err := gen.ReadRecord(s.Dir)
	require.NoError(t, err)
	require.Equal(t, gen.StatusDone, rec.Status)
	require.InDelta(t, 0.012, rec.CostUSD, 1e-9)
}
