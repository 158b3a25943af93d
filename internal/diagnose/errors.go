// Package diagnose checks a page for a repair round in the real runtime,
// and says what goes back to the model (package repair): the errors it
// raises ([Errors]: the static parse of its scripts, then a run in
// Chromium for the task's frame budget) or the messages of the contract
// checks it fails ([Feedback]). Nothing else of the run — no render, no
// score, no line of the contract — is in what it returns.
package diagnose

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/worldprobe/worldprobe/internal/browser"
	"github.com/worldprobe/worldprobe/internal/inspect"
	"github.com/worldprobe/worldprobe/internal/repair"
	"github.com/worldprobe/worldprobe/internal/resolve"
	"github.com/worldprobe/worldprobe/internal/result"
	"github.com/worldprobe/worldprobe/internal/session"
	"github.com/worldprobe/worldprobe/internal/task"
	"github.com/worldprobe/worldprobe/internal/trial"
)

// Kinds of the findings a run in the browser gives.
const (
	KindException    = "uncaught exception"
	KindConsoleError = "console error"
	KindWebGL        = "WebGL failure"
	KindLoadFailure  = "load failure"
	KindHang         = "hang"
	KindPageCrashed  = "page crashed"
)

// Errors finds the errors a page raises: its scripts parsed
// ([repair.ScriptErrors]), then the page loaded in the browser and run for
// the task's frame budget at its frame rate, seed and viewport, on the
// virtual clock. It implements [repair.Diagnoser] for the errors mode.
type Errors struct {
	Browser  *browser.Browser
	Resolver *resolve.Resolver
	Logger   *slog.Logger
	// Machine tells the machine's trouble from the page's, as for a
	// trial (trial.RetryUnderLoad): a page that misses its deadline while
	// the load is above trial.OverloadPerCore is run again with the
	// deadline doubled, up to trial.DefaultRetries times; when it still
	// misses it, the hang is the page's only if a blank page runs
	// promptly, else Diagnose returns ErrOverloaded and nothing goes to
	// the model. The zero value reads /proc/loadavg and probes the browser.
	Machine trial.Machine
}

// ErrOverloaded: the page missed its deadline on every attempt while the
// machine was overloaded, and a blank page could not run promptly either
// (machine_overloaded): the machine's fault, which is never reported to
// the model as the page's error.
var ErrOverloaded = errors.New("machine_overloaded: the machine was too overloaded to check the page")

// Diagnose implements [repair.Diagnoser]. The error is for
// infrastructure problems only: ErrOverloaded among them.
func (e *Errors) Diagnose(ctx context.Context, t *task.Task, page string) (*repair.Findings, error) {
	static := repair.ScriptErrors(page)
	dir, err := os.MkdirTemp("", "worldprobe-check-")
	if err != nil {
		return nil, fmt.Errorf("making a folder for the page: %w", err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, task.PageFile)
	if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
		return nil, fmt.Errorf("writing the page: %w", err)
	}
	rep, _, err := trial.RetryUnderLoad(ctx, e.Machine, e.Browser, e.Resolver, time.Duration(t.Timeout), ErrOverloaded,
		func(timeout time.Duration) (*inspect.Report, bool, error) {
			in := &inspect.Inspector{Browser: e.Browser, Resolver: e.Resolver, Options: inspect.Options{
				Frames: t.Frames, FPS: t.FPS, Seed: t.Seed, Timeout: timeout, GPUTime: session.DefaultGPUTimeout,
				SkipDraw: true, Width: t.Viewport.Width, Height: t.Viewport.Height, Logger: e.Logger}}
			rep, err := in.Inspect(ctx, path)
			if err != nil {
				return nil, false, fmt.Errorf("running the page of %s: %w", t.ID, err)
			}
			return rep, rep.Crash != nil && rep.Crash.Kind == result.CrashTimeout, nil
		}, nil)
	if err != nil {
		return nil, err
	}
	return &repair.Findings{
		Checked: fmt.Sprintf("The page's scripts were parsed, then the page was loaded in Chromium (with WebGL) and run for %d frames at %g frames per second.", t.Frames, t.FPS),
		Items:   append(static, FromReport(rep, static)...),
	}, nil
}

// FromReport is what a run in the browser found that goes back to the
// model: uncaught exceptions, console errors (console.error and failed
// console.assert), WebGL failures, load failures (the page did not load, a
// request it made was refused) and a hang or crash of the page — each
// kept once, with how many times it happened and when first. An exception
// that repeats a syntax error of static (a SyntaxError at the line the
// parse found) is left out. Nothing else of the report is: not the
// render, the state or the scene.
func FromReport(rep *inspect.Report, static []repair.Finding) []repair.Finding {
	var out []repair.Finding
	index := map[string]int{}
	add := func(key string, f repair.Finding) {
		if i, ok := index[key]; ok {
			out[i].Count++
			return
		}
		f.Count = 1
		index[key] = len(out)
		out = append(out, f)
	}
	parsed := map[int]bool{}
	for _, s := range static {
		parsed[s.Line] = true
	}
	if c := rep.Crash; c != nil {
		switch c.Kind {
		case result.CrashLoadFailed:
			add("crash", repair.Finding{Kind: KindLoadFailure, Text: "the page did not load: " + c.Message})
		case result.CrashNoWebGL, result.CrashWebGLContextLost:
			add("crash", repair.Finding{Kind: KindWebGL, Text: c.Message})
		case result.CrashTimeout:
			add("crash", repair.Finding{Kind: KindHang, Text: c.Message})
		case result.CrashPageCrashed:
			text := "the page's renderer process crashed: " + c.Message
			if c.Cause == result.CrashCauseMemory {
				text = "the page was ended for using more memory than it may: " + c.Message
			}
			add("crash", repair.Finding{Kind: KindPageCrashed, Text: text})
		}
	}
	for _, e := range rep.Errors {
		where := ""
		if e.URL != "" && !strings.HasPrefix(e.URL, session.Origin+"/"+task.PageFile) {
			where = e.URL
		}
		if where == "" && strings.Contains(e.Message, "SyntaxError") && parsed[e.Line] {
			continue
		}
		add(fmt.Sprintf("error\x00%s\x00%s\x00%d\x00%d", e.Message, where, e.Line, e.Column),
			repair.Finding{Kind: KindException, Text: e.Message, Line: e.Line, Column: e.Column, Where: where, When: when(e.Frame),
				AtLeast: len(rep.Errors) >= session.MaxErrors})
	}
	for _, m := range rep.Console {
		if m.Level != "error" && m.Level != "assert" {
			continue
		}
		text := m.Text
		if m.Level == "assert" {
			text = "console.assert failed: " + text
		}
		add("console\x00"+text, repair.Finding{Kind: KindConsoleError, Text: text, When: when(m.Frame), AtLeast: rep.ConsoleDropped > 0})
	}
	if gl := rep.WebGL; gl != nil && (rep.Crash == nil || rep.Crash.Kind != result.CrashNoWebGL && rep.Crash.Kind != result.CrashWebGLContextLost) {
		if gl.Failed > 0 {
			add("webgl-failed", repair.Finding{Kind: KindWebGL, Text: fmt.Sprintf("%d attempt(s) to create a WebGL context failed", gl.Failed)})
		}
		if gl.Lost > gl.Restored {
			add("webgl-lost", repair.Finding{Kind: KindWebGL, Text: "the page's WebGL context was lost and not restored"})
		}
	}
	for _, b := range rep.Requests.Blocked {
		add("blocked\x00"+b.URL+"\x00"+b.Reason, repair.Finding{Kind: KindLoadFailure, Text: fmt.Sprintf("the %s request for %s was refused: %s", b.Type, b.URL, b.Reason)})
	}
	return out
}

// when says when something happened: while the page loaded (before the
// first frame was stepped) or while it ran (the runtime knows the frame
// only to the chunk of frames stepped at once, so no frame is named).
func when(frame int) string {
	if frame <= 0 {
		return "while the page loaded"
	}
	return "while the page ran"
}
