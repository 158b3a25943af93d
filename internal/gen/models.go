package gen

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/worldprobe/worldprobe/internal/llm"
)

// ConfigFor reads a --model value against the models file's configuration
// base and returns the configuration and role to generate with:
//   - a role name ("generator") is that role as base configures it,
//     fallbacks included;
//   - PROVIDER/MODEL ("openai/gpt-4.1", "openrouter/anthropic/claude-sonnet-4.5",
//     "ollama/qwen2.5-coder:14b") is that one model, without fallbacks, as
//     the generator role: with the generator's call parameters
//     (temperature, max_tokens, timeout, max_retries) and, from the first
//     entry of base that names the same provider (the same model first;
//     the generator, then defaults, then the other roles, each before its
//     fallbacks), its base_url and key_env.
//
// base is not changed; the budgets, pricing, providers and cache of base
// apply to the configuration returned.
func ConfigFor(base *llm.Config, spec string) (*llm.Config, llm.Role, error) {
	if base == nil {
		base = &llm.Config{Version: 1}
	}
	provider, model, ok := strings.Cut(spec, "/")
	if !ok {
		role, err := llm.ParseRole(spec)
		if err != nil {
			return nil, "", fmt.Errorf("--model %q: not a role and not PROVIDER/MODEL: %w", spec, err)
		}
		return base, role, nil
	}
	if !slices.Contains(llm.ProviderNames(), provider) {
		return nil, "", fmt.Errorf("--model %q: unknown provider %q (known: %s)", spec, provider, strings.Join(llm.ProviderNames(), ", "))
	}
	if model == "" {
		return nil, "", fmt.Errorf("--model %q: no model after the provider (write PROVIDER/MODEL, e.g. openai/gpt-4.1)", spec)
	}
	own := base.Roles[llm.Generator]
	rc := llm.RoleConfig{MaxRetries: own.MaxRetries}
	rc.Provider, rc.Model = provider, model
	rc.Temperature, rc.MaxTokens, rc.Timeout = own.Temperature, own.MaxTokens, own.Timeout
	if ep, exact := endpointOf(base, provider, model); ep != nil {
		rc.BaseURL, rc.KeyEnv = ep.BaseURL, ep.KeyEnv
		if exact {
			rc.RequestsPerMinute, rc.TokensPerMinute, rc.MaxInputTokens = ep.RequestsPerMinute, ep.TokensPerMinute, ep.MaxInputTokens
		}
	}
	cfg := *base
	cfg.Roles = maps.Clone(base.Roles)
	if cfg.Roles == nil {
		cfg.Roles = map[llm.Role]llm.RoleConfig{}
	}
	cfg.Roles[llm.Generator] = rc
	return &cfg, llm.Generator, nil
}

// endpointOf finds the entry of cfg that names provider: one naming model
// too first (exact), else the first naming the provider.
func endpointOf(cfg *llm.Config, provider, model string) (ep *llm.ModelConfig, exact bool) {
	var entries []llm.ModelConfig
	add := func(rc llm.RoleConfig) {
		entries = append(entries, rc.ModelConfig)
		for _, fb := range rc.Fallback {
			if fb.Provider == "" {
				fb.Provider, fb.BaseURL, fb.KeyEnv = rc.Provider, firstOf(fb.BaseURL, rc.BaseURL), firstOf(fb.KeyEnv, rc.KeyEnv)
			}
			entries = append(entries, fb)
		}
	}
	if rc, ok := cfg.Roles[llm.Generator]; ok {
		add(rc)
	}
	if cfg.Defaults != nil {
		add(*cfg.Defaults)
	}
	for _, r := range llm.Roles() {
		if rc, ok := cfg.Roles[r]; ok && r != llm.Generator {
			add(rc)
		}
	}
	for i := range entries {
		if entries[i].Provider == provider && entries[i].Model == model {
			return &entries[i], true
		}
	}
	for i := range entries {
		if entries[i].Provider == provider {
			return &entries[i], false
		}
	}
	return nil, false
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// Slug is the folder name of a provider/model: every character but
// letters, digits, '.', '_' and '-' becomes '-' ("openai/gpt-4.1" →
// "openai-gpt-4.1", "ollama/qwen2.5-coder:14b" → "ollama-qwen2.5-coder-14b").
func Slug(name string) string {
	s := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			return r
		}
		return '-'
	}, name)
	return strings.Trim(s, ".-")
}
