package gen

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/llm"
)

// TestRunWritesEverySampleAndResumes: 40 tasks × 2 samples generated 8 at
// a time, each sample's files in its folder; a second Run makes no call.
func TestRunWritesEverySampleAndResumes(t *testing.T) {
	page := reply(t, "gpt_prose_fence.md")
	var calls atomic.Int32
	variants := make(chan string, 100)
	m := &Model{Spec: "openai/test-gpt", Slug: "openai-test-gpt", Role: llm.Generator, Name: "openai/test-gpt",
		Chat: llm.ModelFunc(func(ctx context.Context, req llm.Request) (*llm.Response, error) {
			calls.Add(1)
			variants <- req.Variant
			require.Contains(t, llm.TrialFromContext(ctx), "openai-test-gpt/sample-")
			return &llm.Response{Text: page, StopReason: llm.StopEnd, Provider: "openai", Model: "test-gpt",
				Usage: llm.Usage{InputTokens: 10, OutputTokens: 20}, CostUSD: 0.001}, nil
		})}
	out := t.TempDir()
	var progress bytes.Buffer
	o := Options{Tasks: starter(t), Models: []*Model{m}, Samples: 2, Out: out, Jobs: 8, Progress: &progress}
	sum, err := Run(context.Background(), o)
	require.NoError(t, err)
	require.Equal(t, 80, sum.Planned)
	require.Len(t, sum.Records, 80)
	require.EqualValues(t, 80, calls.Load())
	require.Equal(t, 80, strings.Count(progress.String(), "\n"))
	require.Contains(t, progress.String(), "[80/80] ")
	close(variants)
	seen := map[string]int{}
	for v := range variants {
		seen[v]++
	}
	require.Equal(t, map[string]int{"sample-1": 40, "sample-2": 40}, seen)
	ex := Extract(page)
	for _, tk := range o.Tasks {
		for k := 1; k <= 2; k++ {
			dir := filepath.Join(out, "openai-test-gpt", SampleDir(k), filepath.FromSlash(tk.ID))
			b, err := os.ReadFile(filepath.Join(dir, PageFile))
			require.NoError(t, err)
			require.Equal(t, ex.HTML, string(b))
			r, err := ReadRecord(dir)
			require.NoError(t, err)
			require.Equal(t, StatusDone, r.Status)
			require.Equal(t, k, r.Sample)
		}
	}

	sum, err = Run(context.Background(), o)
	require.NoError(t, err)
	require.Equal(t, 80, sum.KeptDone)
	require.Empty(t, sum.ToDo)
	require.EqualValues(t, 80, calls.Load(), "nothing is generated again")
}
