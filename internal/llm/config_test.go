package llm

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func ptr[T any](v T) *T { return &v }

func TestExampleModelsFile(t *testing.T) {
	cfg, err := ReadConfig(filepath.Join("testdata", "models_example.yaml"))
	require.NoError(t, err)
	require.Equal(t, Budgets{RunUSD: 25, TrialUSD: 1.5}, cfg.Budgets)
	require.Equal(t, 16, cfg.Providers["openai"].Concurrency)
	require.Equal(t, Price{Input: 3, Output: 12}, cfg.Pricing["my-finetune"])

	gen, err := cfg.Resolve(Generator)
	require.NoError(t, err)
	require.Equal(t, 5, gen.MaxRetries)
	require.Len(t, gen.Chain, 3)
	require.Equal(t, ModelConfig{
		Provider: "anthropic", Model: "claude-sonnet-4-5", BaseURL: "https://api.anthropic.com/", KeyEnv: "ANTHROPIC_API_KEY",
		Temperature: ptr(0.7), MaxTokens: 16000, Timeout: Duration(5 * time.Minute),
		RequestsPerMinute: 50, TokensPerMinute: 400000, MaxInputTokens: 200000,
	}, gen.Chain[0].ModelConfig)
	require.Equal(t, ModelConfig{
		Provider: "openai", Model: "gpt-4.1", BaseURL: "https://api.openai.com/v1/", KeyEnv: "OPENAI_API_KEY",
		Temperature: ptr(0.7), MaxTokens: 16000, Timeout: Duration(5 * time.Minute), MaxInputTokens: 1000000,
	}, gen.Chain[1].ModelConfig, "fallbacks inherit call parameters, not limits")
	require.Equal(t, "https://openrouter.ai/api/v1/", gen.Chain[2].BaseURL)
	require.Equal(t, "OPENROUTER_API_KEY", gen.Chain[2].KeyEnv)

	judge, err := cfg.Resolve(VisualJudge)
	require.NoError(t, err)
	require.Equal(t, ModelConfig{
		Provider: "openai", Model: "gpt-4.1-mini", BaseURL: "https://api.openai.com/v1/", KeyEnv: "OPENAI_API_KEY",
		Temperature: ptr(0.0), MaxTokens: 2048, Timeout: Duration(3 * time.Minute),
	}, judge.Chain[1].ModelConfig, "a fallback naming only a model keeps the provider; defaults: timeout applies")

	nav, err := cfg.Resolve(Navigator)
	require.NoError(t, err)
	require.Equal(t, ModelConfig{
		Provider: "ollama", Model: "qwen2.5vl:7b", BaseURL: "http://gpu-box.local:11434/v1/",
		Temperature: ptr(0.0), MaxTokens: 1024, Timeout: Duration(90 * time.Second),
	}, nav.Chain[0].ModelConfig)
	require.False(t, nav.Chain[0].KeyRequired())

	probe, err := cfg.Resolve(CodeProbe)
	require.NoError(t, err)
	require.True(t, probe.Chain[0].KeyRequired())
	require.Equal(t, "openai", probe.Chain[0].Wire())
}

func TestBuiltinDefaults(t *testing.T) {
	cfg := DefaultConfig()
	for _, role := range Roles() {
		res, err := cfg.Resolve(role)
		require.NoError(t, err, role)
		require.Equal(t, defaultMaxRetries, res.MaxRetries)
		for _, m := range res.Chain {
			_, priced := DefaultPricing().Lookup(m.Model)
			require.True(t, priced, "built-in model %s of %s has a price", m, role)
			require.NotZero(t, m.Timeout)
			require.NotEmpty(t, m.KeyEnv)
		}
	}
	gen, err := (&Config{}).Resolve(Generator)
	require.NoError(t, err)
	require.Equal(t, "anthropic/claude-sonnet-4-5", gen.Chain[0].String())
	require.Equal(t, "openai/gpt-4.1", gen.Chain[1].String())
}

func TestDefaultsBlockPointsEveryRole(t *testing.T) {
	cfg, err := ParseConfig([]byte("defaults:\n  provider: ollama\n  model: llama3.2\nroles:\n  visual_judge:\n    temperature: 0.1\n"))
	require.NoError(t, err)
	for _, role := range Roles() {
		res, err := cfg.Resolve(role)
		require.NoError(t, err)
		require.Len(t, res.Chain, 1, "a new endpoint drops the built-in fallbacks")
		require.Equal(t, "ollama/llama3.2", res.Chain[0].String())
	}
	judge, err := cfg.Resolve(VisualJudge)
	require.NoError(t, err)
	require.Equal(t, ptr(0.1), judge.Chain[0].Temperature)
	require.Equal(t, 2048, judge.Chain[0].MaxTokens, "role parameters survive a provider change")
}

func TestConfigErrors(t *testing.T) {
	cases := map[string]string{
		"roles:\n  judge:\n    model: x\n":                          `unknown role "judge"`,
		"roles:\n  generator:\n    modle: x\n":                      "field modle not found",
		"roles:\n  generator:\n    provider: azure\n    model: x\n": `generator: unknown provider "azure"`,
		"roles:\n  generator:\n    temperature: 3\n":                "generator: temperature 3 is outside 0..2",
		"roles:\n  generator:\n    max_retries: -1\n":               "generator: max_retries must not be negative",
		"roles:\n  generator:\n    timeout: soon\n":                 `duration: time: invalid duration "soon"`,
		"version: 2\n":                            "unsupported version 2",
		"providers:\n  foo: {concurrency: 2}\n":   `providers: unknown provider "foo"`,
		"pricing:\n  m: {input: -1, output: 1}\n": "pricing: m: prices must not be negative",
		"roles:\n  generator:\n    fallback:\n      - provider: nope\n        model: m\n": `generator: fallback 1: unknown provider "nope"`,
	}
	for text, want := range cases {
		_, err := ParseConfig([]byte(text))
		require.ErrorContains(t, err, want, text)
	}
}

func TestResolveErrors(t *testing.T) {
	cfg, err := ParseConfig([]byte("roles:\n  generator:\n    provider: openai_compatible\n    model: m\n  navigator:\n    provider: openai\n"))
	require.NoError(t, err)
	_, err = cfg.Resolve(Generator)
	require.EqualError(t, err, "llm: role generator: provider openai_compatible: base_url is required")
	_, err = cfg.Resolve(Navigator)
	require.EqualError(t, err, "llm: role navigator: provider openai: model is required")
	_, err = cfg.Resolve("judge")
	require.ErrorContains(t, err, `llm: unknown role "judge"`)
}

func TestDurationForms(t *testing.T) {
	cfg, err := ParseConfig([]byte("roles:\n  generator:\n    timeout: 45\n  navigator:\n    timeout: 1m30s\n"))
	require.NoError(t, err)
	require.Equal(t, Duration(45*time.Second), cfg.Roles[Generator].Timeout)
	require.Equal(t, Duration(90*time.Second), cfg.Roles[Navigator].Timeout)
	b, err := json.Marshal(Duration(90 * time.Second))
	require.NoError(t, err)
	require.Equal(t, `"1m30s"`, string(b))
}

func TestLoadPicksModelsFile(t *testing.T) {
	t.Chdir(t.TempDir())
	reg, err := Load("", nil)
	require.NoError(t, err)
	require.Equal(t, BuiltinSource, reg.Source())

	require.NoError(t, os.WriteFile(DefaultModelsFile, []byte("budgets:\n  run_usd: 3\n"), 0o644))
	reg, err = Load("", nil)
	require.NoError(t, err)
	require.Equal(t, DefaultModelsFile, reg.Source())
	require.Equal(t, Budgets{RunUSD: 3}, reg.Budgets())

	_, err = Load("missing.yaml", nil)
	require.ErrorContains(t, err, "llm: read models file: open missing.yaml")

	require.NoError(t, os.WriteFile("bad.yaml", []byte("roles: [\n"), 0o644))
	_, err = Load("bad.yaml", nil)
	require.ErrorContains(t, err, "llm: bad.yaml: parse models file")
}

func TestRoleIsBuiltOnce(t *testing.T) {
	srv := newFakeServer(t)
	h := newHarness(t, yamlRoles("  visual_judge:\n    "+openaiRole(srv)))
	a, err := h.reg.Role(context.Background(), VisualJudge)
	require.NoError(t, err)
	b, err := h.reg.Role(context.Background(), VisualJudge)
	require.NoError(t, err)
	require.Same(t, a, b)
	_, err = h.reg.Role(context.Background(), "judge")
	require.ErrorContains(t, err, `unknown role "judge"`)
	_, err = ParseRole("xr_actor")
	require.NoError(t, err)
}

func TestModelsSchema(t *testing.T) {
	var doc map[string]any
	require.NoError(t, json.Unmarshal(ModelsSchema(), &doc))
	defs := doc["$defs"].(map[string]any)
	roles := defs["Config"].(map[string]any)["properties"].(map[string]any)["roles"].(map[string]any)
	props := roles["properties"].(map[string]any)
	var names []string
	for _, r := range Roles() {
		names = append(names, string(r))
		require.Equal(t, map[string]any{"$ref": "#/$defs/RoleConfig"}, props[string(r)])
	}
	require.Len(t, props, len(names))
	require.Equal(t, false, roles["additionalProperties"])
	rc := defs["RoleConfig"].(map[string]any)["properties"].(map[string]any)
	for _, field := range []string{"provider", "model", "base_url", "key_env", "temperature", "max_tokens", "timeout",
		"requests_per_minute", "tokens_per_minute", "max_input_tokens", "max_retries", "fallback"} {
		require.Contains(t, rc, field)
	}
	price := defs["Price"].(map[string]any)["properties"].(map[string]any)["input"].(map[string]any)
	require.Equal(t, "USD per 1M uncached input tokens.", price["description"])
}
