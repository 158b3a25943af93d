package llm

import (
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// RetryPolicy shapes the waits between attempts on one model.
type RetryPolicy struct {
	// Base is the first backoff; each retry doubles it. Default 1s.
	Base time.Duration
	// Max caps the backoff. Default 30s.
	Max time.Duration
	// MaxRetryAfter is the longest Retry-After honoured; a provider asking
	// for more makes the call move on to the next fallback. Default 2m.
	MaxRetryAfter time.Duration
	// Jitter in [0,1] randomly shortens each backoff by up to that
	// fraction. Zero gives exact, reproducible waits.
	Jitter float64
}

// DefaultRetryPolicy is used unless [WithRetryPolicy] says otherwise.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{Base: time.Second, Max: 30 * time.Second, MaxRetryAfter: 2 * time.Minute, Jitter: 0.5}
}

func (p RetryPolicy) normalized() RetryPolicy {
	d := DefaultRetryPolicy()
	if p.Base <= 0 {
		p.Base = d.Base
	}
	if p.Max <= 0 {
		p.Max = d.Max
	}
	if p.MaxRetryAfter <= 0 {
		p.MaxRetryAfter = d.MaxRetryAfter
	}
	p.Jitter = min(max(p.Jitter, 0), 1)
	return p
}

// backoff returns the wait before retry number retry (1-based).
func (p RetryPolicy) backoff(retry int) time.Duration {
	d := p.Base
	for i := 1; i < retry && d < p.Max; i++ {
		d *= 2
	}
	d = min(d, p.Max)
	if p.Jitter > 0 {
		d -= time.Duration(rand.Float64() * p.Jitter * float64(d))
	}
	return d
}

// retryAfter reads Retry-After (seconds or an HTTP date) or OpenAI's
// retry-after-ms. It returns 0 when absent or unreadable.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if h == nil {
		return 0
	}
	if ms := strings.TrimSpace(h.Get("Retry-After-Ms")); ms != "" {
		if v, err := strconv.ParseFloat(ms, 64); err == nil && v > 0 {
			return time.Duration(v * float64(time.Millisecond))
		}
	}
	ra := strings.TrimSpace(h.Get("Retry-After"))
	if ra == "" {
		return 0
	}
	if v, err := strconv.ParseFloat(ra, 64); err == nil {
		if v <= 0 {
			return 0
		}
		return time.Duration(v * float64(time.Second))
	}
	if t, err := http.ParseTime(ra); err == nil {
		return max(t.Sub(now), 0)
	}
	return 0
}
