package session

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// openLogged opens page with a short call timeout and returns the session
// and the warnings it logs: an idle wait that runs out its allowance says so.
func openLogged(t *testing.T, page string) (*Session, *bytes.Buffer) {
	t.Helper()
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	s, err := Open(context.Background(), shared.Browser, shared.Resolver, page,
		Config{Seed: 1, FPS: 60, Width: 800, Height: 600, SkipDraw: true, CallTimeout: 5 * time.Second, Logger: logger})
	require.NoError(t, err)
	t.Cleanup(s.Close)
	require.True(t, s.Loaded())
	return s, &logs
}

// TestIdleWaitsSkipScriptsNobodyReports: a served script is waited for
// until the debugger reports it compiled only when the debugger will: not a
// worker's importScripts (a worker's scripts are compiled where the page's
// debugger does not look), and not a module imported after the load event
// (the debugger is off by then). Each used to hold every idle wait of the
// document, or of the next one, until its allowance ran out. Both pages
// are loaded three times in one tab, as a trial's probes load them.
func TestIdleWaitsSkipScriptsNobodyReports(t *testing.T) {
	type state struct {
		Frame               int
		Page, Worker, Three string
	}
	cases := []struct {
		page string
		want state
	}{
		{"worker-import.html", state{Frame: 60, Page: "147", Worker: "147"}},
		{"late-import.html", state{Frame: 60, Three: "160"}},
	}
	for _, c := range cases {
		t.Run(c.page, func(t *testing.T) {
			ctx := context.Background()
			s, logs := openLogged(t, filepath.Join("testdata", "idle", c.page))
			read := func(s *Session) state {
				t.Helper()
				raw, err := s.ReadState(ctx)
				require.NoError(t, err)
				var st state
				require.NoError(t, json.Unmarshal(raw.JSON, &st))
				return st
			}
			for load := 1; load <= 3; load++ {
				if load > 1 {
					require.NoError(t, s.Restart(ctx, 0))
				}
				_, err := s.Step(ctx, 60, false)
				require.NoError(t, err)
				st := read(s)
				// A dynamic import() after load lands when it lands
				// (docs/runtime.md, "Known limit"): step on until it has.
				for st.Three == "" && c.want.Three != "" && st.Frame < 600 {
					_, err := s.Step(ctx, 1, false)
					require.NoError(t, err)
					st = read(s)
				}
				want := c.want
				if want.Three != "" {
					want.Frame = st.Frame
				}
				require.Equal(t, want, st, "load %d", load)
				require.NotContains(t, logs.String(), "idle wait ran out", "load %d", load)
			}
		})
	}
}

// TestCacheable: only a library file answered 200 to a GET, as the
// resolver gives it, may be kept by the browser.
func TestCacheable(t *testing.T) {
	cases := []struct {
		name string
		r    reply
		want bool
	}{
		{"a library file", reply{library: true, method: "GET", status: 200}, true},
		{"a library file with the worker runtime put in front", reply{library: true, rewritten: true, method: "GET", status: 200}, false},
		{"a library file posted to", reply{library: true, method: "POST", status: 200}, false},
		{"a library file asked for with HEAD", reply{library: true, method: "HEAD", status: 200}, false},
		{"a library answer that is no 200", reply{library: true, method: "GET", status: 404}, false},
		{"the page's own file", reply{method: "GET", status: 200}, false},
		{"the page's missing file", reply{method: "GET", status: 404}, false},
	}
	for _, c := range cases {
		require.Equal(t, c.want, cacheable(c.r), c.name)
	}
	require.Equal(t, "public, max-age=31536000, immutable", cacheControl(true))
	require.Equal(t, "no-store", cacheControl(false))
}

// cachePageLibraries are the library loads of testdata/cache/index.html,
// in the order the page asks for them.
var cachePageLibraries = []LibraryLoad{
	{URL: "https://cdn.jsdelivr.net/npm/lil-gui@0.21.0/dist/lil-gui.umd.min.js", ServedAs: "lil-gui@0.21.0/dist/lil-gui.umd.min.js"},
	{URL: "https://cdn.jsdelivr.net/npm/three@0.160.0/build/three.module.js", ServedAs: "three@0.160.0/build/three.module.js"},
	{URL: "https://cdn.jsdelivr.net/npm/three@0.150.0/examples/jsm/controls/OrbitControls.js", ServedAs: "three@0.149.0/examples/jsm/controls/OrbitControls.js"},
}

// sortedLoads is loads in the order of cachePageLibraries (classic and
// module scripts are fetched in parallel), with FromCache as given.
func sortedLoads(t *testing.T, loads []LibraryLoad) []LibraryLoad {
	t.Helper()
	out := make([]LibraryLoad, 0, len(loads))
	for _, want := range cachePageLibraries {
		for _, l := range loads {
			if l.URL == want.URL {
				out = append(out, l)
			}
		}
	}
	require.Len(t, out, len(loads), "loads: %+v", loads)
	return out
}

// TestLibrariesFromTheBrowserCacheStayVisible: library files are answered
// from the browser's cache from the second load of a tab on, and each such
// load is recorded as an intercepted one is (the request log, the
// substitution, the three.js version, the document's library loads). The
// page's own file, a CDN file that is not vendored and a refused request
// reach the harness on every load, and the page's state is the same on
// every load.
func TestLibrariesFromTheBrowserCacheStayVisible(t *testing.T) {
	ctx := context.Background()
	s, logs := openLogged(t, filepath.Join("testdata", "cache", "index.html"))
	type load struct {
		hash    string
		served  []string
		subst   []Substitution
		blocked []Blocked
		libs    []LibraryLoad
	}
	var prev Log
	observe := func() load {
		t.Helper()
		_, err := s.Step(ctx, 10, false)
		require.NoError(t, err)
		st, err := s.ReadState(ctx)
		require.NoError(t, err)
		l := s.Log()
		got := load{hash: st.Hash, served: l.Requests.Served[len(prev.Requests.Served):],
			subst:   l.Requests.Substituted[len(prev.Requests.Substituted):],
			blocked: l.Requests.Blocked[len(prev.Requests.Blocked):], libs: sortedLoads(t, s.LibraryLoads())}
		sort.Strings(got.served)
		sort.Slice(got.blocked, func(i, j int) bool { return got.blocked[i].URL < got.blocked[j].URL })
		for i, b := range got.blocked {
			// A refused fetch is "fetch" or "xhr" depending on which CDP
			// event came first (docs/runtime.md).
			require.Contains(t, []string{"fetch", "xhr"}, b.Type, b.URL)
			got.blocked[i].Type = "fetch or xhr"
		}
		prev = l
		return got
	}
	first := observe()
	require.Equal(t, []string{
		"https://cdn.jsdelivr.net/npm/lil-gui@0.21.0/dist/lil-gui.umd.min.js",
		"https://cdn.jsdelivr.net/npm/three@0.150.0/examples/jsm/controls/OrbitControls.js",
		"https://cdn.jsdelivr.net/npm/three@0.160.0/build/three.module.js",
		"https://worldprobe.test/index.html",
		"https://worldprobe.test/local.js",
	}, first.served)
	require.Equal(t, []Substitution{{URL: "https://cdn.jsdelivr.net/npm/three@0.150.0/examples/jsm/controls/OrbitControls.js",
		ServedAs: "three@0.149.0/examples/jsm/controls/OrbitControls.js"}}, first.subst)
	require.Equal(t, []Blocked{
		{URL: "https://cdn.jsdelivr.net/npm/three@0.160.0/no/such/file.js", Type: "fetch or xhr", Reason: first.blocked[0].Reason},
		{URL: "https://example.com/data.json", Type: "fetch or xhr", Reason: "network access is disabled"},
	}, first.blocked)
	require.Contains(t, first.blocked[0].Reason, "library file not vendored")
	require.Equal(t, cachePageLibraries, first.libs, "the first load reaches the harness")
	require.ElementsMatch(t, []string{"0.160.0", "0.150.0"}, s.Log().ThreeRequested)

	for restart := 1; restart <= 3; restart++ {
		require.NoError(t, s.Restart(ctx, 0))
		got := observe()
		require.Equal(t, first.hash, got.hash, "restart %d: the page's state", restart)
		require.Equal(t, first.served, got.served, "restart %d: the request log", restart)
		require.Equal(t, first.subst, got.subst, "restart %d", restart)
		require.Equal(t, first.blocked, got.blocked, "restart %d: refusals are never cached", restart)
		if restart >= 2 {
			for i, l := range got.libs {
				require.True(t, l.FromCache, "restart %d: %s comes from the cache", restart, l.URL)
				got.libs[i].FromCache = false
			}
		}
		for i := range got.libs {
			got.libs[i].FromCache = false
		}
		require.Equal(t, cachePageLibraries, got.libs, "restart %d: the document's libraries", restart)
	}
	require.ElementsMatch(t, []string{"0.160.0", "0.150.0"}, s.Log().ThreeRequested)
	require.NotContains(t, logs.String(), "idle wait ran out")
}

// TestBrowserCacheIsPerSession: what one session's tab cached is not seen
// by another session (another trial): its first load reaches the harness.
func TestBrowserCacheIsPerSession(t *testing.T) {
	ctx := context.Background()
	page := filepath.Join("testdata", "cache", "index.html")
	a, _ := openLogged(t, page)
	require.NoError(t, a.Restart(ctx, 0))
	require.NoError(t, a.Restart(ctx, 0))
	for _, l := range a.LibraryLoads() {
		require.True(t, l.FromCache, "%s comes from the first tab's cache", l.URL)
	}
	b, _ := openLogged(t, page)
	require.Equal(t, cachePageLibraries, sortedLoads(t, b.LibraryLoads()), "a new session starts with an empty cache")
}
