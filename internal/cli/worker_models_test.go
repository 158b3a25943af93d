package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/judges"
	"github.com/worldprobe/worldprobe/internal/llm"
	"github.com/worldprobe/worldprobe/internal/task"
	"github.com/worldprobe/worldprobe/internal/trial"
	"github.com/worldprobe/worldprobe/internal/worldjudge"
)

// A worker judges look and act steps and --design with the models of its
// --models file, its API keys read from its own environment (the job
// carries none): each judge's model calls the provider with the worker's
// key. Without the key, the steps are unjudged and the worker says so.
func TestWorkerModelsFromItsEnvironment(t *testing.T) {
	const key = "sk-worker-only-0123456789"
	var mu sync.Mutex
	auth := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth[r.Header.Get("Authorization")]++
		mu.Unlock()
		b, _ := json.Marshal(map[string]any{
			"id": "chatcmpl-w", "object": "chat.completion", "created": 1760000000, "model": "gpt-4.1-2025-04-14",
			"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": "ok", "refusal": nil},
				"logprobs": nil, "finish_reason": "stop"}},
			"usage": map[string]any{"prompt_tokens": 10, "completion_tokens": 1, "total_tokens": 11},
		})
		w.Header().Set("Content-Type", "application/json")
		w.Write(b)
	}))
	defer srv.Close()
	models := filepath.Join(t.TempDir(), "models.yaml")
	require.NoError(t, os.WriteFile(models, []byte(`version: 1
defaults:
  provider: openai
  model: gpt-4.1
  base_url: `+srv.URL+`/v1
  key_env: WORKER_TEST_KEY
`), 0o644))

	build := func(env map[string]string) (*trial.Runner, string) {
		var errOut bytes.Buffer
		o := &WorkerOptions{Design: true}
		o.looks.ModelsFile = models
		io := IO{Out: &bytes.Buffer{}, ErrOut: &errOut, Getenv: func(k string) string { return env[k] }}
		r, err := o.runner(context.Background(), io, &trial.Runner{})
		require.NoError(t, err)
		return r, errOut.String()
	}

	r, warnings := build(map[string]string{"WORKER_TEST_KEY": key})
	require.Empty(t, warnings)
	look, ok := r.Looker.(*judges.Looker)
	require.True(t, ok, "%T", r.Looker)
	act, ok := r.Actor.(*judges.Actor)
	require.True(t, ok, "%T", r.Actor)
	design, ok := r.Design.(*judges.DesignRater)
	require.True(t, ok, "%T", r.Design)
	require.Equal(t, []string{"openai/gpt-4.1", "openai/gpt-4.1", "openai/gpt-4.1"}, []string{look.ModelName, act.ModelName, design.ModelName})
	for _, m := range []llm.Model{look.Model, act.Model, design.Model} {
		_, err := m.Chat(context.Background(), llm.Request{Messages: []llm.Message{llm.UserText("hello")}})
		require.NoError(t, err)
	}
	require.Equal(t, map[string]int{"Bearer " + key: 3}, auth, "every call carries the worker's key")
	// The world judge: offline, and with the models file's roles, each
	// by the name a run records in its trials' keys; another is refused.
	world, err := task.Load(filepath.Join(worldSuite(), "world", "tiny-isle"))
	require.NoError(t, err)
	const withModels = "models blind_identifier=openai/gpt-4.1@t=0 code_probe=openai/gpt-4.1@t=0 evidence_agent=openai/gpt-4.1@t=0 extract=openai/gpt-4.1@t=0 navigator=openai/gpt-4.1@t=0 visual_judge=openai/gpt-4.1@t=0"
	for judging, offline := range map[string]bool{"offline": true, withModels: false} {
		j, err := r.World(world, judging)
		require.NoError(t, err, judging)
		wj := j.(*worldjudge.TrialJudge)
		require.Equal(t, offline, wj.Options.Offline, judging)
		require.Equal(t, judging, wj.Options.Name())
		require.Equal(t, "test/tiny-isle", wj.Options.Rubric.Name)
	}
	_, err = r.World(world, "models code_probe=anthropic/claude-sonnet-4-5")
	require.ErrorIs(t, err, worldjudge.ErrOtherJudging)

	r, warnings = build(map[string]string{})
	require.Nil(t, r.Looker)
	require.Nil(t, r.Actor)
	require.Nil(t, r.Design.(*judges.DesignRater).Model)
	require.Equal(t, 3, strings.Count(warnings, "needs an API key in $WORKER_TEST_KEY, which is not set"), warnings)
	require.Contains(t, warnings, "WARNING: the look steps this worker judges will be unjudged")
	require.Contains(t, warnings, "WARNING: the assertions after the act steps this worker judges will be unjudged")
	require.Contains(t, warnings, "WARNING: this worker judges worlds offline only: the world judge's code_probe role (openai/gpt-4.1) has no API key in $WORKER_TEST_KEY here; trials a run judges with models are left to other workers")
	j, err := r.World(world, "offline")
	require.NoError(t, err)
	require.True(t, j.(*worldjudge.TrialJudge).Options.Offline)
	_, err = r.World(world, withModels)
	require.ErrorIs(t, err, worldjudge.ErrOtherJudging)
	require.NotContains(t, warnings, key)
}
