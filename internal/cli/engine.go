package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/worldprobe/worldprobe/internal/browser"
	"github.com/worldprobe/worldprobe/internal/resolve"
)

// EnvWeb names the environment variable that points at the vendored
// node_modules folder.
const EnvWeb = "WORLDPROBE_WEB"

// engineFlags are the flags of every command that runs pages.
type engineFlags struct {
	Chromium string
	Jobs     int
	Web      string
	// UnsafeNoSandbox runs Chromium without its sandbox (never the default).
	UnsafeNoSandbox bool
	// PageMemoryMiB caps one page's renderer; 0 means no cap.
	PageMemoryMiB int
}

func (f *engineFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.Chromium, "chromium", "", "Chromium executable (default $"+browser.EnvChromium+" or /usr/bin/chromium)")
	fs.IntVar(&f.Jobs, "jobs", browser.DefaultJobs(), "pages run at once, one browser context each (by default the cores + 1, fewer when memory is short)")
	fs.StringVar(&f.Web, "web", "", "vendored node_modules folder (default $"+EnvWeb+", ./web/node_modules, or next to the binary)")
	fs.IntVar(&f.PageMemoryMiB, "page-memory", int(browser.DefaultPageMemory>>20),
		"MiB one page's renderer (heaps, ArrayBuffers, workers) may hold; past it the page ends as page_crashed, cause memory (0: no cap)")
	fs.BoolVar(&f.UnsafeNoSandbox, "unsafe-no-sandbox", false,
		"run Chromium WITHOUT its sandbox, when it cannot start on this machine (candidate pages are then unconfined; every report says so)")
}

// registerTaskFlag registers --task, the globs over task ids that keep a
// subset of the tasks given (task.Select); which names those tasks in the
// help ("tasks", "--suite tasks").
func registerTaskFlag(fs *pflag.FlagSet, patterns *[]string, which string) {
	fs.StringSliceVar(patterns, "task", nil, "only the "+which+" whose ids match these globs, e.g. 'simulation/*' or '*/pendulum' (comma-separated or repeated)")
}

// The sizes --viewport accepts, in CSS pixels.
const (
	minViewport = 16
	maxViewport = 8192
)

// viewportFlag is --viewport, for the commands that open pages at a size
// of their choosing (inspect, bench). Commands that judge tasks have no
// such flag: every task opens its pages at the viewport of its task.yaml.
type viewportFlag struct {
	Viewport string
}

func (f *viewportFlag) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.Viewport, "viewport", "1280x800",
		fmt.Sprintf("viewport WIDTHxHEIGHT in CSS pixels (device scale 1), each %d to %d", minViewport, maxViewport))
}

// size parses --viewport; a usage error says whether the value is no size
// at all or a size out of range.
func (f *viewportFlag) size() (int, int, error) {
	w, h, ok := strings.Cut(strings.ToLower(f.Viewport), "x")
	wi, err1 := strconv.Atoi(w)
	hi, err2 := strconv.Atoi(h)
	switch {
	case !ok || err1 != nil || err2 != nil:
		return 0, 0, usageErr("--viewport %q: want WIDTHxHEIGHT, e.g. 1280x800", f.Viewport)
	case wi < minViewport || hi < minViewport:
		return 0, 0, usageErr("--viewport %q: too small; width and height must be at least %d CSS pixels", f.Viewport, minViewport)
	case wi > maxViewport || hi > maxViewport:
		return 0, 0, usageErr("--viewport %q: too large; width and height must be at most %d CSS pixels", f.Viewport, maxViewport)
	}
	return wi, hi, nil
}

// nodeModules finds the vendored packages.
func (f *engineFlags) nodeModules(io IO) (string, error) {
	cands := []string{f.Web, io.Getenv(EnvWeb), filepath.Join("web", "node_modules")}
	if exe, err := os.Executable(); err == nil {
		cands = append(cands, filepath.Join(filepath.Dir(exe), "..", "web", "node_modules"))
	}
	for i, c := range cands {
		if c == "" {
			continue
		}
		if st, err := os.Stat(c); err == nil && st.IsDir() {
			return filepath.Abs(c)
		}
		if i < 2 {
			return "", fmt.Errorf("vendored packages folder %q not found", c)
		}
	}
	return "", errors.New("vendored packages not found: run 'make setup' (npm ci in web/) or pass --web")
}

// browserOptions are the browser's launch options from the flags, or a
// usage error naming the bad flag.
func (f *engineFlags) browserOptions(width, height int) (browser.Options, error) {
	if f.Jobs < 1 {
		return browser.Options{}, usageErr("--jobs must be at least 1")
	}
	if f.PageMemoryMiB < 0 {
		return browser.Options{}, usageErr("--page-memory must be 0 (no cap) or a number of MiB")
	}
	perPage := int64(f.PageMemoryMiB) << 20
	if perPage == 0 {
		perPage = -1
	}
	return browser.Options{ExecPath: f.Chromium, Jobs: f.Jobs, Width: width, Height: height,
		UnsafeNoSandbox: f.UnsafeNoSandbox, Memory: browser.MemoryLimits{PerPage: perPage}}, nil
}

// start launches the browser and loads the resolver. width and height
// size the browser's window (0: the browser's default); each page sets its
// own viewport whatever the window.
func (f *engineFlags) start(ctx context.Context, io IO, width, height int) (*browser.Browser, *resolve.Resolver, error) {
	opts, err := f.browserOptions(width, height)
	if err != nil {
		return nil, nil, err
	}
	nm, err := f.nodeModules(io)
	if err != nil {
		return nil, nil, runtimeErr(err)
	}
	res, err := resolve.New(nm)
	if err != nil {
		return nil, nil, runtimeErr(fmt.Errorf("loading vendored packages: %w", err))
	}
	b, err := browser.Launch(ctx, opts)
	if err != nil {
		return nil, nil, runtimeErr(err)
	}
	if sb := b.Sandbox(); !sb.On {
		fmt.Fprintf(io.ErrOut, "WARNING: Chromium runs without its sandbox (--unsafe-no-sandbox): a hostile page is confined only by the network rules, as %s\n", sb.User)
	}
	return b, res, nil
}
