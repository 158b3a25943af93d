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

// TestRefusalsCachedAndFinished: a request the browser's cache answered
// gives its URL and type once and is then no refusal; one that finished is
// forgotten, so requests never intercepted do not fill the table.
func TestRefusalsCachedAndFinished(t *testing.T) {
	var r refusals
	r.sent("9.1", "https://cdn.jsdelivr.net/npm/three@0.160.0/build/three.module.js", "script")
	u, kind, ok := r.cached("9.1")
	require.True(t, ok)
	require.Equal(t, []string{"https://cdn.jsdelivr.net/npm/three@0.160.0/build/three.module.js", "script"}, []string{u, kind})
	_, _, ok = r.cached("9.1")
	require.False(t, ok, "given once")
	_, _, ok = r.failed("9.1")
	require.False(t, ok, "the cache answered it: no refusal")

	r.sent("9.2", "https://cdn.jsdelivr.net/npm/lil-gui@0.21.0/dist/lil-gui.umd.min.js", "script")
	r.finished("9.2")
	require.Empty(t, r.urls)
	_, _, ok = r.cached("9.2")
	require.False(t, ok)
}
