package session

import (
	"fmt"
	"net/http"
	"os"
	"sync"

	"github.com/worldprobe/worldprobe/internal/resolve"
)

// Vendored libraries are answered cacheably, so that the reloads of one
// tab (a trial's probes) take three.js from the renderer's memory cache
// instead of moving it into the page again. A load the cache answers never
// reaches the interception; Network.requestServedFromCache reports it, and
// it is recorded exactly as an intercepted one (recordLibrary).
//
// The cache cannot carry anything from one trial to another: every
// session is a tab in its own browser context, whose renderer processes
// (and so their memory cache) and HTTP cache are its own and end with it.
// Within a tab only the harness writes responses, and only a library
// file's, which is the same for every load of its URL.

// cacheableHeader is the Cache-Control of a cacheable answer; every other
// answer is no-store.
const cacheableHeader = "public, max-age=31536000, immutable"

// reply is how the harness answers one request, as far as caching goes.
type reply struct {
	// library: a vendored library file, the resolver's answer for the URL.
	library bool
	// rewritten: the body was changed for this one request (the worker
	// runtime put in front of a worker script), so another load of the
	// URL must not get it.
	rewritten bool
	method    string
	status    int64
}

// cacheable decides whether a reply may be kept by the browser's cache:
// only a library file answered 200 to a GET, unchanged. The page's own
// files, refusals, 404s and the empty answers to web fonts are never kept:
// each of their loads reaches the harness as it does with no cache.
func cacheable(r reply) bool {
	return r.library && !r.rewritten && r.method == http.MethodGet && r.status == 200
}

// cacheControl is the Cache-Control header of a reply.
func cacheControl(cache bool) string {
	if cache {
		return cacheableHeader
	}
	return "no-store"
}

// LibraryLoad is one load of a vendored library file by the page's current
// document (its workers' loads included).
type LibraryLoad struct {
	// URL is what the page asked for.
	URL string `json:"url"`
	// ServedAs names the file served, e.g.
	// "three@0.160.0/build/three.module.js".
	ServedAs string `json:"served_as"`
	// FromCache: the browser's cache answered, the request never reached
	// the harness.
	FromCache bool `json:"from_cache"`
}

// LibraryLoads lists the vendored library files the current document has
// loaded so far, in the order the harness learnt of them, whether the
// harness or the browser's cache answered.
func (s *Session) LibraryLoads() []LibraryLoad {
	return s.rec.libraryLoads()
}

// libraryImports caches, by vendored file, whether it could import a
// module dynamically (see Session.noteDynamicImport).
var libraryImports sync.Map // string → bool

// libraryMayImport says whether the library file res serves contains
// import(; a file that cannot be read counts as one that does.
func libraryMayImport(res resolve.Result) bool {
	key := res.File // a rewritten body or a stub is told apart by its length
	if res.Body != nil {
		key = fmt.Sprintf("%s|%d", res.File, len(res.Body))
	}
	if v, ok := libraryImports.Load(key); ok {
		return v.(bool)
	}
	body := res.Body
	if body == nil {
		var err error
		if body, err = os.ReadFile(res.File); err != nil {
			return true
		}
	}
	may := dynamicImport.Match(body)
	libraryImports.Store(key, may)
	return may
}

// recordLibrary records one load of a library file, however it was
// answered: the request log, the three.js versions asked for, the
// document's library loads and, for a script whose compilation the
// debugger reports, the wait for it to be compiled. The interception calls
// it before answering, the cache's report as it comes, so what a page
// loaded and what the idle wait waits for do not depend on the cache.
func (s *Session) recordLibrary(raw string, res resolve.Result, script, fromCache bool) {
	if script {
		s.scripts.served(raw)
		if libraryMayImport(res) {
			s.mayImport.Store(true)
		}
	}
	load := LibraryLoad{URL: raw, ServedAs: servedAs(res), FromCache: fromCache}
	s.rec.with(func(l *Log) {
		l.Requests.Served = appendCapped(l.Requests.Served, raw)
		if res.Substituted {
			l.Requests.Substituted = append(l.Requests.Substituted, Substitution{URL: raw, ServedAs: load.ServedAs})
		}
		if res.Package == "three" {
			v := res.Requested
			if v == "" {
				v = "latest"
			}
			if !contains(l.ThreeRequested, v) {
				l.ThreeRequested = append(l.ThreeRequested, v)
			}
		}
	})
	s.rec.libraryLoad(load)
}

// servedFromCache records a request the browser's cache answered
// (Network.requestServedFromCache): it started like an intercepted one
// (the idle wait counts it) and is recorded like one. Only library files
// are cacheable; anything else reported here is logged and left alone.
func (s *Session) servedFromCache(id string) {
	u, kind, ok := s.refusals.cached(id)
	if !ok {
		s.cfg.Logger.Debug("a request of the page's own was answered by the browser's cache", "request", id)
		return
	}
	var res resolve.Result
	var lib bool
	var err error
	if s.resolver != nil {
		res, lib, err = s.resolver.Resolve(u)
	}
	if !lib || err != nil {
		s.cfg.Logger.Debug("the browser's cache answered a request that is no library file", "url", u, "err", err)
		return
	}
	s.started.Add(1)
	// The Network domain reports only the page's documents' requests, so a
	// script here is one the debugger reports compiled.
	s.recordLibrary(u, res, kind == "script", true)
}
