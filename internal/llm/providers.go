package llm

import (
	"slices"
	"strings"
)

// Wire formats spoken by providers.
const (
	wireOpenAI    = "openai"
	wireAnthropic = "anthropic"
)

// providerSpec holds what a provider name implies.
type providerSpec struct {
	wire    string
	baseURL string
	keyEnv  string
	// keyOptional providers run without a key (local servers).
	keyOptional bool
	// free providers cost nothing unless priced in models.yaml.
	free bool
	// reportsCost providers return the cost of each call in the usage.
	reportsCost bool
	// maxCompletionTokens sends the output cap as max_completion_tokens
	// (OpenAI's current field) instead of max_tokens.
	maxCompletionTokens bool
}

// providerSpecs lists the known providers; the single place for their
// default endpoints and key variables.
var providerSpecs = map[string]providerSpec{
	"openai":            {wire: wireOpenAI, baseURL: "https://api.openai.com/v1/", keyEnv: "OPENAI_API_KEY", maxCompletionTokens: true},
	"anthropic":         {wire: wireAnthropic, baseURL: "https://api.anthropic.com/", keyEnv: "ANTHROPIC_API_KEY"},
	"openrouter":        {wire: wireOpenAI, baseURL: "https://openrouter.ai/api/v1/", keyEnv: "OPENROUTER_API_KEY", reportsCost: true},
	"gemini":            {wire: wireOpenAI, baseURL: "https://generativelanguage.googleapis.com/v1beta/openai/", keyEnv: "GEMINI_API_KEY"},
	"ollama":            {wire: wireOpenAI, baseURL: "http://localhost:11434/v1/", keyOptional: true, free: true},
	"vllm":              {wire: wireOpenAI, baseURL: "http://localhost:8000/v1/", keyOptional: true, free: true},
	"openai_compatible": {wire: wireOpenAI, keyOptional: true},
}

// ProviderNames returns the known provider names, sorted.
func ProviderNames() []string {
	names := make([]string, 0, len(providerSpecs))
	for n := range providerSpecs {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// normalizeBaseURL ends u with a slash so SDK paths join under it.
func normalizeBaseURL(u string) string {
	if u != "" && !strings.HasSuffix(u, "/") {
		return u + "/"
	}
	return u
}
