package llm

import (
	"fmt"
)

// ResolvedModel is a [ModelConfig] with every default filled in.
type ResolvedModel struct {
	ModelConfig
	spec providerSpec
}

// Wire returns the wire format, "openai" or "anthropic".
func (m ResolvedModel) Wire() string { return m.spec.wire }

// KeyRequired reports whether the provider needs an API key.
func (m ResolvedModel) KeyRequired() bool { return !m.spec.keyOptional || m.KeyEnv != "" }

// String returns "provider/model".
func (m ResolvedModel) String() string { return m.Provider + "/" + m.Model }

// ResolvedRole is a role's effective configuration.
type ResolvedRole struct {
	// Role is the role.
	Role Role
	// Chain is the primary model followed by its fallbacks.
	Chain []ResolvedModel
	// MaxRetries is the retries per model.
	MaxRetries int
}

// Resolve returns the effective configuration of role: the built-in
// default, overlaid by the file's defaults entry, overlaid by the role's
// entry, with provider defaults filled in.
func (c *Config) Resolve(role Role) (ResolvedRole, error) {
	if !role.Valid() {
		return ResolvedRole{}, fmt.Errorf("llm: unknown role %q (known: %v)", role, Roles())
	}
	rc := defaultRoles()[role]
	if c.Defaults != nil {
		rc = overlay(rc, *c.Defaults)
	}
	if own, ok := c.Roles[role]; ok {
		rc = overlay(rc, own)
	}
	primary, err := fillModel(rc.ModelConfig, nil)
	if err != nil {
		return ResolvedRole{}, fmt.Errorf("llm: role %s: %w", role, err)
	}
	out := ResolvedRole{Role: role, Chain: []ResolvedModel{primary}, MaxRetries: defaultMaxRetries}
	if rc.MaxRetries != nil {
		out.MaxRetries = *rc.MaxRetries
	}
	for i, fb := range rc.Fallback {
		m, err := fillModel(fb, &primary)
		if err != nil {
			return ResolvedRole{}, fmt.Errorf("llm: role %s: fallback %d: %w", role, i+1, err)
		}
		out.Chain = append(out.Chain, m)
	}
	return out, nil
}

// overlay lays top over base. Naming a provider or model starts a new
// endpoint, so the base's endpoint fields (URL, key, limits, fallbacks)
// are dropped; the call parameters (temperature, tokens, timeout) stay.
func overlay(base, top RoleConfig) RoleConfig {
	if top.Provider != "" || top.Model != "" {
		base.Provider, base.Model, base.BaseURL, base.KeyEnv = "", "", "", ""
		base.RequestsPerMinute, base.TokensPerMinute, base.MaxInputTokens = 0, 0, 0
		base.Fallback = nil
	}
	base.ModelConfig = overlayModel(base.ModelConfig, top.ModelConfig)
	if top.MaxRetries != nil {
		base.MaxRetries = top.MaxRetries
	}
	if top.Fallback != nil {
		base.Fallback = top.Fallback
	}
	return base
}

// overlayModel sets every field of top that is set.
func overlayModel(base, top ModelConfig) ModelConfig {
	set := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	setInt := func(dst *int, v int) {
		if v != 0 {
			*dst = v
		}
	}
	set(&base.Provider, top.Provider)
	set(&base.Model, top.Model)
	set(&base.BaseURL, top.BaseURL)
	set(&base.KeyEnv, top.KeyEnv)
	if top.Temperature != nil {
		base.Temperature = top.Temperature
	}
	setInt(&base.MaxTokens, top.MaxTokens)
	if top.Timeout != 0 {
		base.Timeout = top.Timeout
	}
	setInt(&base.RequestsPerMinute, top.RequestsPerMinute)
	setInt(&base.TokensPerMinute, top.TokensPerMinute)
	setInt(&base.MaxInputTokens, top.MaxInputTokens)
	return base
}

// fillModel fills provider defaults. A fallback (parent != nil) inherits
// the parent's call parameters, and its provider when it names none.
func fillModel(mc ModelConfig, parent *ResolvedModel) (ResolvedModel, error) {
	if parent != nil {
		if mc.Provider == "" {
			mc.Provider, mc.BaseURL, mc.KeyEnv = parent.Provider, firstNonEmpty(mc.BaseURL, parent.BaseURL), firstNonEmpty(mc.KeyEnv, parent.KeyEnv)
		}
		if mc.Temperature == nil {
			mc.Temperature = parent.Temperature
		}
		if mc.MaxTokens == 0 {
			mc.MaxTokens = parent.MaxTokens
		}
		if mc.Timeout == 0 {
			mc.Timeout = parent.Timeout
		}
	}
	if mc.Provider == "" {
		return ResolvedModel{}, fmt.Errorf("provider is required (one of %v)", ProviderNames())
	}
	spec, ok := providerSpecs[mc.Provider]
	if !ok {
		return ResolvedModel{}, fmt.Errorf("unknown provider %q (known: %v)", mc.Provider, ProviderNames())
	}
	if mc.Model == "" {
		return ResolvedModel{}, fmt.Errorf("provider %s: model is required", mc.Provider)
	}
	mc.BaseURL = normalizeBaseURL(firstNonEmpty(mc.BaseURL, spec.baseURL))
	if mc.BaseURL == "" {
		return ResolvedModel{}, fmt.Errorf("provider %s: base_url is required", mc.Provider)
	}
	mc.KeyEnv = firstNonEmpty(mc.KeyEnv, spec.keyEnv)
	if mc.MaxTokens == 0 {
		mc.MaxTokens = defaultMaxTokens
	}
	if mc.Timeout == 0 {
		mc.Timeout = Duration(defaultTimeout)
	}
	return ResolvedModel{ModelConfig: mc, spec: spec}, nil
}
