package gen

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/llm"
)

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"openai/gpt-4.1":                         "openai-gpt-4.1",
		"ollama/qwen2.5-coder:14b":               "ollama-qwen2.5-coder-14b",
		"openrouter/anthropic/claude-sonnet-4.5": "openrouter-anthropic-claude-sonnet-4.5",
		"anthropic/claude sonnet":                "anthropic-claude-sonnet",
	} {
		require.Equal(t, want, Slug(in), in)
	}
}

func TestConfigFor(t *testing.T) {
	temp := 0.2
	retries := 1
	base, err := llm.ParseConfig([]byte(`
budgets: {run_usd: 5}
defaults:
  provider: ollama
  model: qwen2.5vl:7b
  base_url: http://gpu-box:11434/v1
roles:
  generator:
    provider: anthropic
    model: claude-sonnet-4-5
    temperature: 0.2
    max_tokens: 32000
    max_retries: 1
    fallback:
      - provider: openai
        model: gpt-4.1
        key_env: WORK_OPENAI_KEY
        max_input_tokens: 900000
  visual_judge:
    provider: openrouter
    model: openai/gpt-4.1
    key_env: MY_OPENROUTER_KEY
`))
	require.NoError(t, err)

	cfg, role, err := ConfigFor(base, "visual_judge")
	require.NoError(t, err)
	require.Equal(t, llm.VisualJudge, role)
	require.Same(t, base, cfg, "a role is used as the models file configures it")

	resolve := func(spec string) llm.ResolvedModel {
		t.Helper()
		cfg, role, err := ConfigFor(base, spec)
		require.NoError(t, err)
		require.Equal(t, llm.Generator, role)
		require.Equal(t, 5.0, cfg.Budgets.RunUSD)
		res, err := cfg.Resolve(role)
		require.NoError(t, err)
		require.Len(t, res.Chain, 1, "PROVIDER/MODEL is that model alone, without fallbacks")
		require.Equal(t, retries, res.MaxRetries)
		return res.Chain[0]
	}
	gpt := resolve("openai/gpt-4.1")
	require.Equal(t, llm.ModelConfig{Provider: "openai", Model: "gpt-4.1", BaseURL: "https://api.openai.com/v1/", KeyEnv: "WORK_OPENAI_KEY",
		Temperature: &temp, MaxTokens: 32000, Timeout: llm.Duration(5 * 60e9), MaxInputTokens: 900000}, gpt.ModelConfig,
		"the generator's call parameters, and the endpoint of the file's entry for that model")
	mini := resolve("openai/gpt-4.1-mini")
	require.Equal(t, "WORK_OPENAI_KEY", mini.KeyEnv, "the key of the first entry for the provider")
	require.Zero(t, mini.MaxInputTokens, "limits come only from an entry of the same model")
	local := resolve("ollama/qwen2.5-coder:14b")
	require.Equal(t, "http://gpu-box:11434/v1/", local.BaseURL, "the defaults' base_url for that provider")
	router := resolve("openrouter/anthropic/claude-sonnet-4.5")
	require.Equal(t, "anthropic/claude-sonnet-4.5", router.Model)
	require.Equal(t, "MY_OPENROUTER_KEY", router.KeyEnv)
	gem := resolve("gemini/gemini-2.5-pro")
	require.Equal(t, "GEMINI_API_KEY", gem.KeyEnv, "no entry for the provider: its defaults")
	require.Equal(t, "anthropic", base.Roles[llm.Generator].Provider, "the models file's configuration is not changed")

	for spec, msg := range map[string]string{
		"judge":   `--model "judge": not a role and not PROVIDER/MODEL: llm: unknown role "judge"`,
		"acme/x":  `--model "acme/x": unknown provider "acme" (known: anthropic, gemini, ollama, openai, openai_compatible, openrouter, vllm)`,
		"openai/": `--model "openai/": no model after the provider (write PROVIDER/MODEL, e.g. openai/gpt-4.1)`,
	} {
		_, _, err := ConfigFor(base, spec)
		require.ErrorContains(t, err, msg)
	}
}
