package llm

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// digestVersion changes when the digest input changes shape.
const digestVersion = 1

// Digest returns the hex SHA-256 that keys the response cache and the
// recordings: provider, model and every request field that shapes the
// answer (messages, images, tools, schema, temperature, max tokens,
// variant). API keys and base URLs are not part of it.
func Digest(provider, model string, req Request) (string, error) {
	b, err := json.Marshal(struct {
		V        int     `json:"v"`
		Provider string  `json:"provider"`
		Model    string  `json:"model"`
		Request  Request `json:"request"`
	}{digestVersion, provider, model, req})
	if err != nil {
		return "", fmt.Errorf("llm: digest request: %w", err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}
