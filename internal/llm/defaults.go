package llm

import "time"

// Built-in defaults that apply when models.yaml leaves a field unset.
const (
	defaultMaxRetries  = 4
	defaultTimeout     = 2 * time.Minute
	defaultMaxTokens   = 4096
	defaultConcurrency = 8
)

// defaultRoles is the one place where each role's built-in model and
// parameters live. models.yaml entries are laid over these.
func defaultRoles() map[Role]RoleConfig {
	claude := func(temp float64, maxTokens int, timeout time.Duration) ModelConfig {
		return ModelConfig{Provider: "anthropic", Model: "claude-sonnet-4-5", Temperature: &temp,
			MaxTokens: maxTokens, Timeout: Duration(timeout), MaxInputTokens: 200_000}
	}
	gpt := func(model string, temp float64, maxTokens int, timeout time.Duration) ModelConfig {
		return ModelConfig{Provider: "openai", Model: model, Temperature: &temp,
			MaxTokens: maxTokens, Timeout: Duration(timeout), MaxInputTokens: 1_000_000}
	}
	gptFallback := ModelConfig{Provider: "openai", Model: "gpt-4.1", MaxInputTokens: 1_000_000}
	return map[Role]RoleConfig{
		Generator:       {ModelConfig: claude(0.7, 16_000, 5*time.Minute), Fallback: []ModelConfig{gptFallback}},
		Repairer:        {ModelConfig: claude(0.2, 16_000, 5*time.Minute), Fallback: []ModelConfig{gptFallback}},
		Navigator:       {ModelConfig: gpt("gpt-4.1-mini", 0, 1024, time.Minute)},
		CodeProbe:       {ModelConfig: gpt("gpt-4.1-mini", 0, 4096, 2*time.Minute)},
		VisualJudge:     {ModelConfig: gpt("gpt-4.1", 0, 2048, 2*time.Minute)},
		BlindIdentifier: {ModelConfig: gpt("gpt-4.1", 0, 1024, 2*time.Minute)},
		EvidenceAgent:   {ModelConfig: claude(0, 4096, 3*time.Minute)},
		XRActor:         {ModelConfig: gpt("gpt-4.1-mini", 0.2, 1024, time.Minute)},
		Extract:         {ModelConfig: gpt("gpt-4.1-mini", 0, 4096, 2*time.Minute)},
	}
}

// DefaultConfig returns the built-in configuration: every role with its
// default model, no budgets, no cache.
func DefaultConfig() *Config {
	return &Config{Version: 1, Roles: defaultRoles()}
}
