package llm

import (
	"strings"
	"sync"
)

// redacted replaces secrets in text.
const redacted = "[REDACTED]"

// redactor removes known secrets (API keys) from text before it reaches
// an error, a log line, an event or a file.
type redactor struct {
	mu      sync.RWMutex
	secrets []string
}

// add registers a secret; very short values are ignored as they would
// mangle ordinary text.
func (r *redactor) add(secret string) {
	if len(secret) < 4 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.secrets {
		if s == secret {
			return
		}
	}
	r.secrets = append(r.secrets, secret)
}

// string returns s with every secret replaced.
func (r *redactor) string(s string) string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, secret := range r.secrets {
		s = strings.ReplaceAll(s, secret, redacted)
	}
	return s
}
