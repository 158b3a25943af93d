package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// maxErrorMessage bounds provider messages kept in errors.
const maxErrorMessage = 600

// httpCapture remembers the last HTTP answer of one SDK call, so that
// errors are classified from the status, headers and body even when the
// SDK could not parse the body.
type httpCapture struct {
	status int
	header http.Header
	body   []byte
}

// middleware has the signature of the SDKs' option.WithMiddleware.
func (c *httpCapture) middleware(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	res, err := next(req)
	if res == nil {
		return res, err
	}
	c.status, c.header = res.StatusCode, res.Header.Clone()
	if res.StatusCode >= 400 && res.Body != nil {
		body, readErr := io.ReadAll(io.LimitReader(res.Body, 1<<20))
		_ = res.Body.Close()
		if readErr == nil {
			c.body = body
		}
		res.Body = io.NopCloser(bytes.NewReader(body))
	}
	return res, err
}

// toError turns a failed SDK call into an *APIError or *TransportError
// whose text holds no secret. It never wraps the SDK error, whose request
// carries the key in its headers.
func (c *httpCapture) toError(m ResolvedModel, err error, red *redactor, now time.Time) error {
	if c.status >= 400 {
		errType, code, msg := parseErrorBody(c.body)
		if msg == "" {
			msg = http.StatusText(c.status)
		}
		msg = truncate(red.string(msg), maxErrorMessage)
		return &APIError{
			Provider: m.Provider, Model: m.Model, Status: c.status,
			Type: red.string(errType), Code: red.string(code), Message: msg,
			RetryAfter: retryAfter(c.header, now), Kind: classify(c.status, errType, code, msg),
		}
	}
	timeout := errors.Is(err, context.DeadlineExceeded)
	var netErr interface{ Timeout() bool }
	if errors.As(err, &netErr) && netErr.Timeout() {
		timeout = true
	}
	return &TransportError{Provider: m.Provider, Model: m.Model, Message: truncate(red.string(err.Error()), maxErrorMessage), Timeout: timeout}
}

// parseErrorBody reads the error shapes of OpenAI, Anthropic, OpenRouter
// and Ollama: {"error":{"type","code","message"}}, {"error":"text"} or
// {"message":...}.
func parseErrorBody(body []byte) (errType, code, msg string) {
	var doc struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	if json.Unmarshal(body, &doc) != nil {
		return "", "", strings.TrimSpace(string(body))
	}
	var s string
	if json.Unmarshal(doc.Error, &s) == nil {
		return "", "", s
	}
	var obj struct {
		Type    string          `json:"type"`
		Code    json.RawMessage `json:"code"`
		Message string          `json:"message"`
	}
	if json.Unmarshal(doc.Error, &obj) == nil {
		return obj.Type, rawString(obj.Code), firstNonEmpty(obj.Message, doc.Message)
	}
	return "", "", doc.Message
}

// rawString renders a JSON string or number as text.
func rawString(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	return ""
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// parseCost reads a provider-reported cost such as OpenRouter's usage.cost.
func parseCost(raw string) (float64, bool) {
	if raw == "" || raw == "null" {
		return 0, false
	}
	v, err := strconv.ParseFloat(strings.Trim(raw, `"`), 64)
	return v, err == nil
}
