package llm

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCacheHit(t *testing.T) {
	srv := newFakeServer(t, ok("openai_text.json"), ok("openai_text.json"))
	dir := t.TempDir()
	h := newHarness(t, "cache_dir: "+dir+"\n"+yamlRoles("  visual_judge:\n    "+openaiRole(srv)))

	first, err := h.chat(t, VisualJudge, prompt("describe"))
	require.NoError(t, err)
	require.Equal(t, SourceLive, first.Source)

	second, err := h.chat(t, VisualJudge, prompt("describe"))
	require.NoError(t, err)
	require.Equal(t, SourceCache, second.Source)
	require.Equal(t, first.Text, second.Text)
	require.Equal(t, first.Usage, second.Usage)
	require.Equal(t, 0.0, second.CostUSD, "a cache hit costs nothing")
	require.Len(t, srv.requests(), 1)

	// Another variant of the same prompt is a different request.
	third, err := h.chat(t, VisualJudge, Request{Messages: []Message{UserText("describe")}, Variant: "sample-2"})
	require.NoError(t, err)
	require.Equal(t, SourceLive, third.Source)
	require.Len(t, srv.requests(), 2)

	run := h.reg.Ledger().Run()
	require.Equal(t, 3, run.Calls)
	require.Equal(t, 1, run.CacheHits)
	require.Equal(t, int64(2400), run.InputTokens, "cache hits add no tokens")
	require.InDelta(t, 0.009, run.CostUSD, 1e-12)
	require.Equal(t, []EventKind{EventDone, EventCacheHit, EventDone}, h.kinds())

	digest, err := Digest("openai", "test-gpt", Request{Messages: []Message{UserText("describe")}, MaxTokens: 2048, Temperature: first.reqTemperature(t, h)})
	require.NoError(t, err)
	_, err = os.Stat(filepath.Join(dir, digest[:2], digest+".json"))
	require.NoError(t, err)
}

// reqTemperature returns the temperature visual_judge sends by default.
func (r *Response) reqTemperature(t *testing.T, h *harness) *float64 {
	t.Helper()
	m, err := h.reg.Role(context.Background(), VisualJudge)
	require.NoError(t, err)
	return m.(*RoleModel).Chain()[0].Temperature
}

func TestCacheStore(t *testing.T) {
	c, err := OpenCache(filepath.Join(t.TempDir(), "cache"))
	require.NoError(t, err)
	digest := "ab" + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcd"
	_, ok, err := c.Get(digest)
	require.NoError(t, err)
	require.False(t, ok)
	require.NoError(t, c.Put(digest, &Response{Text: "hi", Model: "m", Usage: Usage{InputTokens: 3}}))
	got, ok, err := c.Get(digest)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, &Response{Text: "hi", Model: "m", Usage: Usage{InputTokens: 3}}, got)
}

func TestDigest(t *testing.T) {
	base := Request{Messages: []Message{UserParts(Text("look"), Image("image/png", []byte{1, 2, 3}))}, MaxTokens: 10}
	d1, err := Digest("openai", "gpt-4.1", base)
	require.NoError(t, err)
	d2, err := Digest("openai", "gpt-4.1", base)
	require.NoError(t, err)
	require.Equal(t, d1, d2)
	require.Len(t, d1, 64)

	temp := 0.5
	variants := []func() (string, error){
		func() (string, error) { return Digest("openai", "gpt-4.1-mini", base) },
		func() (string, error) { return Digest("openrouter", "gpt-4.1", base) },
		func() (string, error) { r := base; r.MaxTokens = 11; return Digest("openai", "gpt-4.1", r) },
		func() (string, error) { r := base; r.Temperature = &temp; return Digest("openai", "gpt-4.1", r) },
		func() (string, error) { r := base; r.Variant = "2"; return Digest("openai", "gpt-4.1", r) },
		func() (string, error) {
			r := base
			r.Messages = []Message{UserParts(Text("look"), Image("image/png", []byte{1, 2, 4}))}
			return Digest("openai", "gpt-4.1", r)
		},
	}
	seen := map[string]bool{d1: true}
	for i, v := range variants {
		d, err := v()
		require.NoError(t, err)
		require.False(t, seen[d], "variant %d collides", i)
		seen[d] = true
	}

	_, err = Digest("openai", "m", Request{Tools: []Tool{{Name: "x", Parameters: []byte("{not json")}}})
	require.ErrorContains(t, err, "llm: digest request")
}
