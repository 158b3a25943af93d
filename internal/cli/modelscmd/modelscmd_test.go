package modelscmd

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/llm"
)

const secret = "sk-modelscmd-SECRET-42"

// run executes `models ARGS...` and returns stdout, stderr and the error.
func run(t *testing.T, env map[string]string, args ...string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := NewCmdModels(IO{In: strings.NewReader(""), Out: &out, ErrOut: &errOut, Getenv: func(k string) string { return env[k] }})
	cmd.SetArgs(args)
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	err := cmd.Execute()
	return out.String(), errOut.String(), err
}

// pongServer answers every chat completion with testdata/openai_pong.json
// after the given number of 503s.
func pongServer(t *testing.T, failures int32) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	body, err := os.ReadFile(filepath.Join("testdata", "openai_pong.json"))
	require.NoError(t, err)
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		if n <= failures {
			w.Header().Set("Retry-After", "0.01")
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte(`{"error":{"message":"busy","type":"server_error"}}`))
			return
		}
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

func writeModels(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "models.yaml")
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	return path
}

func TestListTable(t *testing.T) {
	path := writeModels(t, `roles:
  navigator:
    provider: ollama
    model: llama3.2
  generator:
    provider: anthropic
    model: claude-sonnet-4-5
    fallback:
      - provider: openai
        model: gpt-4.1
`)
	out, _, err := run(t, map[string]string{"OPENAI_API_KEY": secret}, "list", "--models", path)
	require.NoError(t, err)
	require.Equal(t, "models from: "+path+`

ROLE              PROVIDER   MODEL              BASE URL                    KEY                        PRICE  FALLBACK
generator         anthropic  claude-sonnet-4-5  https://api.anthropic.com/  ANTHROPIC_API_KEY missing  table  openai/gpt-4.1
repairer          anthropic  claude-sonnet-4-5  https://api.anthropic.com/  ANTHROPIC_API_KEY missing  table  openai/gpt-4.1
navigator         ollama     llama3.2           http://localhost:11434/v1/  not needed                 free   -
code_probe        openai     gpt-4.1-mini       https://api.openai.com/v1/  OPENAI_API_KEY set         table  -
visual_judge      openai     gpt-4.1            https://api.openai.com/v1/  OPENAI_API_KEY set         table  -
blind_identifier  openai     gpt-4.1            https://api.openai.com/v1/  OPENAI_API_KEY set         table  -
evidence_agent    anthropic  claude-sonnet-4-5  https://api.anthropic.com/  ANTHROPIC_API_KEY missing  table  -
xr_actor          openai     gpt-4.1-mini       https://api.openai.com/v1/  OPENAI_API_KEY set         table  -
extract           openai     gpt-4.1-mini       https://api.openai.com/v1/  OPENAI_API_KEY set         table  -
`, out)
	require.NotContains(t, out, secret)
}

func TestListJSON(t *testing.T) {
	t.Chdir(t.TempDir()) // no models.yaml: built-in defaults
	out, _, err := run(t, map[string]string{"ANTHROPIC_API_KEY": secret}, "list", "--json")
	require.NoError(t, err)
	require.NotContains(t, out, secret)
	var got listOutput
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	require.Equal(t, llm.BuiltinSource, got.Source)
	require.Len(t, got.Roles, len(llm.Roles()))
	gen := got.Roles[0]
	require.Equal(t, llm.Generator, gen.Role)
	require.Len(t, gen.Models, 2)
	require.Equal(t, "anthropic", gen.Models[0].Provider)
	require.Equal(t, "ANTHROPIC_API_KEY", gen.Models[0].KeyEnv)
	require.True(t, gen.Models[0].KeyPresent)
	require.Equal(t, "OPENAI_API_KEY", gen.Models[1].KeyEnv)
	require.False(t, gen.Models[1].KeyPresent)
}

func TestPingRetriesAndAnswers(t *testing.T) {
	srv, calls := pongServer(t, 1)
	path := writeModels(t, "roles:\n  navigator:\n    provider: openai\n    model: gpt-4.1-mini\n    base_url: "+srv.URL+"/v1\n")
	out, errOut, err := run(t, map[string]string{"OPENAI_API_KEY": secret}, "ping", "navigator", "--models", path)
	require.NoError(t, err)
	require.Equal(t, int32(2), calls.Load())
	require.Regexp(t, regexp.MustCompile(`^navigator: openai/gpt-4\.1-mini answered "pong" in \d+ms \(tokens in 14, out 2; \$0\.000009\)\n$`), out)
	require.Equal(t, "retrying openai/gpt-4.1-mini in 10ms (attempt 1 failed: openai gpt-4.1-mini: HTTP 503 (server_error): busy)\n", errOut)
}

func TestPingRecordThenReplay(t *testing.T) {
	srv, calls := pongServer(t, 0)
	path := writeModels(t, "roles:\n  xr_actor:\n    provider: openai\n    model: gpt-4.1-mini\n    base_url: "+srv.URL+"/v1\n")
	dir := t.TempDir()
	env := map[string]string{"OPENAI_API_KEY": secret}
	_, _, err := run(t, env, "ping", "xr_actor", "--models", path, "--record", dir)
	require.NoError(t, err)
	srv.Close()

	out, _, err := run(t, nil, "ping", "xr_actor", "--models", path, "--replay", dir)
	require.NoError(t, err)
	require.Equal(t, "xr_actor: openai/gpt-4.1-mini answered \"pong\" from replay (tokens in 14, out 2; $0.000009)\n", out)
	require.Equal(t, int32(1), calls.Load())

	_, _, err = run(t, nil, "ping", "navigator", "--models", path, "--replay", dir)
	require.ErrorIs(t, err, llm.ErrReplayMiss)
	require.ErrorContains(t, err, "no recorded response for role navigator, request digest ")
}

func TestPingErrors(t *testing.T) {
	t.Chdir(t.TempDir())
	_, _, err := run(t, nil, "ping", "judge")
	require.ErrorContains(t, err, `llm: unknown role "judge"`)

	_, _, err = run(t, nil, "ping", "visual_judge")
	require.True(t, llm.IsFatal(err))
	require.EqualError(t, err, "llm: fatal: role visual_judge (openai gpt-4.1): missing API key: environment variable OPENAI_API_KEY is not set")

	_, _, err = run(t, nil, "ping")
	require.EqualError(t, err, "accepts 1 arg(s), received 0")
}
