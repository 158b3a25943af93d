package session

import (
	"context"
	"mime"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/worldprobe/worldprobe/internal/pageenv"
	"github.com/worldprobe/worldprobe/internal/resolve"
)

// answer decides the fate of one intercepted request: the page's own files
// and vendored libraries are served, web fonts get an empty answer, and
// everything else is refused and recorded. Nothing leaves the machine.
// sentKind is the request's type from Network.requestWillBeSent, if that
// came first (see requestKind).
func (s *Session) answer(ev *fetch.EventRequestPaused, sentKind string) {
	defer s.inflight.Add(-1)
	raw := ev.Request.URL
	if ev.Request.URLFragment != "" {
		raw += ev.Request.URLFragment
	}
	kind := requestKind(ev, sentKind)
	ctx, cancel := context.WithTimeout(s.page.Context(), 30*time.Second)
	defer cancel()

	// A page may not navigate its main frame away: once it has loaded,
	// or once its document was asked for (a meta refresh of delay 0 asks
	// again before the harness has seen the load event).
	if ev.ResourceType == network.ResourceTypeDocument && s.isMainFrame(ev) && (s.loaded.Load() || s.mainDocAsked.Swap(true)) {
		s.block(ctx, ev, raw, "navigation", "navigation away from the page is blocked", network.ErrorReasonAborted)
		return
	}
	if strings.HasPrefix(raw, Origin+"/") || raw == Origin {
		s.serveLocal(ctx, ev, raw)
		return
	}
	if s.resolver != nil {
		res, ok, err := s.resolver.Resolve(raw)
		if ok && err == nil {
			s.serveLibrary(ctx, ev, raw, res)
			return
		}
		if ok && err != nil {
			s.block(ctx, ev, raw, kind, "library file not vendored: "+err.Error(), network.ErrorReasonFailed)
			return
		}
	}
	if resolve.IsWebFont(raw) {
		s.fulfil(ctx, ev, 200, "text/css; charset=utf-8", nil, false)
		s.rec.with(func(l *Log) { l.Requests.Served = appendCapped(l.Requests.Served, raw) })
		return
	}
	s.block(ctx, ev, raw, kind, "network access is disabled", network.ErrorReasonBlockedByClient)
}

// requestKind names an intercepted request in the vocabulary of
// requests.blocked (docs/schemas.md): CDP's resource type in lower case
// ("script", "image", "xhr", "fetch", …), but "beacon" for sendBeacon (CDP's
// "Ping") and "eventsource" for EventSource.
//
// Chromium's interception may report fetch() and EventSource requests as
// XHR; the renderer's own Network.requestWillBeSent (sentKind, "" when it
// has not come) tells them apart, and an EventSource request is also known
// by the Accept header the browser gives it.
func requestKind(ev *fetch.EventRequestPaused, sentKind string) string {
	kind := strings.ToLower(string(ev.ResourceType))
	if ev.ResourceType == network.ResourceTypeXHR {
		switch {
		case sentKind == "fetch" || sentKind == "eventsource":
			kind = sentKind
		case sentKind == "" && acceptsEventStream(ev.Request):
			kind = "eventsource"
		}
	}
	if kind == "ping" {
		return "beacon"
	}
	return kind
}

// acceptsEventStream reports whether r asks for text/event-stream, as
// every EventSource request does.
func acceptsEventStream(r *network.Request) bool {
	if r == nil {
		return false
	}
	for k, v := range r.Headers {
		if s, ok := v.(string); ok && strings.EqualFold(k, "accept") && strings.Contains(strings.ToLower(s), "text/event-stream") {
			return true
		}
	}
	return false
}

func (s *Session) isMainFrame(ev *fetch.EventRequestPaused) bool {
	id, _ := s.mainID.Load().(cdp.FrameID)
	return id == "" || ev.FrameID == id
}

func (s *Session) serveLocal(ctx context.Context, ev *fetch.EventRequestPaused, raw string) {
	u, err := url.Parse(raw)
	if err != nil {
		s.block(ctx, ev, raw, "local", "bad URL", network.ErrorReasonFailed)
		return
	}
	rel := path.Clean("/" + u.Path)
	file := filepath.Join(s.root, filepath.FromSlash(rel))
	if rel == "/" {
		file = filepath.Join(s.root, "index.html")
	}
	if !strings.HasPrefix(file, s.root+string(filepath.Separator)) && file != s.root {
		s.notFound(ctx, ev, raw)
		return
	}
	body, err := os.ReadFile(file)
	if err != nil && rel == "/favicon.ico" {
		// Chromium asks for it on its own; a missing one is not the page's doing.
		s.fulfil(ctx, ev, 404, "text/plain; charset=utf-8", nil, false)
		return
	}
	if err != nil {
		s.notFound(ctx, ev, raw)
		return
	}
	if reportsCompilation(ev) {
		s.scripts.served(raw)
	}
	if ct := contentType(file); strings.Contains(ct, "html") || strings.Contains(ct, "javascript") {
		s.noteDynamicImport(body)
	}
	body, _ = s.withWorkerRuntime(ev, body)
	s.fulfil(ctx, ev, 200, contentType(file), body, false)
	s.rec.with(func(l *Log) { l.Requests.Served = appendCapped(l.Requests.Served, raw) })
}

// reportsCompilation says whether the page's debugger will report the
// compilation of what ev asks for: a script of one of the page's documents.
// Only their requests have a network id (the Network domain follows the
// page's documents); a worker's requests — importScripts, a module
// worker's imports — have none, and the worker compiles them where the
// page's debugger does not look, so waiting for that report would wait
// for something that never comes.
func reportsCompilation(ev *fetch.EventRequestPaused) bool {
	return ev.ResourceType == network.ResourceTypeScript && ev.NetworkID != ""
}

func (s *Session) notFound(ctx context.Context, ev *fetch.EventRequestPaused, raw string) {
	s.fulfil(ctx, ev, 404, "text/plain; charset=utf-8", []byte("not found"), false)
	s.rec.with(func(l *Log) {
		l.Requests.Blocked = append(l.Requests.Blocked, Blocked{URL: raw, Type: requestKind(ev, ""), Reason: "not found in the page's folder"})
		if raw == s.entry {
			l.MainDocStatus = 404
		}
	})
}

func (s *Session) serveLibrary(ctx context.Context, ev *fetch.EventRequestPaused, raw string, res resolve.Result) {
	body := res.Body
	if body == nil {
		b, err := os.ReadFile(res.File)
		if err != nil {
			s.block(ctx, ev, raw, "library", "reading vendored file: "+err.Error(), network.ErrorReasonFailed)
			return
		}
		body = b
	}
	ct := res.ContentType
	if ct == "" {
		ct = contentType(res.File)
	}
	s.recordLibrary(raw, res, reportsCompilation(ev), false)
	body, rewritten := s.withWorkerRuntime(ev, body)
	s.fulfil(ctx, ev, 200, ct, body, cacheable(reply{library: true, rewritten: rewritten, method: ev.Request.Method, status: 200}))
}

// fulfil answers a request; cache says whether the browser may keep the
// answer (see cacheable).
func (s *Session) fulfil(ctx context.Context, ev *fetch.EventRequestPaused, code int64, ctype string, body []byte, cache bool) {
	headers := []*fetch.HeaderEntry{
		{Name: "Content-Type", Value: ctype},
		{Name: "Access-Control-Allow-Origin", Value: "*"},
		{Name: "Cross-Origin-Resource-Policy", Value: "cross-origin"},
		{Name: "Cache-Control", Value: cacheControl(cache)},
	}
	_, err := chromedp.Call(ctx, fetch.FulfillRequest, fetch.FulfillRequestParams{
		RequestID: ev.RequestID, ResponseCode: code, ResponseHeaders: headers, Body: body,
	})
	if err != nil {
		s.cfg.Logger.Debug("fulfilling a request", "url", ev.Request.URL, "err", err)
	}
}

func (s *Session) block(ctx context.Context, ev *fetch.EventRequestPaused, raw, kind, reason string, why network.ErrorReason) {
	s.rec.with(func(l *Log) { l.addBlocked(raw, kind, reason) })
	if _, err := chromedp.Call(ctx, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: why}); err != nil {
		s.cfg.Logger.Debug("refusing a request", "url", raw, "err", err)
	}
}

// WaitIdle waits until the page is quiet: no intercepted request pending,
// every served script compiled, no asynchronous load the runtime tracks
// (WebAssembly compilation, image decoding) outstanding, and no request
// started while the page's main thread finished what it was doing (a module
// being evaluated usually imports the next one). So what a page loads lands
// before the next frame however fast or loaded the machine is.
func (s *Session) WaitIdle(ctx context.Context) error {
	deadline := time.Now().Add(s.cfg.CallTimeout)
	net := int64(-1) // the page's count of network-capable calls when quiet
	for quiet := 0; quiet < 2; {
		if time.Now().After(deadline) {
			// A page that keeps loading forever is still stepped, but a wait
			// that used its whole allowance is never silent.
			s.cfg.Logger.Warn("the page was still loading when the idle wait ran out; stepping on",
				"page", s.entry, "requests", s.inflight.Load(), "scripts", s.scripts.waiting(), "wait", s.cfg.CallTimeout)
			return nil
		}
		if s.inflight.Load() > 0 || s.scripts.waiting() > 0 {
			quiet = 0
			if err := s.pause(ctx, 5*time.Millisecond); err != nil {
				return err
			}
			continue
		}
		before := s.started.Load()
		// Runtime.evaluate runs on the page's main thread, so it returns only
		// when the page's current task is done. The reply is the page's
		// tracked loads and its count of network-capable calls.
		var reply [2]int64
		expr := "window.__wp ? [window.__wp.pending(), window.__wp.netCalls()] : [0, -1]"
		if s.cfg.Plain {
			expr = "[0, -1]"
		}
		if err := s.eval(ctx, s.cfg.CallTimeout, expr, false, &reply); err != nil {
			return err
		}
		if reply[0] > 0 {
			quiet = 0
			if err := s.pause(ctx, 5*time.Millisecond); err != nil {
				return err
			}
			continue
		}
		if err := s.pause(ctx, 10*time.Millisecond); err != nil {
			return err
		}
		if s.inflight.Load() == 0 && s.started.Load() == before {
			if quiet > 0 && reply[1] != net {
				quiet = 1 // the page made a call that started nothing yet
			} else {
				quiet++
			}
			net = reply[1]
		} else {
			quiet = 0
		}
	}
	// Quiet: the next Step need not wait again unless the page makes a
	// network-capable call or a request reaches the harness before it.
	s.netSeen, s.startedSeen = net, s.started.Load()
	return nil
}

func (s *Session) pause(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ErrUnresponsive
	case <-s.crashed:
		return ErrCrashed
	case <-time.After(d):
		return nil
	}
}

func contentType(file string) string {
	switch strings.ToLower(filepath.Ext(file)) {
	case ".html", ".htm":
		return "text/html; charset=utf-8"
	case ".js", ".mjs", ".cjs":
		return "text/javascript; charset=utf-8"
	case ".json", ".gltf":
		return "application/json"
	case ".wasm":
		return "application/wasm"
	case ".glb":
		return "model/gltf-binary"
	}
	if t := mime.TypeByExtension(filepath.Ext(file)); t != "" {
		return t
	}
	return "application/octet-stream"
}

// addBlocked lists one refused attempt, its URL cut to 500 bytes, while
// the list is under maxURLs.
func (l *Log) addBlocked(url, kind, reason string) {
	if len(l.Requests.Blocked) < maxURLs {
		l.Requests.Blocked = append(l.Requests.Blocked, Blocked{URL: truncate(url, 500), Type: kind, Reason: reason})
	}
}

func appendCapped(list []string, s string) []string {
	if len(list) >= maxURLs {
		return list
	}
	return append(list, s)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// servedAs names what was served for a substituted request, e.g.
// "three@0.147.0/examples/js/controls/OrbitControls.js".
func servedAs(res resolve.Result) string {
	file := filepath.ToSlash(res.File)
	marker := "/node_modules/"
	if i := strings.LastIndex(file, marker); i >= 0 {
		file = file[i+len(marker):]
		// Drop the alias folder (e.g. "three-0.147.0/") or scoped package folder.
		if j := strings.Index(file, "/"); j >= 0 && !strings.HasPrefix(file, "@") {
			file = file[j+1:]
		} else if strings.HasPrefix(file, "@") {
			parts := strings.SplitN(file, "/", 3)
			if len(parts) == 3 {
				file = parts[2]
			}
		}
	}
	return res.Package + "@" + res.Served + "/" + file
}

// withWorkerRuntime puts the worker runtime in front of a worker script:
// the page runtime marks the URL of every worker it starts with
// #__wp_worker=INDEX,START_MS (pageenv.WorkerMark). Other bodies are
// returned as they are. rewritten says whether the runtime was put in.
func (s *Session) withWorkerRuntime(ev *fetch.EventRequestPaused, body []byte) (out []byte, rewritten bool) {
	frag := ev.Request.URLFragment
	i := strings.Index(frag, pageenv.WorkerMark)
	if i < 0 || s.cfg.RealTime || s.cfg.Plain {
		return body, false
	}
	index, start, ok := strings.Cut(frag[i+len(pageenv.WorkerMark):], ",")
	n, err1 := strconv.Atoi(index)
	ms, err2 := strconv.ParseFloat(start, 64)
	if !ok || err1 != nil || err2 != nil {
		return body, false
	}
	prelude := pageenv.WorkerScript(pageenv.WorkerConfig{Seed: s.cfg.Seed, Index: n, StartMs: ms})
	at := directiveEnd(body)
	out = make([]byte, 0, len(prelude)+len(body))
	out = append(out, body[:at]...)
	out = append(out, prelude...)
	return append(out, body[at:]...), true
}

// directiveEnd is where a script's leading "use strict" directive ends (0
// when it has none), so the worker runtime goes after it and the worker's
// code stays strict.
func directiveEnd(body []byte) int {
	i := 0
	for i < len(body) && (body[i] == ' ' || body[i] == '\t' || body[i] == '\n' || body[i] == '\r' || body[i] == 0xEF || body[i] == 0xBB || body[i] == 0xBF) {
		i++
	}
	for _, d := range []string{"'use strict'", `"use strict"`} {
		if strings.HasPrefix(string(body[i:min(len(body), i+len(d))]), d) {
			j := i + len(d)
			if j < len(body) && body[j] == ';' {
				j++
			}
			return j
		}
	}
	return 0
}
