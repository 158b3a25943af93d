package llm

import "context"

// ModelInfo describes one resolved model for `worldprobe models list`.
// It tells whether the key is present, never its value.
type ModelInfo struct {
	// Provider is the provider name.
	Provider string `json:"provider"`
	// Model is the model name.
	Model string `json:"model"`
	// BaseURL is the endpoint.
	BaseURL string `json:"base_url"`
	// KeyEnv names the key variable.
	KeyEnv string `json:"key_env,omitempty"`
	// KeyRequired tells whether the provider needs a key.
	KeyRequired bool `json:"key_required"`
	// KeyPresent tells whether KeyEnv is set (the value is never shown).
	KeyPresent bool `json:"key_present"`
	// Temperature is the sampling temperature, if set.
	Temperature *float64 `json:"temperature,omitempty"`
	// MaxTokens is the output cap.
	MaxTokens int `json:"max_tokens"`
	// Timeout bounds one attempt.
	Timeout Duration `json:"timeout"`
	// RequestsPerMinute is the request rate limit, 0 for none.
	RequestsPerMinute int `json:"requests_per_minute,omitempty"`
	// TokensPerMinute is the token rate limit, 0 for none.
	TokensPerMinute int `json:"tokens_per_minute,omitempty"`
	// MaxInputTokens is the input token cap, 0 for none.
	MaxInputTokens int `json:"max_input_tokens,omitempty"`
	// Pricing is "table", "free", "provider" (reported per call) or "missing".
	Pricing string `json:"pricing"`
	// Price is the table price, USD per 1M tokens, when Pricing is "table".
	Price *Price `json:"price,omitempty"`
}

// RoleInfo describes one role for `worldprobe models list`.
type RoleInfo struct {
	// Role is the role.
	Role Role `json:"role"`
	// MaxRetries is the retries per model.
	MaxRetries int `json:"max_retries"`
	// Models is the primary model followed by the fallbacks.
	Models []ModelInfo `json:"models"`
}

// Describe resolves every role without building clients or failing on
// missing keys or prices.
func (r *Registry) Describe(ctx context.Context) ([]RoleInfo, error) {
	var out []RoleInfo
	for _, role := range Roles() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		res, err := r.cfg.Resolve(role)
		if err != nil {
			return nil, err
		}
		info := RoleInfo{Role: role, MaxRetries: res.MaxRetries}
		for _, m := range res.Chain {
			info.Models = append(info.Models, r.modelInfo(m))
		}
		out = append(out, info)
	}
	return out, nil
}

func (r *Registry) modelInfo(m ResolvedModel) ModelInfo {
	mi := ModelInfo{
		Provider: m.Provider, Model: m.Model, BaseURL: m.BaseURL, KeyEnv: m.KeyEnv,
		KeyRequired: m.KeyRequired(), KeyPresent: m.KeyEnv != "" && r.env(m.KeyEnv) != "",
		Temperature: m.Temperature, MaxTokens: m.MaxTokens, Timeout: m.Timeout,
		RequestsPerMinute: m.RequestsPerMinute, TokensPerMinute: m.TokensPerMinute, MaxInputTokens: m.MaxInputTokens,
	}
	p, ok := r.pricing.Lookup(m.Model)
	switch {
	case ok:
		mi.Pricing, mi.Price = "table", &p
	case m.spec.free:
		mi.Pricing = "free"
	case m.spec.reportsCost:
		mi.Pricing = "provider"
	default:
		mi.Pricing = "missing"
	}
	return mi
}

// PingPrompt is the request [Registry.Ping] sends.
const PingPrompt = "Reply with the single word: pong"

// Ping sends a tiny request to role's model chain and returns the answer.
func (r *Registry) Ping(ctx context.Context, role Role) (*Response, error) {
	m, err := r.Role(ctx, role)
	if err != nil {
		return nil, err
	}
	return m.Chat(ctx, Request{Messages: []Message{UserText(PingPrompt)}, MaxTokens: 64})
}
