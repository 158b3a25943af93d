package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/animation"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/debugger"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/inspector"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/storage"
	"github.com/chromedp/chromedp"

	"github.com/worldprobe/worldprobe/internal/browser"
	"github.com/worldprobe/worldprobe/internal/pageenv"
	"github.com/worldprobe/worldprobe/internal/resolve"
	"github.com/worldprobe/worldprobe/internal/result"
)

// Origin is the virtual origin a page is served from. It is https, so pages
// get a secure context (WebXR, crypto.subtle), and nothing ever resolves it:
// every request to it is answered by worldprobe itself.
const Origin = "https://worldprobe.test"

// Config parametrises a Session.
type Config struct {
	// Seed seeds the page's randomness.
	Seed uint32
	// FPS is the virtual frame rate.
	FPS float64
	// Width and Height are the viewport in CSS pixels (device scale 1).
	Width, Height int
	// SkipDraw skips WebGL draw calls on frames that nobody observes.
	SkipDraw bool
	// StateCap caps the serialised __3D_STATE__ in bytes.
	StateCap int
	// CallTimeout is how long the page may keep control in one call (load,
	// a chunk of frames) before it counts as hung.
	CallTimeout time.Duration
	// GPUTimeout is the extra allowance for drawing and presenting an
	// observed frame.
	GPUTimeout time.Duration
	// Logger receives diagnostics; nil uses slog.Default().
	Logger *slog.Logger
	// Plain loads the page without the deterministic runtime: real time,
	// real randomness, every frame drawn. Only benchmarks use it, as the
	// baseline that worldprobe is compared with. Script, when set, is
	// injected instead (e.g. a frame counter).
	Plain  bool
	Script string
	// Preludes are scripts evaluated in every new document after the
	// runtime and before any script of the page, in order: an emulated XR
	// device (internal/xr) that must replace navigator.xr before the page
	// probes it. A restart injects them again, after the new runtime.
	Preludes []string
	// RealTime injects the runtime with a real clock (see pageenv.Config);
	// only benchmarks use it.
	RealTime bool
	// Coverage turns on V8's precise block coverage before every load
	// (TakeCoverage reads it): the world judge's "only code that ran".
	Coverage bool
}

// The default deadlines, which inspect, trials and benchmarks share.
const (
	// DefaultCallTimeout is how long a page may keep control in one call.
	DefaultCallTimeout = 30 * time.Second
	// DefaultGPUTimeout is the extra allowance for drawing and presenting
	// one frame (the GPU process is shared and may be busy).
	DefaultGPUTimeout = 60 * time.Second
)

func (c *Config) defaults() {
	if c.FPS <= 0 {
		c.FPS = 60
	}
	if c.Width <= 0 || c.Height <= 0 {
		c.Width, c.Height = 1280, 800
	}
	if c.StateCap <= 0 {
		c.StateCap = 1 << 20
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.CallTimeout <= 0 {
		c.CallTimeout = DefaultCallTimeout
	}
	if c.GPUTimeout <= 0 {
		c.GPUTimeout = DefaultGPUTimeout
	}
}

// ErrCrashed reports that the page's renderer process died.
var ErrCrashed = errors.New("the page's renderer crashed")

// ErrUnresponsive reports that the page did not return control by its deadline.
var ErrUnresponsive = errors.New("the page did not respond by its deadline")

// Session is one page loaded in its own browser context.
type Session struct {
	// charge attributes CPU time to a phase (browser.Charge; a no-op
	// without the CPU ledger).
	charge   func(phase string) (end func())
	cfg      Config
	page     *browser.Page
	resolver *resolve.Resolver
	root     string // folder served at Origin
	entry    string // URL of the page
	rec      *recorder
	frame    atomic.Int64
	// drawnAt is the frame whose drawing the canvas shows (0 before any).
	drawnAt  int64
	loaded   atomic.Bool
	inflight atomic.Int64
	started  atomic.Int64
	scripts  scriptTracker
	// watchedLoads counts the loads during which the debugger reported
	// compiled scripts; mayImport is set once a script or document served
	// to this session could import a module dynamically (see navigate).
	watchedLoads int
	mayImport    atomic.Bool
	crashed      chan struct{}
	refusals     refusals
	frames       sync.Map // cdp.FrameID → true: the page's frames, for its downloads
	crashOne     sync.Once
	mainID       atomic.Value // cdp.FrameID
	// mainDocAsked: this load's main document has been requested; any
	// later main-frame document (a meta refresh, a location change) is a
	// navigation away, even before the load event sets loaded.
	mainDocAsked atomic.Bool
	scriptID     page.ScriptIdentifier
	// preludeIDs identify the injected Config.Preludes.
	preludeIDs []page.ScriptIdentifier
	// buttonHeld: a Press has put the left button down and no Release has
	// let it up; heldAt is where the pointer was last moved with it.
	buttonHeld bool
	heldAt     Point
	// input is the trusted input this document has been sent and has seen,
	// by DOM event type (see settleInput).
	input inputLedger
	// netSeen is the page's count of network-capable calls when the network
	// was last known settled (-1: unknown, wait before the next frame);
	// startedSeen the harness's request count at that point (see settled).
	netSeen, startedSeen int64
	// pace is the page's measured wall time per stepped frame (0: unknown).
	pace time.Duration
	// waits counts the network waits Step made (for tests).
	waits int
	// video is the frame recorder and its count (SetRecorder).
	video videoState
	// loadErr is how the page failed while Open loaded it.
	loadErr error
	// timing is where the last load's wall time went.
	timing LoadTiming
	// covPos is where each parsed script starts (Config.Coverage).
	covPos scriptPositions
}

// LoadTiming is where the wall time of the last Open or Restart went, for
// benchmarks: each phase as the harness saw it, in order.
type LoadTiming struct {
	// Setup: a new tab and its CDP domains (Open), or removing the old
	// runtime, injecting the new one and clearing the origin's storage
	// (Restart).
	Setup time.Duration
	// Document: the navigation, from the request to the load event —
	// the document and its scripts fetched, parsed and run.
	Document time.Duration
	// Idle: after the load event, until the network, the page's own
	// pending work and off-thread script compilation are quiet.
	Idle time.Duration
}

// Timing is where the wall time of the last Open or Restart went.
func (s *Session) Timing() LoadTiming { return s.timing }

// Open loads the HTML file at path into a fresh page. The page's folder is
// served at Origin. The error is for infrastructure problems only, and then
// there is no session. A page that fails to load is not an error: Open
// returns its session, and the failure is in LoadErr (the page hung or
// crashed while loading: ErrUnresponsive, ErrCrashed), or in Loaded and
// Log (the document itself failed or answered an HTTP error).
func Open(ctx context.Context, b *browser.Browser, res *resolve.Resolver, path string, cfg Config) (*Session, error) {
	cfg.defaults()
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("page path %s: %w", path, err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("page %s: %w", path, err)
	}
	if st.IsDir() {
		abs = filepath.Join(abs, "index.html")
	}
	s := &Session{
		cfg: cfg, resolver: res, root: filepath.Dir(abs),
		entry:   Origin + "/" + filepath.Base(abs),
		crashed: make(chan struct{}),
		netSeen: -1,
	}
	s.rec = newRecorder(func() int { return int(s.frame.Load()) })
	s.charge = b.Charge
	t0 := time.Now()
	end := s.charge("open: context and tab")
	p, err := b.NewPage(ctx, s.onEvent)
	end()
	if err != nil {
		return nil, err
	}
	s.page = p
	p.OnDownload(func(frame cdp.FrameID, u, name string) {
		if _, ours := s.frames.Load(frame); !ours {
			return
		}
		s.rec.with(func(l *Log) { l.addBlocked(u, "download", "downloads are denied ("+truncate(name, 100)+")") })
	})
	t1 := time.Now()
	end = s.charge("open: domains and runtime")
	err = s.prepare(ctx)
	end()
	if err != nil {
		p.Close()
		return nil, err
	}
	t2 := time.Now()
	s.timing = LoadTiming{Setup: t2.Sub(t0)}
	end = s.charge("open: first load")
	err = s.navigate(ctx)
	end()
	cfg.Logger.Debug("page opened", "page", path, "tab", t1.Sub(t0), "prepare", t2.Sub(t1), "navigate", time.Since(t2))
	if err != nil {
		if errors.Is(err, ErrUnresponsive) || errors.Is(err, ErrCrashed) {
			s.loadErr = err
			return s, nil
		}
		p.Close()
		return nil, err
	}
	return s, nil
}

// LoadErr is how the page failed while Open loaded it — it stopped
// responding (ErrUnresponsive) or its renderer crashed (ErrCrashed) — or
// nil. A later Restart or Reload does not change it.
func (s *Session) LoadErr() error { return s.loadErr }

// prepare sets up emulation, interception and the injected runtime.
func (s *Session) prepare(ctx context.Context) error {
	script, err := pageenv.Script(pageenv.Config{Seed: s.cfg.Seed, FPS: s.cfg.FPS, SkipDraw: s.cfg.SkipDraw, RealTime: s.cfg.RealTime, BlobBudget: s.page.BlobBudget()})
	if err != nil {
		return err
	}
	if s.cfg.Plain {
		script = s.cfg.Script
	}
	pctx, cancel := s.callCtx(ctx, 20*time.Second)
	defer cancel()
	steps := []struct {
		what string
		do   func() error
	}{
		{"enabling the inspector", func() error { _, err := chromedp.Call(pctx, inspector.Enable, cdp.Empty{}); return err }},
		{"enabling the network domain", func() error { _, err := chromedp.Call(pctx, network.Enable, network.EnableParams{}); return err }},
		{"enabling the log domain", func() error { _, err := chromedp.Call(pctx, cdplog.Enable, cdp.Empty{}); return err }},
		{"enabling the cache", func() error {
			// Only library files are answered cacheably (see cacheable), so
			// the reloads of this tab take them from the renderer's memory
			// cache; every such load is still recorded (servedFromCache).
			_, err := chromedp.Call(pctx, network.SetCacheDisabled, network.SetCacheDisabledParams{CacheDisabled: false})
			return err
		}},
		{"intercepting requests", func() error {
			_, err := chromedp.Call(pctx, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*"}}})
			return err
		}},
		{"setting the viewport", func() error {
			_, err := chromedp.Call(pctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
				Width: int64(s.cfg.Width), Height: int64(s.cfg.Height), DeviceScaleFactor: 1,
				ScreenWidth: int64(s.cfg.Width), ScreenHeight: int64(s.cfg.Height)})
			return err
		}},
		{"setting the time zone", func() error {
			_, err := chromedp.Call(pctx, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: "UTC"})
			return err
		}},
		{"setting the locale", func() error {
			_, err := chromedp.Call(pctx, emulation.SetLocaleOverride, emulation.SetLocaleOverrideParams{Locale: "en-US"})
			return err
		}},
		{"freezing the animation timeline", func() error {
			if s.cfg.RealTime || s.cfg.Plain {
				return nil
			}
			// CSS and Web Animations then move only when the runtime
			// advances them, by the virtual frame time (docs/runtime.md).
			_, err := chromedp.Call(pctx, animation.SetPlaybackRate, animation.SetPlaybackRateParams{PlaybackRate: 0})
			return err
		}},
		{"limiting the page's storage", func() error {
			// IndexedDB and the Cache API of a page's (off-the-record)
			// context live in the browser process's memory, outside the
			// renderer's cap, and the origin's default quota is 10 GiB:
			// a page writing random bytes grew the browser process by
			// 370 MiB in a second. The page's quota is its Blob budget.
			budget := s.page.BlobBudget()
			if budget <= 0 || s.cfg.Plain {
				return nil
			}
			quota := float64(budget)
			_, err := chromedp.Call(pctx, storage.OverrideQuotaForOrigin, storage.OverrideQuotaForOriginParams{Origin: Origin, QuotaSize: &quota})
			return err
		}},
		{"intercepting file choosers", func() error {
			_, err := chromedp.Call(pctx, page.SetInterceptFileChooserDialog, page.SetInterceptFileChooserDialogParams{Enabled: true})
			return err
		}},
		{"emulating focus", func() error {
			_, err := chromedp.Call(pctx, emulation.SetFocusEmulationEnabled, emulation.SetFocusEmulationEnabledParams{Enabled: true})
			return err
		}},
		{"injecting the runtime", func() error {
			if script == "" {
				return nil
			}
			res, err := chromedp.Call(pctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: script})
			s.scriptID = res.Identifier
			return err
		}},
		{"injecting the preludes", func() error { return s.injectPreludes(pctx) }},
	}
	for _, st := range steps {
		if err := st.do(); err != nil {
			return fmt.Errorf("%s: %w", st.what, err)
		}
	}
	return nil
}

// navigate loads the entry page and waits for its load event and for the
// network to go quiet.
func (s *Session) navigate(ctx context.Context) error {
	s.netSeen, s.pace, s.drawnAt = -1, 0, 0
	s.input = inputLedger{}
	s.mainDocAsked.Store(false)
	s.rec.newDocument()
	// While the page loads, the debugger reports each script compiled, so
	// WaitIdle can wait for scripts V8 compiles off the main thread. It is
	// switched off once the page is idle: with it on, V8 pauses a page near
	// its heap limit instead of letting it crash.
	//
	// Only the first load of a session always watches. The load event
	// already waits for every script element and its static imports; what
	// it does not wait for is a module imported with import() during the
	// load. So a later load (a restart, a reload) watches only when some
	// script or document served to this session so far contains import(.
	// Loads with the debugger on cost about 30 ms more renderer CPU each
	// (docs/PERFORMANCE.md, "The idle quarter").
	t0 := time.Now()
	watch := false
	if s.cfg.Coverage {
		// V8 compiles no block counters while the debugger is on, so a
		// covered load does not watch compilation: its scripts are waited
		// for until served, as scripts added after load always are.
		if err := s.startCoverage(ctx); err != nil {
			return err
		}
	} else if s.watchedLoads == 0 || s.mayImport.Load() {
		watch = true
		s.watchedLoads++
		if err := s.watchCompilation(ctx, true); err != nil {
			return err
		}
	}
	nctx, cancel := s.callCtx(ctx, s.cfg.CallTimeout)
	defer cancel()
	_, err := chromedp.RunResponse(nctx, chromedp.Navigate(s.entry))
	s.timing.Document = time.Since(t0)
	if err != nil {
		if cerr := s.classify(ctx, nctx, err); cerr != nil {
			return cerr
		}
		var le *chromedp.LoadError
		if errors.As(err, &le) {
			s.rec.with(func(l *Log) { l.MainDocFailure = le.ErrorText })
			return nil
		}
		s.rec.with(func(l *Log) { l.MainDocFailure = err.Error() })
		return nil
	}
	s.loaded.Store(true)
	t1 := time.Now()
	defer func() { s.timing.Idle = time.Since(t1) }()
	if err := s.WaitIdle(ctx); err != nil {
		return err
	}
	if !watch {
		return nil
	}
	return s.watchCompilation(ctx, false)
}

// watchCompilation switches the debugger's script reports on or off.
func (s *Session) watchCompilation(ctx context.Context, on bool) error {
	if s.cfg.Plain {
		return nil
	}
	if !on {
		// From now on no compiled script is reported, so none is waited for.
		s.scripts.watch(false)
		_, err := call(ctx, s, "stopping the debugger", debugger.Disable, cdp.Empty{})
		return err
	}
	if _, err := call(ctx, s, "starting the debugger", debugger.Enable, debugger.EnableParams{}); err != nil {
		return err
	}
	// A page's own debugger statements must never pause it.
	if _, err := call(ctx, s, "starting the debugger", debugger.SetSkipAllPauses, debugger.SetSkipAllPausesParams{Skip: true}); err != nil {
		return err
	}
	s.scripts.watch(true)
	return nil
}

// Restart loads the page again as if in a new tab: the runtime is injected
// anew with the given frame rate (0 keeps the current one), the origin's
// storage (localStorage, IndexedDB, cookies, caches) is cleared, and the
// document, clock and random sequence start from scratch. It is much cheaper
// than closing the session and opening another.
func (s *Session) Restart(ctx context.Context, fps float64) error {
	defer s.charge("restart")()
	if fps > 0 {
		s.cfg.FPS = fps
	}
	t0 := time.Now()
	s.cfg.Logger.Debug("restarting the page")
	s.timing = LoadTiming{}
	script, err := pageenv.Script(pageenv.Config{Seed: s.cfg.Seed, FPS: s.cfg.FPS, SkipDraw: s.cfg.SkipDraw, RealTime: s.cfg.RealTime, BlobBudget: s.page.BlobBudget()})
	if err != nil {
		return err
	}
	// The preludes go too and come back after the new runtime, which
	// must run first in every document.
	for _, id := range append([]page.ScriptIdentifier{s.scriptID}, s.preludeIDs...) {
		if id == "" {
			continue
		}
		if _, err := call(ctx, s, "removing an injected script", page.RemoveScriptToEvaluateOnNewDocument,
			page.RemoveScriptToEvaluateOnNewDocumentParams{Identifier: id}); err != nil {
			return err
		}
	}
	res, err := call(ctx, s, "injecting the runtime", page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: script})
	if err != nil {
		return err
	}
	s.scriptID = res.Identifier
	pctx, cancel := s.callCtx(ctx, s.cfg.CallTimeout)
	if err := s.injectPreludes(pctx); err != nil {
		err = s.callErr(ctx, pctx, "injecting the preludes", err)
		cancel()
		return err
	}
	cancel()
	if _, err := call(ctx, s, "clearing storage", storage.ClearDataForOrigin, storage.ClearDataForOriginParams{Origin: Origin, StorageTypes: "all"}); err != nil {
		return err
	}
	s.timing.Setup = time.Since(t0)
	err = s.Reload(ctx)
	s.cfg.Logger.Debug("page restarted", "setup", s.timing.Setup, "doc", s.timing.Document, "idle", s.timing.Idle, "err", err)
	return err
}

// SetPreludes replaces Config.Preludes from the next Restart on: a trial
// that stands a probe's headset in another room restarts its tab with
// that room's prelude.
func (s *Session) SetPreludes(preludes []string) { s.cfg.Preludes = preludes }

// injectPreludes adds Config.Preludes to every new document, in order,
// after whatever is injected already (the runtime), through cctx (a
// context of the page's tab), and keeps their identifiers for Restart.
func (s *Session) injectPreludes(cctx context.Context) error {
	s.preludeIDs = s.preludeIDs[:0]
	for _, src := range s.cfg.Preludes {
		res, err := chromedp.Call(cctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: src})
		if err != nil {
			return err
		}
		s.preludeIDs = append(s.preludeIDs, res.Identifier)
	}
	return nil
}

// callErr classifies the error of a CDP call made with callCtx.
func (s *Session) callErr(outer, call context.Context, what string, err error) error {
	if cerr := s.classify(outer, call, err); cerr != nil {
		return cerr
	}
	return fmt.Errorf("%s: %w", what, err)
}

// Loaded reports whether the page's document loaded.
func (s *Session) Loaded() bool {
	l := s.rec.snapshot()
	return s.loaded.Load() && l.MainDocFailure == "" && (l.MainDocStatus == 0 || l.MainDocStatus < 400)
}

// callCtx derives a context for one call on the page: bounded by ctx, by the
// optional limit, and cut short when the renderer crashes.
func (s *Session) callCtx(ctx context.Context, limit time.Duration) (context.Context, context.CancelFunc) {
	c, cancel := context.WithCancel(s.page.Context())
	var stops []func() bool
	stops = append(stops, context.AfterFunc(ctx, cancel))
	if d, ok := ctx.Deadline(); ok {
		var dcancel context.CancelFunc
		c, dcancel = context.WithDeadline(c, d)
		prev := cancel
		cancel = func() { dcancel(); prev() }
	}
	if limit > 0 {
		var lcancel context.CancelFunc
		c, lcancel = context.WithTimeout(c, limit)
		prev := cancel
		cancel = func() { lcancel(); prev() }
	}
	go func() {
		select {
		case <-s.crashed:
			cancel()
		case <-c.Done():
		}
	}()
	return c, func() {
		for _, stop := range stops {
			stop()
		}
		cancel()
	}
}

// classify turns the error of a call into ErrCrashed or ErrUnresponsive when
// that is what happened, or nil when it is something else.
func (s *Session) classify(outer, call context.Context, err error) error {
	select {
	case <-s.crashed:
		return ErrCrashed
	default:
	}
	if outer.Err() != nil && !errors.Is(context.Cause(outer), context.DeadlineExceeded) && !errors.Is(outer.Err(), context.DeadlineExceeded) {
		return outer.Err()
	}
	if call.Err() != nil || errors.Is(err, context.DeadlineExceeded) {
		return ErrUnresponsive
	}
	return nil
}

// Log returns a copy of everything recorded so far.
func (s *Session) Log() Log { return s.rec.snapshot() }

// CrashCauseMemory is the cause of a crash the memory watchdog made: the
// page used more memory than its share.
const CrashCauseMemory = result.CrashCauseMemory

// CrashCause says why a crashed page's renderer ended: cause is
// CrashCauseMemory when the memory watchdog ended it, else ""; message
// says what happened in words. It may wait a moment for Chromium's report.
func (s *Session) CrashCause() (cause, message string) {
	if s.page == nil {
		return "", "the page's renderer process crashed"
	}
	kill, status := s.page.CrashCause(2 * time.Second)
	if kill != nil {
		return CrashCauseMemory, "the page used more memory than its share: " + kill.String()
	}
	if status == "" {
		return "", "the page's renderer process crashed (for example out of memory)"
	}
	return "", "the page's renderer process crashed (Chromium: " + status + "; a JavaScript heap past its limit ends this way)"
}

// Frame is the number of frames stepped so far.
func (s *Session) Frame() int { return int(s.frame.Load()) }

// Interrupt stops the page's running JavaScript (e.g. an endless loop).
func (s *Session) Interrupt() error { return s.page.Interrupt() }

// Close closes the page and ends its renderer.
func (s *Session) Close() {
	defer s.charge("close")()
	if s.page != nil {
		s.page.Close()
	}
}

// Eval evaluates a JavaScript expression in the page, awaiting a promise
// result, and decodes its JSON value into out (nil to discard). limit bounds
// the call (0: only ctx).
func (s *Session) Eval(ctx context.Context, limit time.Duration, expr string, out any) error {
	return s.eval(ctx, limit, expr, true, out)
}

// eval evaluates expr in the page and decodes its JSON value into out. When
// await is set, a promise result is awaited.
func (s *Session) eval(ctx context.Context, limit time.Duration, expr string, await bool, out any) error {
	var opts []chromedp.EvaluateOption
	if await {
		opts = append(opts, chromedp.EvalAwaitPromise)
	}
	return s.evalWith(ctx, limit, expr, opts, out)
}

// evalWith is eval with the given evaluation options.
func (s *Session) evalWith(ctx context.Context, limit time.Duration, expr string, opts []chromedp.EvaluateOption, out any) error {
	defer s.charge("eval (other)")()
	cctx, cancel := s.callCtx(ctx, limit)
	defer cancel()
	raw, err := chromedp.Run(cctx, chromedp.Evaluate[[]byte](expr, opts...))
	if err != nil {
		if cerr := s.classify(ctx, cctx, err); cerr != nil {
			return cerr
		}
		return fmt.Errorf("evaluating %s: %w", shortExpr(expr), err)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("decoding the result of %s: %w", shortExpr(expr), err)
	}
	return nil
}

func shortExpr(s string) string { return truncate(s, 60) }

func unmarshalJSON(b []byte, v any) error { return json.Unmarshal(b, v) }

// onEvent receives every CDP event of the tab. It runs on the tab's reader
// loop: it records and hands off, and never calls CDP itself.
func (s *Session) onEvent(ev any) {
	switch ev := ev.(type) {
	case *fetch.EventRequestPaused:
		sent := s.refusals.intercepted(string(ev.NetworkID))
		s.inflight.Add(1)
		s.started.Add(1)
		go s.answer(ev, sent)
	case *debugger.EventScriptParsed:
		s.scripts.parsed(ev.URL)
		if s.cfg.Coverage {
			s.covPos.parsed(ev)
		}
	case *debugger.EventScriptFailedToParse:
		s.scripts.parsed(ev.URL)
	case *runtime.EventConsoleAPICalled:
		s.rec.console(ev)
	case *runtime.EventExceptionThrown:
		s.rec.exception(ev.ExceptionDetails)
	case *page.EventJavascriptDialogOpening:
		s.rec.with(func(l *Log) {
			l.Dialogs = append(l.Dialogs, Dialog{Type: string(ev.Type), Message: truncate(ev.Message, 500)})
		})
		go s.dismissDialog(ev.Type == page.DialogTypeBeforeunload)
	case *page.EventFrameAttached:
		s.frames.Store(ev.FrameID, true)
	case *page.EventFileChooserOpened:
		s.rec.with(func(l *Log) {
			l.Dialogs = append(l.Dialogs, Dialog{Type: "file_chooser", Message: string(ev.Mode)})
		})
	case *page.EventFrameNavigated:
		if ev.Frame != nil {
			s.frames.Store(ev.Frame.ID, true)
		}
		if ev.Frame != nil && ev.Frame.ParentID == "" {
			if s.mainID.Load() == nil {
				s.mainID.Store(ev.Frame.ID)
			}
			if s.loaded.Load() && ev.Frame.URL != s.entry {
				s.rec.with(func(l *Log) { l.NavigatedAway = ev.Frame.URL })
			}
		}
	case *network.EventResponseReceived:
		if ev.Type == network.ResourceTypeDocument && ev.Response != nil && ev.Response.URL == s.entry {
			s.rec.with(func(l *Log) { l.MainDocStatus = ev.Response.Status })
		}
	case *network.EventRequestWillBeSent:
		if ev.Request != nil && !strings.HasPrefix(ev.Request.URL, Origin+"/") {
			s.refusals.sent(string(ev.RequestID), ev.Request.URL+ev.Request.URLFragment, strings.ToLower(string(ev.Type)))
		}
	case *network.EventRequestServedFromCache:
		// A library file the memory cache answered: it never reaches the
		// interception, so it is recorded here. This runs before the
		// script's compilation is reported, as the interception's
		// recording does.
		s.servedFromCache(string(ev.RequestID))
	case *network.EventLoadingFinished:
		s.refusals.finished(string(ev.RequestID))
	case *network.EventLoadingFailed:
		// Requests Chromium refuses by itself (mixed content, file://…)
		// never reach the interception; record them too.
		if ev.BlockedReason != "" {
			if u, kind, ok := s.refusals.failed(string(ev.RequestID)); ok {
				s.recordRefusal(u, kind, "refused by Chromium ("+string(ev.BlockedReason)+")")
			}
		} else {
			s.refusals.finished(string(ev.RequestID))
		}
	case *cdplog.EventEntryAdded:
		// The file:// loads Chromium refuses (frames, navigations) leave only
		// this message, whose text names the file.
		if e := ev.Entry; e != nil && strings.HasPrefix(e.Text, "Not allowed to load local resource") {
			u := strings.TrimSpace(strings.TrimPrefix(e.Text, "Not allowed to load local resource:"))
			s.recordRefusal(u, "file", "refused by Chromium (local file)")
		}
	case *network.EventWebTransportCreated:
		// WebTransport runs over HTTP/3 (QUIC), which never reaches the
		// interception (and cannot connect: QUIC is off, no host resolves);
		// its creation is recorded here.
		s.rec.with(func(l *Log) { l.addBlocked(ev.URL, "webtransport", "network access is disabled") })
	case *network.EventWebSocketCreated:
		s.rec.with(func(l *Log) {
			l.Requests.Blocked = append(l.Requests.Blocked, Blocked{URL: ev.URL, Type: "websocket", Reason: "network access is disabled"})
		})
	case *inspector.EventTargetCrashed:
		s.crashOne.Do(func() {
			s.rec.with(func(l *Log) { l.Crashed = true })
			close(s.crashed)
		})
	}
}

// dismissDialog closes a dialog the page opened. A beforeunload dialog is
// answered "leave": dismissed, it would keep the page, and the reload or
// restart the harness makes between probes would never load it again.
func (s *Session) dismissDialog(leave bool) {
	ctx, cancel := context.WithTimeout(s.page.Context(), 5*time.Second)
	defer cancel()
	if _, err := chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: leave}); err != nil {
		s.cfg.Logger.Debug("dismissing a dialog", "err", err)
	}
}

// dynamicImport matches the start of an import() call (or of the text
// "import(" in a comment or a string: a false match only costs a watched
// load).
var dynamicImport = regexp.MustCompile(`(?:^|[^.\w$])import\s*\(`)

// noteDynamicImport sets mayImport when body (a script or a document
// served to the page) could import a module dynamically.
func (s *Session) noteDynamicImport(body []byte) {
	if !s.mayImport.Load() && dynamicImport.Match(body) {
		s.mayImport.Store(true)
	}
}

// scriptTracker counts scripts that were served but not yet compiled: V8
// compiles large scripts and modules off the main thread, so a page whose
// network is quiet may still be about to run code. It counts only while
// the debugger reports compiled scripts (watch): a script served while it
// does not — a dynamic import() after the load event — would be waited for
// until the wait's allowance ran out, in its document's waits and in the
// next document's.
type scriptTracker struct {
	mu       sync.Mutex
	watching bool
	pending  map[string]int
}

// watch starts or stops counting, forgetting what was counted before.
func (t *scriptTracker) watch(on bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.watching, t.pending = on, nil
}

func (t *scriptTracker) served(url string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.watching {
		return
	}
	if t.pending == nil {
		t.pending = map[string]int{}
	}
	t.pending[url]++
}

func (t *scriptTracker) parsed(url string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.pending[url] > 0 {
		t.pending[url]--
		if t.pending[url] == 0 {
			delete(t.pending, url)
		}
	}
}

func (t *scriptTracker) waiting() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.pending)
}

// recordRefusal lists a request Chromium refused by itself, once per URL.
func (s *Session) recordRefusal(u, kind, reason string) {
	u = truncate(u, 500)
	s.rec.with(func(l *Log) {
		for _, b := range l.Requests.Blocked {
			if b.URL == u && strings.HasPrefix(b.Reason, "refused by Chromium") {
				return
			}
		}
		l.addBlocked(u, kind, reason)
	})
}

// refusals remembers the page's requests to other origins until they reach
// the interception, the browser's cache answers them, or they end, so that
// one Chromium refuses by itself, or the cache answers, can be recorded
// with its URL.
type refusals struct {
	mu   sync.Mutex
	urls map[string][2]string // request id → URL, type
	seen map[string]bool      // request ids that reached the interception
}

const maxRefusalIDs = 4096

func (r *refusals) sent(id, url, kind string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.urls == nil {
		r.urls = map[string][2]string{}
	}
	if len(r.urls) < maxRefusalIDs {
		r.urls[id] = [2]string{url, kind}
	}
}

// intercepted notes that request id reached the interception and returns
// its type as Network.requestWillBeSent gave it ("fetch", "eventsource",
// …; "" when that event has not come, or the request is the page's own).
func (r *refusals) intercepted(id string) (sentKind string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.seen == nil {
		r.seen = map[string]bool{}
	}
	sentKind = r.urls[id][1]
	delete(r.urls, id)
	if len(r.seen) < maxRefusalIDs {
		r.seen[id] = true
	}
	return sentKind
}

// cached returns the URL and type of a request the browser's cache
// answered, which is then no refusal.
func (r *refusals) cached(id string) (url, kind string, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	v, found := r.urls[id]
	delete(r.urls, id)
	return v[0], v[1], found
}

// finished forgets a request that ended without being refused, so that
// requests never intercepted (those the cache answers) do not fill the
// table.
func (r *refusals) finished(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.urls, id)
}

// failed returns the URL and type of a request that failed without
// reaching the interception.
func (r *refusals) failed(id string) (url, kind string, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	v, found := r.urls[id]
	delete(r.urls, id)
	if !found || r.seen[id] {
		return "", "", false
	}
	return v[0], v[1], true
}
