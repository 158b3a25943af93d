package llm

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"go.yaml.in/yaml/v3"
)

// DefaultModelsFile is the models file read when no --models flag is given.
const DefaultModelsFile = "models.yaml"

// Config is the content of models.yaml. Everything is optional: roles not
// listed keep their built-in defaults ([DefaultConfig]).
type Config struct {
	// Version is the file format version, 1.
	Version int `yaml:"version,omitempty" json:"version,omitempty" jsonschema_description:"File format version; only 1 exists."`
	// AllowUnpriced lets models missing from the pricing table run, costed at 0.
	AllowUnpriced bool `yaml:"allow_unpriced,omitempty" json:"allow_unpriced,omitempty" jsonschema_description:"Run models that have no price, counting their cost as 0 (same as --allow-unpriced)."`
	// CacheDir enables the on-disk response cache in that folder.
	CacheDir string `yaml:"cache_dir,omitempty" json:"cache_dir,omitempty" jsonschema_description:"Folder of the response cache; empty disables the cache."`
	// Budgets caps spending per run and per trial.
	Budgets Budgets `yaml:"budgets,omitempty" json:"budgets,omitempty" jsonschema_description:"Spending limits; a call that would start past a limit fails with ErrBudgetExceeded."`
	// Providers tunes providers by name (openai, anthropic, ...).
	Providers map[string]ProviderConfig `yaml:"providers,omitempty" json:"providers,omitempty" jsonschema_description:"Per-provider settings, keyed by provider name."`
	// Pricing adds or overrides prices, keyed by model name.
	Pricing map[string]Price `yaml:"pricing,omitempty" json:"pricing,omitempty" jsonschema_description:"Prices in USD per 1M tokens keyed by model name; adds to or overrides the built-in table."`
	// Defaults applies to every role before the role's own entry.
	Defaults *RoleConfig `yaml:"defaults,omitempty" json:"defaults,omitempty" jsonschema_description:"Settings applied to every role before its own entry, e.g. to point all roles at one provider."`
	// Roles configures roles by name.
	Roles map[Role]RoleConfig `yaml:"roles,omitempty" json:"roles,omitempty" jsonschema_description:"Per-role settings; roles left out keep their built-in defaults."`
}

// ModelConfig is one model on one provider with its call parameters.
type ModelConfig struct {
	// Provider is openai, anthropic, openrouter, gemini, ollama, vllm or openai_compatible.
	Provider string `yaml:"provider,omitempty" json:"provider,omitempty" jsonschema:"enum=openai,enum=anthropic,enum=openrouter,enum=gemini,enum=ollama,enum=vllm,enum=openai_compatible" jsonschema_description:"Provider; decides the wire format, default base URL and key variable."`
	// Model is the provider's model name.
	Model string `yaml:"model,omitempty" json:"model,omitempty" jsonschema_description:"Model name as the provider spells it, e.g. gpt-4.1 or claude-sonnet-4-5."`
	// BaseURL overrides the provider's default endpoint.
	BaseURL string `yaml:"base_url,omitempty" json:"base_url,omitempty" jsonschema_description:"API base URL; defaults to the provider's."`
	// KeyEnv names the environment variable holding the API key.
	KeyEnv string `yaml:"key_env,omitempty" json:"key_env,omitempty" jsonschema_description:"Name of the environment variable that holds the API key (never the key itself)."`
	// Temperature is the sampling temperature; unset leaves the provider default.
	Temperature *float64 `yaml:"temperature,omitempty" json:"temperature,omitempty" jsonschema:"minimum=0,maximum=2" jsonschema_description:"Sampling temperature; unset sends none."`
	// MaxTokens caps output tokens.
	MaxTokens int `yaml:"max_tokens,omitempty" json:"max_tokens,omitempty" jsonschema:"minimum=1" jsonschema_description:"Maximum output tokens per call."`
	// Timeout bounds one attempt.
	Timeout Duration `yaml:"timeout,omitempty" json:"timeout,omitempty" jsonschema_description:"Time limit of one attempt, e.g. 2m."`
	// RequestsPerMinute limits the call rate; 0 means unlimited.
	RequestsPerMinute int `yaml:"requests_per_minute,omitempty" json:"requests_per_minute,omitempty" jsonschema:"minimum=0" jsonschema_description:"Requests per minute allowed for this role and model; 0 means no limit."`
	// TokensPerMinute limits the token rate; 0 means unlimited.
	TokensPerMinute int `yaml:"tokens_per_minute,omitempty" json:"tokens_per_minute,omitempty" jsonschema:"minimum=0" jsonschema_description:"Input plus output tokens per minute allowed for this role and model; 0 means no limit."`
	// MaxInputTokens is the model's input token cap; larger requests go to the next fallback.
	MaxInputTokens int `yaml:"max_input_tokens,omitempty" json:"max_input_tokens,omitempty" jsonschema:"minimum=0" jsonschema_description:"Input token cap; a request estimated above it goes straight to the next fallback model."`
}

// RoleConfig configures one role: its primary model and fallback chain.
type RoleConfig struct {
	ModelConfig `yaml:",inline" json:",inline"`
	// MaxRetries is the number of retries per model after the first attempt.
	MaxRetries *int `yaml:"max_retries,omitempty" json:"max_retries,omitempty" jsonschema:"minimum=0" jsonschema_description:"Retries per model after the first attempt, for 429, 5xx and timeouts."`
	// Fallback lists models tried in order when the previous one fails.
	Fallback []ModelConfig `yaml:"fallback,omitempty" json:"fallback,omitempty" jsonschema_description:"Models tried in order when the previous one fails or the request exceeds its token cap; unset parameters are inherited from the role."`
}

// ProviderConfig tunes one provider.
type ProviderConfig struct {
	// Concurrency is the most calls in flight to the provider; the adaptive
	// limit starts there, halves on bursts of 429 and climbs back slowly.
	Concurrency int `yaml:"concurrency,omitempty" json:"concurrency,omitempty" jsonschema:"minimum=1" jsonschema_description:"Most calls in flight to this provider; the adaptive limit never exceeds it."`
}

// Budgets caps spending; zero fields are unlimited.
type Budgets struct {
	// RunUSD caps the cost of the whole run.
	RunUSD float64 `yaml:"run_usd,omitempty" json:"run_usd,omitempty" jsonschema:"minimum=0" jsonschema_description:"Most US dollars for the whole run."`
	// TrialUSD caps the cost of each trial.
	TrialUSD float64 `yaml:"trial_usd,omitempty" json:"trial_usd,omitempty" jsonschema:"minimum=0" jsonschema_description:"Most US dollars per trial."`
	// RunTokens caps input plus output tokens of the run.
	RunTokens int64 `yaml:"run_tokens,omitempty" json:"run_tokens,omitempty" jsonschema:"minimum=0" jsonschema_description:"Most input plus output tokens for the whole run."`
	// TrialTokens caps input plus output tokens of each trial.
	TrialTokens int64 `yaml:"trial_tokens,omitempty" json:"trial_tokens,omitempty" jsonschema:"minimum=0" jsonschema_description:"Most input plus output tokens per trial."`
}

// ReadConfig reads and validates a models file.
func ReadConfig(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("llm: read models file: %w", err)
	}
	cfg, err := ParseConfig(data)
	if err != nil {
		return nil, fmt.Errorf("llm: %s: %w", path, err)
	}
	return cfg, nil
}

// ParseConfig parses and validates models.yaml content. Unknown fields
// and unknown roles are errors.
func ParseConfig(data []byte) (*Config, error) {
	var cfg Config
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&cfg); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("parse models file: %w", err)
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &cfg, nil
}

// Validate checks names and ranges that the YAML decoder cannot.
func (c *Config) Validate() error {
	if c.Version != 0 && c.Version != 1 {
		return fmt.Errorf("unsupported version %d (want 1)", c.Version)
	}
	var errs []error
	for role, rc := range c.Roles {
		if !role.Valid() {
			errs = append(errs, fmt.Errorf("unknown role %q (known: %v)", role, Roles()))
			continue
		}
		errs = append(errs, rc.validate(string(role)))
	}
	if c.Defaults != nil {
		errs = append(errs, c.Defaults.validate("defaults"))
	}
	for name := range c.Providers {
		if _, ok := providerSpecs[name]; !ok {
			errs = append(errs, fmt.Errorf("providers: unknown provider %q (known: %v)", name, ProviderNames()))
		}
	}
	for model, p := range c.Pricing {
		if p.Input < 0 || p.Output < 0 || p.CachedInput < 0 || p.CacheWrite < 0 {
			errs = append(errs, fmt.Errorf("pricing: %s: prices must not be negative", model))
		}
	}
	return errors.Join(errs...)
}

func (rc RoleConfig) validate(where string) error {
	var errs []error
	if rc.MaxRetries != nil && *rc.MaxRetries < 0 {
		errs = append(errs, fmt.Errorf("%s: max_retries must not be negative", where))
	}
	errs = append(errs, rc.ModelConfig.validate(where))
	for i, fb := range rc.Fallback {
		errs = append(errs, fb.validate(fmt.Sprintf("%s: fallback %d", where, i+1)))
	}
	return errors.Join(errs...)
}

func (mc ModelConfig) validate(where string) error {
	var errs []error
	if mc.Provider != "" {
		if _, ok := providerSpecs[mc.Provider]; !ok {
			errs = append(errs, fmt.Errorf("%s: unknown provider %q (known: %v)", where, mc.Provider, ProviderNames()))
		}
	}
	if mc.Temperature != nil && (*mc.Temperature < 0 || *mc.Temperature > 2) {
		errs = append(errs, fmt.Errorf("%s: temperature %g is outside 0..2", where, *mc.Temperature))
	}
	if mc.MaxTokens < 0 || mc.RequestsPerMinute < 0 || mc.TokensPerMinute < 0 || mc.MaxInputTokens < 0 || mc.Timeout < 0 {
		errs = append(errs, fmt.Errorf("%s: limits must not be negative", where))
	}
	return errors.Join(errs...)
}
