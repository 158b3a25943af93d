package agent

import (
	"context"
	"log/slog"
	"time"

	"github.com/worldprobe/worldprobe/internal/browser"
	"github.com/worldprobe/worldprobe/internal/inspect"
	"github.com/worldprobe/worldprobe/internal/resolve"
	"github.com/worldprobe/worldprobe/internal/session"
	"github.com/worldprobe/worldprobe/internal/task"
)

// Runtime runs a page for run_page.
type Runtime interface {
	// Run loads the page at path and steps frames frames. The error is
	// for infrastructure only: a broken page is a report.
	Run(ctx context.Context, path string, frames int) (*inspect.Report, error)
}

// Inspector is the [Runtime] of one task: the page in the real browser,
// with the task's viewport, frame rate, seed and call timeout, as the
// load check of 'worldprobe run' opens it.
type Inspector struct {
	Browser  *browser.Browser
	Resolver *resolve.Resolver
	Task     *task.Task
	// Logger receives the session's diagnostics; nil: slog.Default().
	Logger *slog.Logger
}

// Run inspects the page at path.
func (in *Inspector) Run(ctx context.Context, path string, frames int) (*inspect.Report, error) {
	t := in.Task
	timeout := time.Duration(t.Timeout)
	if timeout <= 0 {
		timeout = session.DefaultCallTimeout
	}
	opts := inspect.Options{Frames: frames, FPS: t.FPS, Seed: t.Seed, Timeout: timeout, GPUTime: session.DefaultGPUTimeout,
		SkipDraw: true, Width: t.Viewport.Width, Height: t.Viewport.Height, Logger: in.Logger}
	return (&inspect.Inspector{Browser: in.Browser, Resolver: in.Resolver, Options: opts}).Inspect(ctx, path)
}
