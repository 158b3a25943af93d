package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/pgtest"
	"github.com/worldprobe/worldprobe/internal/store"
)

var loopback = &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}

func newServer(t *testing.T, f *fixture) *Server {
	t.Helper()
	s, err := New(context.Background(), Options{Run: f.dir})
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s
}

// get asks h for target as a browser on the same machine would.
func get(t *testing.T, h http.Handler, target string, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest("GET", target, nil)
	r.Host = "127.0.0.1:8080"
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

const (
	flawedPage = "/run/trials/simulation_ball__gpt__page__s0/"
	oraclePage = "/run/trials/simulation_ball__oracle__solution__s0/"
)

func TestOverviewShowsProgressAndLeaderboard(t *testing.T) {
	f := newFixture(t)
	h := newServer(t, f).Handler(loopback)
	w := get(t, h, "/")
	require.Equal(t, http.StatusOK, w.Code)
	require.Equal(t, "text/html; charset=utf-8", w.Header().Get("Content-Type"))
	body := w.Body.String()
	require.Contains(t, body, `<b class="done">3</b> trial(s) finished of <b class="planned">5</b> planned · <b class="running">1</b> unfinished (running now, or stopped midway)`)
	for name, n := range map[string]string{"pass": "1", "fail": "1", "crash": "1", "timeout": "0", "infra": "0", "unjudged": "0"} {
		require.Contains(t, body, `<td class="num" data-count="`+name+`">`+n+`</td>`, name)
	}
	// The leaderboard's rows, as report.html ranks them: the reference
	// (V-Cov 100%), then gpt (a 50% fail and a crash: 25%).
	require.Contains(t, body, "<tr><td>oracle</td><td class=\"num\">1</td><td class=\"num\">1</td><td class=\"num\">100.0%</td>")
	require.Contains(t, body, "<tr><td>gpt</td><td class=\"num\">2</td><td class=\"num\">2</td><td class=\"num\">25.0%</td>")
	require.Less(t, strings.Index(body, "<td>oracle</td>"), strings.Index(body, "<td>gpt</td>"))
	// The latest trials link to their pages; the script comes from the
	// server, nothing from outside.
	require.Contains(t, body, `href="`+flawedPage+`"`)
	require.Contains(t, body, `new EventSource("/events")`)
	require.Contains(t, body, `<a href="/run/report.html">report.html (static)</a>`)
	require.NotContains(t, body, "http://")
	require.NotContains(t, body, "https://")
}

func TestGridLinksEveryTrialWithAFolder(t *testing.T) {
	f := newFixture(t)
	h := newServer(t, f).Handler(loopback)
	body := get(t, h, "/grid").Body.String()
	require.Contains(t, body, `<a class="chip fail" href="`+flawedPage+`" title="gpt, page: fail, V-Cov 50.0%, physics_violation" data-status="fail" data-attribution="physics_violation" data-model="gpt">✗ 50%</a>`)
	require.Contains(t, body, `href="`+oraclePage+`"`)
	require.Contains(t, body, `href="/run/trials/rendering_fog__gpt__page__s0/"`)
	require.Contains(t, body, `<form id="filters" class="filters" hidden>`)

	lb := get(t, h, "/leaderboard").Body.String()
	require.Contains(t, lb, `<h3 id="by-category">By category</h3>`)
	require.Contains(t, lb, "<svg")
}

func TestTrialPageShowsItsEvidence(t *testing.T) {
	f := newFixture(t)
	h := newServer(t, f).Handler(loopback)
	// Without its slash the page's relative links would miss the folder.
	w := get(t, h, strings.TrimSuffix(flawedPage, "/"))
	require.Equal(t, http.StatusMovedPermanently, w.Code)
	require.Equal(t, flawedPage, w.Header().Get("Location"))

	w = get(t, h, flawedPage)
	require.Equal(t, http.StatusOK, w.Code)
	body := w.Body.String()
	require.Contains(t, body, `<h2 id="failed">Failed assertions</h2>`)
	require.Contains(t, body, "<pre>s.ball.position[1] = 5.3, want &lt; 5 &lt;script&gt;alert(1)&lt;/script&gt;</pre>")
	// Expected (the reference) against actual, where the assertion read it.
	require.Contains(t, body, `<tr><td class="mono">ball.position[1]</td><td>s at line 11 (frame 31)</td><td class="mono">5.3</td><td class="mono">0.5</td></tr>`)
	require.Contains(t, body, "<title>ball.position[1] in probe falls, per frame: this page against the reference</title>")
	require.Contains(t, body, `<a href="`+oraclePage+`">reference trial (oracle/solution sample 0)</a>`)
	require.Contains(t, body, `<img class="shot" src="screenshot.png"`)
	require.Contains(t, body, `<video class="shot" controls preload="metadata" src="video-falls.webm"`)
	require.Contains(t, body, `<a href="/grid#grid">← report</a>`)

	shot := get(t, h, flawedPage+"screenshot.png")
	require.Equal(t, http.StatusOK, shot.Code)
	require.Equal(t, "image/png", shot.Header().Get("Content-Type"))
	want, err := os.ReadFile(filepath.Join(f.dir, "trials/simulation_ball__gpt__page__s0/screenshot.png"))
	require.NoError(t, err)
	require.Equal(t, want, shot.Body.Bytes())
	require.True(t, strings.HasPrefix(shot.Header().Get("Content-Security-Policy"), "sandbox;"))

	video := get(t, h, flawedPage+"video-falls.webm")
	require.Equal(t, http.StatusOK, video.Code)
	require.Equal(t, "video/webm", video.Header().Get("Content-Type"))
	require.Equal(t, "bytes", video.Header().Get("Accept-Ranges"))
	require.Equal(t, videoBytes, video.Body.Bytes())
	part := get(t, h, flawedPage+"video-falls.webm", "Range", "bytes=10-19")
	require.Equal(t, http.StatusPartialContent, part.Code)
	require.Equal(t, "bytes 10-19/57", part.Header().Get("Content-Range"))
	require.Equal(t, string(videoBytes[10:20]), part.Body.String())

	static := get(t, h, "/run/report.html")
	require.Equal(t, http.StatusOK, static.Code)
	require.Equal(t, "text/html; charset=utf-8", static.Header().Get("Content-Type"))
	require.Equal(t, fileCSP, static.Header().Get("Content-Security-Policy"))

	trace := get(t, h, flawedPage+"trace.jsonl")
	require.Equal(t, "text/plain; charset=utf-8", trace.Header().Get("Content-Type"))
	require.Equal(t, http.StatusNotFound, get(t, h, flawedPage+"missing.png").Code)
	// A folder that is no trial's is not listed.
	require.Equal(t, http.StatusNotFound, get(t, h, "/run/trials/").Code)
	require.Equal(t, http.StatusNotFound, get(t, h, "/run/trials/rendering_fog__gpt__page__s1/").Code)
}

// Nothing outside the run folder is served, however the path is spelled
// and whatever a symbolic link in the folder points to.
func TestFilesStayInsideTheRunFolder(t *testing.T) {
	f := newFixture(t)
	srv := httptest.NewServer(newServer(t, f).Handler(nil))
	defer srv.Close()
	abs := strings.TrimPrefix(f.outside, "/")
	rel, err := filepath.Rel(f.dir, f.outside)
	require.NoError(t, err)
	require.Equal(t, "../secret.txt", rel)
	for _, p := range []string{
		"/run/../secret.txt",
		"/run/%2e%2e/secret.txt",
		"/run/trials/%2e%2e/%2e%2e/secret.txt",
		"/run/trials/..%2f..%2fsecret.txt",
		"/run/..%5csecret.txt",
		"/run//" + abs,
		"/run/%2f" + abs,
		"/run/link-out.txt",
		"/run/trials/dir-out/secret.txt",
		"/run/trials/dir-out/run/results.db",
	} {
		req, err := http.NewRequest("GET", srv.URL+p, nil)
		require.NoError(t, err)
		req.URL.RawPath = "" // send the path as written
		req.URL.Opaque = "//" + strings.TrimPrefix(srv.URL, "http://") + p
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err, p)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.NotEqual(t, http.StatusOK, resp.StatusCode, p)
		require.NotContains(t, string(b), "outside the run folder", p)
	}
	// The same server serves what is inside.
	resp, err := http.Get(srv.URL + flawedPage + "screenshot.png")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
}

func TestHostMustNameTheViewer(t *testing.T) {
	f := newFixture(t)
	s := newServer(t, f)
	h := s.Handler(loopback)
	for host, code := range map[string]int{"127.0.0.1:8080": 200, "localhost:8080": 200, "[::1]:8080": 200, "evil.example:8080": http.StatusMisdirectedRequest, "evil.example": http.StatusMisdirectedRequest} {
		r := httptest.NewRequest("GET", "/", nil)
		r.Host = host
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		require.Equal(t, code, w.Code, host)
	}
	// Listening on every interface, any name reaches it.
	r := httptest.NewRequest("GET", "/", nil)
	r.Host = "viewer.lan:8080"
	w := httptest.NewRecorder()
	s.Handler(&net.TCPAddr{IP: net.IPv4zero, Port: 8080}).ServeHTTP(w, r)
	require.Equal(t, http.StatusOK, w.Code)

	host, _, err := net.SplitHostPort(DefaultAddr)
	require.NoError(t, err)
	require.True(t, net.ParseIP(host).IsLoopback(), "the viewer binds loopback by default")
}

func TestOpenDB(t *testing.T) {
	ctx := context.Background()
	_, err := OpenDB(ctx, "postgres://user:hunter2@db.example/runs", "")
	require.EqualError(t, err, "opening postgres://user:xxxxx@db.example/runs: a PostgreSQL database holds many runs: give the run folder too (worldprobe serve RUN --db URL)")
	missing := filepath.Join(t.TempDir(), "results.db")
	_, err = OpenDB(ctx, missing, "")
	require.ErrorIs(t, err, os.ErrNotExist)
	_, err = os.Stat(missing)
	require.ErrorIs(t, err, os.ErrNotExist, "the viewer never creates a database")
	f := newFixture(t)
	db, err := OpenDB(ctx, "sqlite:"+filepath.Join(f.dir, store.ResultsDB), "")
	require.NoError(t, err)
	defer db.Close()
	trials, err := db.Trials(ctx)
	require.NoError(t, err)
	require.Len(t, trials, 3)
}

// event reads the next "change" event of an event stream.
func event(t *testing.T, r *bufio.Reader) progressState {
	t.Helper()
	name := ""
	for {
		line, err := r.ReadString('\n')
		require.NoError(t, err)
		line = strings.TrimRight(line, "\n")
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: ") && name == "change":
			var p progressState
			require.NoError(t, json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &p))
			return p
		}
	}
}

// The event stream says the run's state at once, then each change; the
// server shuts down cleanly when its context ends, streams open.
func TestEventsAnnounceNewTrials(t *testing.T) {
	f := newFixture(t)
	s, err := New(context.Background(), Options{Run: f.dir, Poll: 20 * time.Millisecond})
	require.NoError(t, err)
	defer s.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()

	resp, err := http.Get("http://" + ln.Addr().String() + "/events")
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	r := bufio.NewReader(resp.Body)
	first := event(t, r)
	require.Equal(t, 3, first.Done)
	require.Equal(t, 5, first.Planned)
	require.Equal(t, 1, first.Running)

	// The running trial finishes: its result.json, then the store.
	late := trialOf("k-late", "rendering/fog", "gpt", "page", 1)
	late.Pass, late.VCov, late.ACov, late.SCov, late.TCov = true, 1, 1, 1, 1
	f.add(t, late, nil)
	var p progressState
	for p.Done != 4 || p.Running != 0 {
		p = event(t, r)
	}
	require.NotEqual(t, first.Version, p.Version)
	require.Equal(t, 5, p.Planned)
	require.Equal(t, map[string]int{"pass": 2, "fail": 1, "crash": 1, "timeout": 0, "infra": 0, "unjudged": 0}, p.Counts)

	var api progressState
	res, err := http.Get("http://" + ln.Addr().String() + "/api/progress")
	require.NoError(t, err)
	require.NoError(t, json.NewDecoder(res.Body).Decode(&api))
	res.Body.Close()
	require.Equal(t, p, api)

	cancel()
	require.NoError(t, <-done)
	// The stream ended with the server.
	_, err = io.ReadAll(r)
	require.NoError(t, err)
}

// With --db alone there is no run folder: the pages show the trials
// without links, and no file is served.
func TestDBWithoutRunFolder(t *testing.T) {
	f := newFixture(t)
	s, err := New(context.Background(), Options{DB: filepath.Join(f.dir, store.ResultsDB)})
	require.NoError(t, err)
	defer s.Close()
	h := s.Handler(loopback)
	body := get(t, h, "/grid").Body.String()
	require.Contains(t, body, `<span class="chip fail" title="gpt, page: fail, V-Cov 50.0%, physics_violation" data-status="fail" data-attribution="physics_violation" data-model="gpt">✗ 50%</span>`)
	require.NotContains(t, body, `href="/run/`, "no trial page and no report.html to link to")
	require.Contains(t, get(t, h, "/").Body.String(), `<b class="done">3</b> trial(s) finished of <b class="planned">5</b> planned · <span class="muted">as of `)
	require.Equal(t, http.StatusNotFound, get(t, h, flawedPage).Code)
	require.Equal(t, http.StatusNotFound, get(t, h, "/run/results.db").Code)
}

// A run that has just begun: a database without trials.
func TestEmptyRun(t *testing.T) {
	dir := t.TempDir()
	db, err := OpenDB(context.Background(), filepath.Join(dir, store.ResultsDB), "")
	require.ErrorIs(t, err, os.ErrNotExist)
	require.Nil(t, db)
	created, err := storeAt(t, filepath.Join(dir, store.ResultsDB))
	require.NoError(t, err)
	created.Close()
	s, err := New(context.Background(), Options{Run: dir})
	require.NoError(t, err)
	defer s.Close()
	h := s.Handler(loopback)
	for _, p := range []string{"/", "/leaderboard", "/grid"} {
		w := get(t, h, p)
		require.Equal(t, http.StatusOK, w.Code, p)
	}
	body := get(t, h, "/").Body.String()
	require.Contains(t, body, `<b class="done">0</b> trial(s) finished`)
	require.Contains(t, body, "<p>No trials.</p>")
	require.Contains(t, body, `<p class="muted">No trial has finished yet.</p>`)
}

// TestOpenDBPostgres: a PostgreSQL database holding two runs shows the
// trials of the run folder given, read by the folder's absolute path as
// 'worldprobe run --db' and the workers store them.
func TestOpenDBPostgres(t *testing.T) {
	ctx := context.Background()
	srv := pgtest.Start(t)
	url := srv.NewDB(t)
	runA, runB := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	for run, keys := range map[string][]string{runA: {"k1", "k2"}, runB: {"k3"}} {
		db, err := store.DialPostgres(ctx, url, run)
		require.NoError(t, err)
		for _, k := range keys {
			require.NoError(t, db.Save(ctx, trialOf(k, "simulation/ball", "oracle", "solution", 0)))
		}
		require.NoError(t, db.Close())
	}
	wd, err := os.Getwd()
	require.NoError(t, err)
	rel, err := filepath.Rel(wd, runA)
	require.NoError(t, err)
	db, err := OpenDB(ctx, url, rel)
	require.NoError(t, err)
	defer db.Close()
	trials, err := db.Trials(ctx)
	require.NoError(t, err)
	var keys []string
	for _, tr := range trials {
		keys = append(keys, tr.Key)
	}
	require.Equal(t, []string{"k1", "k2"}, keys, "a relative run folder names the same run as its absolute path")
}
