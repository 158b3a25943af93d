// Package llm is worldprobe's model access layer.
//
// Every judge and generator role (see [Role]) asks a [Registry] for its
// model and gets a [Model] whose calls are rate limited, retried with
// backoff, routed along a fallback chain, priced, summed in a [Ledger],
// checked against [Budgets], cached on disk and recorded or replayed:
//
//	reg, err := llm.Load("", os.Getenv, llm.WithReplay("testdata/recordings"))
//	m, err := reg.Role(ctx, llm.VisualJudge)
//	resp, err := m.Chat(ctx, llm.Request{Messages: []llm.Message{llm.UserText("Describe the scene")}})
//
// Two wire formats are spoken, through the official SDKs: OpenAI chat
// completions (OpenAI, OpenRouter, Gemini's compatible endpoint, vLLM,
// Ollama, any compatible base URL) and Anthropic messages.
//
// API keys are read only from the environment variable a role names and
// are never written to logs, errors, recordings or the cache.
package llm
