package llm

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestKeyNeverLeaks(t *testing.T) {
	// The provider echoes the key in a retryable error, then in a fatal one.
	srv := newFakeServer(t,
		reply{status: 502, file: "openai_error_502_echo.json"},
		reply{status: 401, file: "openai_error_401.json"})
	good := newFakeServer(t, ok("openai_text.json"))
	dir := t.TempDir()
	h := newHarness(t, "cache_dir: "+filepath.Join(dir, "cache")+"\n"+yamlRoles(
		"  generator:\n    "+openaiRole(srv), "  visual_judge:\n    "+openaiRole(good)), WithRecord(filepath.Join(dir, "rec")))

	_, err := h.chat(t, Generator, prompt("build"))
	require.True(t, IsFatal(err))
	require.NotContains(t, err.Error(), testKey)
	require.Contains(t, err.Error(), "Incorrect API key provided: [REDACTED].")
	_, err = h.chat(t, VisualJudge, prompt("judge"))
	require.NoError(t, err)

	// Requests did carry the key, so the redaction is real.
	require.Equal(t, "Bearer "+testKey, srv.requests()[0].Header.Get("Authorization"))

	logs := h.logs.String()
	require.Contains(t, logs, "llm retrying")
	require.Contains(t, logs, "Authorization: Bearer [REDACTED]")
	require.NotContains(t, logs, testKey)
	for _, e := range h.events {
		require.NotContains(t, e.Error, testKey)
	}
	var files int
	require.NoError(t, filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		if d.IsDir() {
			return nil
		}
		files++
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		require.NotContains(t, string(data), testKey, path)
		return nil
	}))
	require.Equal(t, 2, files, "one cache entry and one recording")
}

func TestDescribeShowsKeyPresenceOnly(t *testing.T) {
	h := newHarness(t, yamlRoles(
		"  visual_judge:\n    provider: openai\n    model: test-gpt\n    key_env: TEST_OPENAI_KEY",
		"  navigator:\n    provider: ollama\n    model: llama3.2",
		"  generator:\n    provider: anthropic\n    model: test-claude\n    key_env: TEST_UNSET_KEY"))
	infos, err := h.reg.Describe(context.Background())
	require.NoError(t, err)
	require.Len(t, infos, len(Roles()))
	byRole := map[Role]RoleInfo{}
	for _, ri := range infos {
		byRole[ri.Role] = ri
	}
	judge := byRole[VisualJudge].Models[0]
	require.True(t, judge.KeyPresent)
	require.True(t, judge.KeyRequired)
	require.Equal(t, "table", judge.Pricing)
	require.Equal(t, &Price{Input: 2, CachedInput: 0.5, Output: 8}, judge.Price)
	nav := byRole[Navigator].Models[0]
	require.False(t, nav.KeyRequired)
	require.False(t, nav.KeyPresent)
	require.Equal(t, "http://localhost:11434/v1/", nav.BaseURL)
	require.Equal(t, "free", nav.Pricing)
	gen := byRole[Generator].Models[0]
	require.False(t, gen.KeyPresent)
	require.Equal(t, "TEST_UNSET_KEY", gen.KeyEnv)
	require.False(t, strings.Contains(strings.Join([]string{judge.KeyEnv, judge.BaseURL}, " "), testKey))
}

func TestRedactor(t *testing.T) {
	r := &redactor{}
	r.add("abc") // too short to redact safely
	r.add("secret-1")
	r.add("secret-1")
	require.Equal(t, "abc [REDACTED] [REDACTED]", r.string("abc secret-1 secret-1"))
	require.Len(t, r.secrets, 1)
}
