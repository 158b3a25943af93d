package llm

import (
	"net/http"
	"strings"
)

// classify decides how to treat an HTTP error from a provider.
func classify(status int, errType, code, message string) ErrorKind {
	msg := strings.ToLower(message)
	id := strings.ToLower(errType + " " + code)
	switch {
	case status == http.StatusUnauthorized, status == http.StatusForbidden, status == http.StatusPaymentRequired:
		return KindFatal
	case containsAny(id, "insufficient_quota", "billing_error", "authentication_error", "permission_error", "invalid_api_key"):
		return KindFatal
	case containsAny(msg, "credit balance", "insufficient credits", "exceeded your current quota"):
		return KindFatal
	case status == http.StatusNotFound && strings.Contains(msg, "model") && containsAny(msg, "not found", "does not exist", "not exist"):
		return KindFatal
	case status == http.StatusRequestEntityTooLarge:
		return KindTokenCap
	case containsAny(id, "context_length_exceeded", "request_too_large"):
		return KindTokenCap
	case containsAny(msg, "maximum context length", "prompt is too long", "context window", "too many tokens", "context length"):
		return KindTokenCap
	case status == http.StatusRequestTimeout, status == http.StatusConflict, status == http.StatusTooEarly,
		status == http.StatusTooManyRequests, status >= 500:
		return KindRetryable
	default:
		return KindRequest
	}
}

// fatalReason explains a fatal HTTP error to the user.
func fatalReason(status int, errType, code, message, keyEnv string) string {
	msg := strings.ToLower(message)
	id := strings.ToLower(errType + " " + code)
	key := "the API key"
	if keyEnv != "" {
		key = "the API key in $" + keyEnv
	}
	switch {
	case status == http.StatusPaymentRequired, containsAny(id, "insufficient_quota", "billing_error"),
		containsAny(msg, "credit balance", "insufficient credits", "exceeded your current quota"):
		return "the account is out of credit or quota; top it up or point the role at another provider"
	case status == http.StatusUnauthorized, containsAny(id, "authentication_error", "invalid_api_key"):
		return "authentication failed; check " + key
	case status == http.StatusForbidden, strings.Contains(id, "permission_error"):
		return "permission denied; check that " + key + " may use this model"
	case status == http.StatusNotFound:
		return "model not found; check the model name in models.yaml"
	default:
		return "the provider refused the request"
	}
}

func containsAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
