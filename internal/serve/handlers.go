package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/worldprobe/worldprobe/internal/report"
	"github.com/worldprobe/worldprobe/internal/result"
)

// contentTypes are the types of the run folder's files that Go's own
// table lacks or that should be shown as text.
var contentTypes = map[string]string{
	".webm":  "video/webm",
	".mp4":   "video/mp4",
	".png":   "image/png",
	".jsonl": "text/plain; charset=utf-8",
	".json":  "application/json",
	".md":    "text/plain; charset=utf-8",
	".log":   "text/plain; charset=utf-8",
	".txt":   "text/plain; charset=utf-8",
	".yaml":  "text/plain; charset=utf-8",
	".html":  "text/html; charset=utf-8",
}

// staticReport is the run's own report (docs/cli.md).
const staticReport = "report.html"

// fileCSP confines whatever the run folder holds when it is opened from
// the viewer: a page written by a model runs no script and reaches
// nothing, in an origin of its own (sandbox).
const fileCSP = "sandbox; default-src 'none'; img-src 'self'; media-src 'self'; style-src 'unsafe-inline'"

// Handler answers the viewer's requests; addr is the address it listens
// on (a request naming another host is refused unless it is a loopback
// name or an IP address: a web page cannot reach the viewer through a
// DNS name rebound to 127.0.0.1).
//
//	GET /                 the overview: progress, leaderboard, latest trials
//	GET /leaderboard      the leaderboard in detail, with its plots
//	GET /grid             models × tasks, each mark linking to its trial
//	GET /run/trials/X/    trial X's page
//	GET /run/PATH         a file of the run folder (Range requests served)
//	GET /events           Server-Sent Events: "change" with the run's version
//	GET /api/progress     the progress as JSON
func (s *Server) Handler(addr net.Addr) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.page("overview"))
	mux.HandleFunc("GET /leaderboard", s.page("leaderboard"))
	mux.HandleFunc("GET /grid", s.page("grid"))
	mux.HandleFunc("GET /events", s.events)
	mux.HandleFunc("GET /api/progress", s.progressJSON)
	mux.HandleFunc("GET /run/{path...}", s.file)
	listenHost := ""
	if addr != nil {
		listenHost, _, _ = net.SplitHostPort(addr.String())
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !hostAllowed(r.Host, listenHost) {
			http.Error(w, "unknown host: open the viewer at its IP address or localhost", http.StatusMisdirectedRequest)
			return
		}
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		mux.ServeHTTP(w, r)
	})
}

// hostAllowed reports whether a request's Host names the viewer: an IP
// address, localhost, or (when the viewer listens on a named or
// non-loopback address) anything.
func hostAllowed(host, listenHost string) bool {
	h := host
	if hh, _, err := net.SplitHostPort(host); err == nil {
		h = hh
	}
	h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
	if net.ParseIP(h) != nil || strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(listenHost)
	return listenHost != "" && (ip == nil || !ip.IsLoopback())
}

// page serves one of the run's pages from the latest snapshot.
func (s *Server) page(name string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		snap := s.current()
		sv := s.served(snap)
		if s.files != nil {
			if _, err := fs.Stat(s.files, staticReport); err == nil {
				sv.Static = "/run/" + staticReport
			}
		}
		s.render(w, name, func(b io.Writer) error { return sv.Page(b, name, snap.page, snap.progress, snap.version) })
	}
}

// served renders snap's pages, linking each trial to its page here.
func (s *Server) served(snap *snapshot) report.Served {
	return report.Served{Root: s.opts.Run, Script: liveJS, Link: func(t *result.Trial) string { return TrialURL(snap.page.Dirs[t.Key]) }}
}

// render answers with the page render writes, or with its error.
func (s *Server) render(w http.ResponseWriter, page string, render func(io.Writer) error) {
	var buf bytes.Buffer
	if err := render(&buf); err != nil {
		s.log.Error("rendering a page", "page", page, "err", err)
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(buf.Bytes())
}

// progressState is what /api/progress and each event say.
type progressState struct {
	Version string         `json:"version"`
	Done    int            `json:"done"`
	Planned int            `json:"planned"`
	Running int            `json:"running"`
	Counts  map[string]int `json:"counts"`
	// Steps are the generation and repair jobs feeding the run, by kind.
	Steps []stepState `json:"steps,omitempty"`
}

// stepState is one kind of generation jobs in progressState.
type stepState struct {
	Kind    string `json:"kind"`
	Queued  int    `json:"queued"`
	Running int    `json:"running"`
	Done    int    `json:"done"`
	GivenUp int    `json:"given_up"`
}

func stateOf(snap *snapshot) progressState {
	p := progressState{Version: snap.version, Done: snap.progress.Done, Planned: snap.progress.Planned, Running: snap.progress.Running, Counts: map[string]int{}}
	for _, c := range snap.progress.Counts {
		p.Counts[c.Name] = c.N
	}
	for _, c := range snap.progress.Steps {
		p.Steps = append(p.Steps, stepState{Kind: c.Kind, Queued: c.Queued, Running: c.Running, Done: c.Done, GivenUp: c.GivenUp})
	}
	return p
}

func (s *Server) progressJSON(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	json.NewEncoder(w).Encode(stateOf(s.current()))
}

// events streams a "change" event now and whenever the run changes,
// until the client leaves or the server shuts down.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming is not supported here", http.StatusInternalServerError)
		return
	}
	ch := make(chan *snapshot, 1)
	s.mu.Lock()
	if len(s.subs) >= maxStreams {
		s.mu.Unlock()
		http.Error(w, fmt.Sprintf("too many open event streams (%d)", maxStreams), http.StatusServiceUnavailable)
		return
	}
	s.subs[ch] = struct{}{}
	ch <- s.snap
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.subs, ch)
		s.mu.Unlock()
	}()
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	fl.Flush()
	tick := time.NewTicker(heartbeat)
	defer tick.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-tick.C:
			if _, err := fmt.Fprint(w, ": still here\n\n"); err != nil {
				return
			}
		case snap := <-ch:
			b, _ := json.Marshal(stateOf(snap))
			if _, err := fmt.Fprintf(w, "event: change\ndata: %s\n\n", b); err != nil {
				return
			}
		}
		fl.Flush()
	}
}

// file serves a file of the run folder, or a trial's page for a trial's
// folder. Only what is inside the run folder is served: a path that
// leaves it, through .. or a symbolic link, is not found.
func (s *Server) file(w http.ResponseWriter, r *http.Request) {
	rel := r.PathValue("path")
	if s.files == nil || rel == "" || !filepath.IsLocal(filepath.FromSlash(rel)) || strings.Contains(rel, "\\") {
		http.NotFound(w, r)
		return
	}
	clean := path.Clean(rel)
	snap := s.current()
	if key, ok := snap.byDir[clean]; ok {
		if !strings.HasSuffix(r.URL.Path, "/") {
			// Its page's links are relative to the folder.
			http.Redirect(w, r, TrialURL(clean), http.StatusMovedPermanently)
			return
		}
		s.trialPage(w, snap, key)
		return
	}
	f, err := s.files.Open(clean)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			s.log.Debug("refused a file", "path", rel, "err", err)
		}
		http.NotFound(w, r)
		return
	}
	defer f.Close()
	fi, err := f.Stat()
	rs, seekable := f.(io.ReadSeeker)
	if err != nil || !fi.Mode().IsRegular() || !seekable {
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	if ct, ok := contentTypes[strings.ToLower(path.Ext(clean))]; ok {
		h.Set("Content-Type", ct)
	}
	h.Set("Content-Security-Policy", fileCSP)
	http.ServeContent(w, r, path.Base(clean), fi.ModTime(), rs)
}

func (s *Server) trialPage(w http.ResponseWriter, snap *snapshot, key string) {
	sv := s.served(snap)
	s.render(w, "trial "+key, func(b io.Writer) error { return sv.Trial(b, snap.page, key, "/grid") })
}
