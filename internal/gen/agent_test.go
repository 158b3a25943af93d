package gen

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/llm"
	"github.com/worldprobe/worldprobe/internal/task"
)

// TestPromptDigestCoversTools: a prompt with tools (an agent run's) has
// another digest than the same texts without, and its requests offer the
// tools; a prompt without tools keeps the digest it always had.
func TestPromptDigestCoversTools(t *testing.T) {
	plain := Prompt{System: "a", User: "b"}
	require.Equal(t, "59b271ae1bbcb1d31d41929817f4b16fb439eb4f31520b5ad1d5ce98920a7138", plain.Digest())
	tools := []llm.Tool{{Name: "finish", Description: "End.", Parameters: json.RawMessage(`{"type":"object","properties":{}}`)}}
	withTools := Prompt{System: "a", User: "b", Tools: tools}
	require.NotEqual(t, plain.Digest(), withTools.Digest())
	other := Prompt{System: "a", User: "b", Tools: []llm.Tool{{Name: "finish", Description: "Done."}}}
	require.NotEqual(t, withTools.Digest(), other.Digest(), "a changed tool changes the digest")
	require.Equal(t, tools, withTools.Request("sample-1").Tools)
	require.Nil(t, plain.Request("sample-1").Tools)
}

// TestPlanTakesThePromptItIsGiven: Options.Prompt replaces PromptOf, and
// a model's slug names its folder (an agent run's "+agent").
func TestPlanTakesThePromptItIsGiven(t *testing.T) {
	tasks := starter(t)[:2]
	m := &Model{Spec: "generator", Slug: "openai-test-gpt" + AgentSuffix, Role: llm.Generator, Name: "openai/test-gpt"}
	out := t.TempDir()
	sum, err := Plan(Options{Tasks: tasks, Models: []*Model{m}, Samples: 1, Out: out,
		Prompt: func(tk *task.Task) (Prompt, error) { return Prompt{System: "agent", User: tk.ID}, nil }})
	require.NoError(t, err)
	require.Len(t, sum.ToDo, 2)
	for i, s := range sum.ToDo {
		require.Equal(t, Prompt{System: "agent", User: tasks[i].ID}, s.Prompt)
		require.Equal(t, s.Prompt.Digest(), s.PromptDigest)
		require.Equal(t, filepath.Join(out, "openai-test-gpt+agent", "sample-1", filepath.FromSlash(tasks[i].ID)), s.Dir)
		require.Equal(t, "openai-test-gpt+agent/sample-1/"+tasks[i].ID, s.Trial())
	}
}
