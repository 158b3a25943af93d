package llm

import "testing"

// FuzzParseConfig: no models.yaml makes the parser panic.
func FuzzParseConfig(f *testing.F) {
	f.Add([]byte("roles:\n  generator:\n    model: gpt-5\n    provider: openai\n"))
	f.Add([]byte("providers: {openai: {base_url: 'http://x', key_env: OPENAI_API_KEY}}"))
	f.Add([]byte(":"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = ParseConfig(data)
	})
}
