package session

import (
	"testing"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/stretchr/testify/require"
)

// TestRequestKind: a refused request is recorded with the type
// docs/schemas.md lists, whichever way Chromium's interception reports it.
func TestRequestKind(t *testing.T) {
	paused := func(rt network.ResourceType, headers network.Headers) *fetch.EventRequestPaused {
		return &fetch.EventRequestPaused{ResourceType: rt, Request: &network.Request{URL: "https://api.example.com/x", Headers: headers}}
	}
	eventStream := network.Headers{"Accept": "text/event-stream"}
	cases := []struct {
		name string
		ev   *fetch.EventRequestPaused
		sent string
		want string
	}{
		{"a script", paused(network.ResourceTypeScript, nil), "script", "script"},
		{"an image", paused(network.ResourceTypeImage, nil), "", "image"},
		{"XMLHttpRequest", paused(network.ResourceTypeXHR, nil), "xhr", "xhr"},
		{"XMLHttpRequest, requestWillBeSent not yet seen", paused(network.ResourceTypeXHR, nil), "", "xhr"},
		{"fetch, reported as Fetch", paused(network.ResourceTypeFetch, nil), "fetch", "fetch"},
		{"fetch, reported as XHR by the interception", paused(network.ResourceTypeXHR, nil), "fetch", "fetch"},
		{"EventSource, reported as EventSource", paused(network.ResourceTypeEventSource, eventStream), "eventsource", "eventsource"},
		{"EventSource, reported as XHR by the interception", paused(network.ResourceTypeXHR, eventStream), "eventsource", "eventsource"},
		{"EventSource, reported as XHR, requestWillBeSent not yet seen", paused(network.ResourceTypeXHR, network.Headers{"accept": "Text/Event-Stream"}), "", "eventsource"},
		{"a fetch that asks for an event stream is a fetch", paused(network.ResourceTypeXHR, eventStream), "fetch", "fetch"},
		{"sendBeacon", paused(network.ResourceTypePing, nil), "ping", "beacon"},
		{"sendBeacon, requestWillBeSent not yet seen", paused(network.ResourceTypePing, nil), "", "beacon"},
		{"a worker script", paused(network.ResourceTypeOther, nil), "", "other"},
		{"no request", &fetch.EventRequestPaused{ResourceType: network.ResourceTypeXHR}, "", "xhr"},
	}
	for _, c := range cases {
		require.Equal(t, c.want, requestKind(c.ev, c.sent), c.name)
	}
}

// TestRefusalsInterceptedGivesTheSentKind: the type requestWillBeSent
// recorded is handed to the interception once, and the request is then no
// longer a refusal Chromium made by itself.
func TestRefusalsInterceptedGivesTheSentKind(t *testing.T) {
	var r refusals
	r.sent("7.1", "https://api.example.com/data", "fetch")
	require.Equal(t, "fetch", r.intercepted("7.1"))
	_, _, ok := r.failed("7.1")
	require.False(t, ok, "it reached the interception")
	require.Equal(t, "", r.intercepted("7.2"), "requestWillBeSent not (yet) seen")

	r.sent("7.3", "http://api.example.com/mixed", "xhr")
	u, kind, ok := r.failed("7.3")
	require.True(t, ok)
	require.Equal(t, []string{"http://api.example.com/mixed", "xhr"}, []string{u, kind})
}
