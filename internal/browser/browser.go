// Package browser owns the headless Chromium process: discovery of the
// executable, the sandboxing flags that keep every byte on this machine, one
// browser process shared by all pages, and a pool of isolated browser contexts
// (one per page) sized by the number of jobs.
//
// Ownership runs one way: Browser → Page. Closing a Page disposes its browser
// context (and so its renderer process); closing the Browser ends the process.
// On Linux the process gets SIGKILL when worldprobe dies, so no Chromium
// outlives it.
package browser

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"
)

// EnvChromium names the environment variable that overrides the Chromium
// executable.
const EnvChromium = "WORLDPROBE_CHROMIUM"

// DefaultChromium is where Debian's chromium package puts the executable.
const DefaultChromium = "/usr/bin/chromium"

// Options configure a Browser.
type Options struct {
	// ExecPath is the Chromium executable; empty means FindChromium("").
	ExecPath string
	// Jobs is the number of pages that may be open at once (at least 1).
	Jobs int
	// Width and Height are the window size in CSS pixels.
	Width, Height int
	// Output receives Chromium's own stderr; nil discards it.
	Output io.Writer
	// Logger receives diagnostics; nil uses slog.Default().
	Logger *slog.Logger
	// ExtraFlags are added to (or override) Flags; used by benchmarks,
	// e.g. to lift the frame-rate limit of a plain-Chromium baseline.
	ExtraFlags map[string]any
	// UnsafeNoSandbox starts Chromium with --no-sandbox. Never the default:
	// without the sandbox a renderer exploit in a candidate page runs as
	// the browser's user with its filesystem. Reports say when it was set.
	UnsafeNoSandbox bool
	// Memory caps the memory of the browser's processes (defaults:
	// MemoryLimits).
	Memory MemoryLimits
	// BrowserUser is the system user the browser runs as when worldprobe
	// runs as root; empty means $WORLDPROBE_BROWSER_USER, else
	// DefaultBrowserUser.
	BrowserUser string
	// TabOpenTimeout is how long opening a tab may take before the
	// browser is deemed stuck (ErrBrowserStuck); 0 means
	// DefaultTabOpenTimeout.
	TabOpenTimeout time.Duration
}

// DefaultTabOpenTimeout bounds the opening of a tab: a few seconds on a
// loaded machine, so minutes mean a browser that no longer answers.
const DefaultTabOpenTimeout = 3 * time.Minute

// ErrBrowserStuck: the browser did not open a tab in time. Infrastructure
// trouble, never a page's fault (no page is loaded yet).
var ErrBrowserStuck = errors.New("the browser did not answer")

// Browser is one running Chromium process.
type Browser struct {
	opts        Options
	allocCancel context.CancelFunc
	ctx         context.Context
	cancel      context.CancelFunc
	slots       chan struct{}
	version     string
	userDir     string
	sandbox     Sandbox
	memory      *memoryWatch
	ledger      *ledger // nil unless EnvCPULedger is set
	watchStop   context.CancelFunc
	closeOnce   sync.Once
	closeErr    error
}

// FindChromium resolves the Chromium executable: flag if set, else
// $WORLDPROBE_CHROMIUM, else /usr/bin/chromium, else chromium or
// chromium-browser on PATH.
func FindChromium(flag string) (string, error) {
	for _, c := range []string{flag, os.Getenv(EnvChromium)} {
		if c == "" {
			continue
		}
		p, err := exec.LookPath(c)
		if err != nil {
			return "", fmt.Errorf("chromium executable %q: %w", c, err)
		}
		return p, nil
	}
	if _, err := os.Stat(DefaultChromium); err == nil {
		return DefaultChromium, nil
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("no Chromium found: install Debian's chromium (make setup), or set --chromium or " + EnvChromium)
}

// Flags returns the command-line flags worldprobe starts Chromium with, as
// name → value (true for a bare switch). They give WebGL through SwiftShader
// without a GPU, and close every path out of the machine: all host names
// resolve to nothing, all traffic that is not intercepted goes to a dead
// loopback proxy, and WebRTC may not use UDP.
//
// The compositor draws in software: on SwiftShader, GPU compositing made
// the GPU process the busiest one (0.7 CPU-seconds per page load, more than
// the renderer), while WebGL itself still runs in the GPU process and
// canvas pixels come out the same (docs/PERFORMANCE.md).
func Flags(width, height int) map[string]any {
	return map[string]any{
		"headless":                               true,
		"no-sandbox":                             false, // never passed: chromedp adds it as root unless told false
		"use-angle":                              "swiftshader",
		"enable-unsafe-swiftshader":              true,
		"ignore-gpu-blocklist":                   true,
		"disable-gpu-compositing":                true,
		"host-resolver-rules":                    "MAP * ~NOTFOUND",
		"proxy-server":                           "http://127.0.0.1:9",
		"proxy-bypass-list":                      "<-loopback>",
		"disable-quic":                           true,
		"disable-background-networking":          true,
		"disable-component-update":               true,
		"disable-domain-reliability":             true,
		"disable-sync":                           true,
		"no-pings":                               true,
		"no-first-run":                           true,
		"force-webrtc-ip-handling-policy":        "disable_non_proxied_udp",
		"webrtc-ip-handling-policy":              "disable_non_proxied_udp",
		"lang":                                   "en-US",
		"force-device-scale-factor":              "1",
		"window-size":                            fmt.Sprintf("%d,%d", width, height),
		"mute-audio":                             true,
		"hide-scrollbars":                        true,
		"autoplay-policy":                        "no-user-gesture-required",
		"disable-renderer-backgrounding":         true,
		"disable-background-timer-throttling":    true,
		"disable-backgrounding-occluded-windows": true,
		"disable-hang-monitor":                   true,
		"disable-dev-shm-usage":                  true,
		"disable-extensions":                     true,
		"disable-breakpad":                       true,
		"disable-features":                       "Translate,MediaRouter,OptimizationHints,DialMediaRouteProvider,AutofillServerCommunication,IsolateSandboxedIframes," + noOmniboxPopup + "," + noDeferAfterInput,
		"enable-features":                        "NetworkServiceSandbox",
		"metrics-recording-only":                 true,
		"password-store":                         "basic",
		"use-mock-keychain":                      true,
		"enable-automation":                      true,
		"js-flags":                               "--max-old-space-size=1024",
	}
}

// noOmniboxPopup switches off the address bar's WebUI popups. Headless
// Chromium still builds a browser window for every browser context, and
// each window preloaded chrome://omnibox-popup.top-chrome/ (and its
// omnibox_popup_aim.html) in a renderer process of its own: about 1.7
// CPU-seconds per context — per trial, since every trial's tab has its
// own context — for a popup nobody opens (docs/PERFORMANCE.md, "A trial's
// CPU, all of it"). Pages never see it; disabling it changes no page's
// behaviour. Both WebUIOmniboxPopup and WebUIOmniboxAimPopup must be off
// for the renderer to go; WebUIOmniboxFullPopup is the third variant.
const noOmniboxPopup = "WebUIOmniboxPopup,WebUIOmniboxAimPopup,WebUIOmniboxFullPopup"

// noDeferAfterInput switches off Blink's DeferRendererTasksAfterInput.
// After a discrete input event (a click, a key) that scheduler policy holds
// back the page's other tasks — the runtime's MessageChannel turn between
// stepped frames among them — until the next real frame is presented, up
// to one vsync (16.7 ms) of idle waiting. The harness steps a frame after
// nearly every input, so a trial spent about a sixth of its wall time
// there (docs/PERFORMANCE.md, "The idle quarter"). It is a latency policy
// for people at a screen: tasks still run in the order they were posted,
// only sooner, and the page's clock is virtual either way.
const noDeferAfterInput = "DeferRendererTasksAfterInput"

// Launch starts Chromium and waits until it answers.
func Launch(ctx context.Context, opts Options) (*Browser, error) {
	if opts.Jobs < 1 {
		opts.Jobs = 1
	}
	if opts.Width <= 0 || opts.Height <= 0 {
		opts.Width, opts.Height = 1280, 800
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	path, err := FindChromium(opts.ExecPath)
	if err != nil {
		return nil, err
	}
	sandbox, err := planSandbox(opts.BrowserUser, opts.UnsafeNoSandbox)
	if err != nil {
		return nil, err
	}
	userDir, err := os.MkdirTemp(sandbox.profileBase(), "worldprobe-chromium-")
	if err != nil {
		return nil, fmt.Errorf("creating a Chromium profile folder: %w", err)
	}
	home := filepath.Join(userDir, "home")
	if err := os.MkdirAll(tmpDir(home), 0o700); err != nil {
		os.RemoveAll(userDir)
		return nil, fmt.Errorf("creating the browser's home folder: %w", err)
	}
	if err := sandbox.handOver(userDir); err != nil {
		os.RemoveAll(userDir)
		return nil, err
	}
	allocOpts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.UserDataDir(userDir),
		chromedp.NoInheritEnv,
		chromedp.Env(Environment(home)...),
		chromedp.ModifyCmdFunc(sandbox.command),
	}
	flags := Flags(opts.Width, opts.Height)
	for name, value := range opts.ExtraFlags {
		flags[name] = value
	}
	if !sandbox.On {
		flags["no-sandbox"] = true
		opts.Logger.Warn("Chromium runs WITHOUT its sandbox (--unsafe-no-sandbox): candidate pages are not confined", "user", sandbox.User)
	}
	for name, value := range flags {
		allocOpts = append(allocOpts, chromedp.Flag(name, value))
	}
	if opts.Output != nil {
		allocOpts = append(allocOpts, chromedp.CombinedOutput(opts.Output))
	}
	// The browser lives until Close, not until ctx ends: ctx only bounds the start.
	allocCtx, allocCancel := chromedp.NewExecAllocator(context.Background(), allocOpts...)
	bctx, bcancel := chromedp.NewContext(allocCtx)
	b := &Browser{opts: opts, allocCancel: allocCancel, ctx: bctx, cancel: bcancel,
		slots: make(chan struct{}, opts.Jobs), userDir: userDir, sandbox: sandbox}

	// The browser lives as long as the context of its first run: bctx.
	unhook := context.AfterFunc(ctx, bcancel)
	var product string
	err = chromedp.Do(bctx)
	unhook()
	if err == nil {
		var v browser.GetVersionResult
		v, err = chromedp.CallBrowser(bctx, browser.GetVersion, cdp.Empty{})
		product = v.Product
	}
	if err == nil {
		err = denyDownloads(bctx, "")
	}
	if err != nil {
		_ = b.Close()
		return nil, explainStartFailure(fmt.Errorf("starting Chromium %s: %w", path, err), sandbox)
	}
	b.version = product
	limits := opts.Memory.resolved(opts.Jobs)
	b.memory = &memoryWatch{limits: limits, root: b.PID(), logger: opts.Logger}
	var watchCtx context.Context
	watchCtx, b.watchStop = context.WithCancel(context.Background())
	go b.memory.run(watchCtx)
	opts.Logger.Debug("memory caps", "per_page", limits.PerPage, "total", limits.Total)
	opts.Logger.Debug("chromium started", "path", path, "version", product, "jobs", opts.Jobs, "sandbox", sandbox.On, "user", sandbox.User)
	b.ledger = newLedger(b)
	return b, nil
}

// Environment is the whole environment Chromium starts with: a fixed PATH,
// a home folder of its own inside the profile (so nothing the browser
// writes under ~ lands in the user's) with its $TMPDIR in it (so no
// scratch file outlives the browser in the machine's /tmp), UTC, US
// English, and the font configuration variables when set. Nothing else of worldprobe's
// environment reaches the browser: no API key, token or proxy setting.
func Environment(home string) []string {
	env := []string{
		"PATH=/usr/local/bin:/usr/bin:/bin",
		"HOME=" + home,
		// Chromium's process-singleton socket and other scratch files go
		// to $TMPDIR: inside the profile folder, they go when it goes.
		"TMPDIR=" + tmpDir(home),
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"TZ=UTC",
		"LANG=en_US.UTF-8",
		"LANGUAGE=en_US",
	}
	for _, name := range []string{"FONTCONFIG_FILE", "FONTCONFIG_PATH"} {
		if v, ok := os.LookupEnv(name); ok {
			env = append(env, name+"="+v)
		}
	}
	return env
}

// tmpDir is the browser's $TMPDIR inside its home folder.
func tmpDir(home string) string { return filepath.Join(home, "tmp") }

// denyDownloads makes the browser refuse every download in the browser
// context id ("" for the default one): a page's <a download> or a
// navigation to an attachment writes nothing anywhere.
func denyDownloads(ctx context.Context, id cdp.BrowserContextID) error {
	events := true // so that attempts are reported (Page.OnDownload)
	_, err := chromedp.CallBrowser(ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
		Behavior: browser.SetDownloadBehaviorBehaviorDeny, BrowserContextID: id, EventsEnabled: &events,
	})
	if err != nil {
		return fmt.Errorf("denying downloads: %w", err)
	}
	return nil
}

// Version is Chromium's product string, e.g. "Chrome/156.0.8078.108".
func (b *Browser) Version() string { return strings.TrimSpace(b.version) }

// PID is the process ID of the Chromium browser process (0 if unknown).
func (b *Browser) PID() int {
	if c := chromedp.FromContext(b.ctx); c != nil && c.Browser != nil {
		if p := c.Browser.Process(); p != nil {
			return p.Pid
		}
	}
	return 0
}

// ProfileDir is the browser's profile folder, removed by Close; the
// browser's home folder (HOME) is its "home" subfolder.
func (b *Browser) ProfileDir() string { return b.userDir }

// Sandbox says how the browser's processes are confined.
func (b *Browser) Sandbox() Sandbox { return b.sandbox }

// MemoryLimits are the caps the browser's watchdog enforces.
func (b *Browser) MemoryLimits() MemoryLimits { return b.memory.limits }

// BlobBudget is how many bytes of live Blobs each of the browser's pages
// may hold with Jobs pages at once (0: no budget; MemoryLimits.BlobBudget).
func (b *Browser) BlobBudget() int64 {
	if b.memory == nil {
		return 0
	}
	return b.memory.limits.BlobBudget(b.Jobs())
}

// Jobs is the number of pages that may be open at once.
func (b *Browser) Jobs() int { return cap(b.slots) }

// Close ends the Chromium process and removes its profile folder.
func (b *Browser) Close() error {
	b.closeOnce.Do(func() {
		if b.watchStop != nil {
			b.watchStop()
		}
		b.cancel()
		b.allocCancel()
		if err := os.RemoveAll(b.userDir); err != nil {
			b.closeErr = fmt.Errorf("removing the Chromium profile: %w", err)
		}
	})
	return b.closeErr
}
