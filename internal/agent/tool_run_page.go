package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/worldprobe/worldprobe/internal/inspect"
)

// runPage is run_page: index.html in the real runtime, and what went
// wrong there, with a snapshot of the page's state. It never says whether
// the page meets the task.
type runPage struct{}

func (runPage) Name() string { return "run_page" }

func (runPage) Description() string {
	return "Load index.html on its own in a headless browser, on a virtual clock, step it frame by frame and report what happened: " +
		"load errors, uncaught exceptions, console messages, blocked requests, WebGL problems, whether the render loop ran, " +
		"and window.__3D_STATE__ after the last frame. It does not check the page against the task."
}

func (runPage) Schema() json.RawMessage {
	return schema(`"frames":{"type":"integer","minimum":1,"description":"frames to step (default and most: the task's frame budget)"}`)
}

// Caps of run_page's answer.
const (
	maxReported    = 20   // errors, console messages, blocked requests each
	maxReportLine  = 300  // characters of one reported message
	maxStateOutput = 6000 // bytes of the state snapshot
)

func (runPage) Run(ctx context.Context, env *Env, args json.RawMessage) (string, error) {
	var a struct {
		Frames int `json:"frames"`
	}
	if err := decode(args, &a); err != nil {
		return "", err
	}
	switch {
	case env.Runtime == nil:
		return "", errors.New("run_page is not available in this run")
	case a.Frames < 0:
		return "", fmt.Errorf("frames must be at least 1")
	case a.Frames == 0 || a.Frames > env.Frames:
		a.Frames = env.Frames
	}
	page, err := env.Workspace.Page()
	if err != nil {
		return "", &InfraError{Err: err}
	}
	if strings.TrimSpace(string(page)) == "" {
		return "", errors.New("index.html is empty: write the page first")
	}
	// The page runs alone, as it will be judged: other files of the
	// workspace are not served beside it.
	dir, err := os.MkdirTemp("", "worldprobe-run-page-")
	if err != nil {
		return "", &InfraError{Err: fmt.Errorf("run_page: %w", err)}
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, PageFile)
	if err := os.WriteFile(path, page, 0o644); err != nil {
		return "", &InfraError{Err: fmt.Errorf("run_page: %w", err)}
	}
	rep, err := env.Runtime.Run(ctx, path, a.Frames)
	if err != nil {
		return "", &InfraError{Err: fmt.Errorf("run_page: %w", err)}
	}
	return describeReport(rep, a.Frames), nil
}

// describeReport writes what run_page tells the model of a report.
func describeReport(r *inspect.Report, frames int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "stepped %d of %d frames (%.0f virtual ms at %g fps)\n", r.Frames, frames, r.VirtualMs, r.FPS)
	if r.Crash == nil {
		b.WriteString("outcome: ok\n")
	} else {
		fmt.Fprintf(&b, "outcome: crash, %s: %s", r.Crash.Kind, line(r.Crash.Message))
		if r.Crash.Line > 0 {
			fmt.Fprintf(&b, " (line %d, column %d)", r.Crash.Line, r.Crash.Column)
		}
		b.WriteByte('\n')
	}
	if len(r.Errors) > 0 {
		fmt.Fprintf(&b, "uncaught errors (%d):\n", len(r.Errors))
		for i, e := range r.Errors {
			if i == maxReported {
				fmt.Fprintf(&b, "  [%d more]\n", len(r.Errors)-i)
				break
			}
			fmt.Fprintf(&b, "  frame %d, line %d:%d: %s\n", e.Frame, e.Line, e.Column, line(e.Message))
		}
	}
	if n := len(r.Console) + r.ConsoleDropped; n > 0 {
		fmt.Fprintf(&b, "console (%d messages):\n", n)
		for i, m := range r.Console {
			if i == maxReported {
				fmt.Fprintf(&b, "  [%d more]\n", n-i)
				break
			}
			fmt.Fprintf(&b, "  [%s] frame %d: %s\n", m.Level, m.Frame, line(m.Text))
		}
	}
	for _, d := range r.Dialogs {
		fmt.Fprintf(&b, "dialog (dismissed): %s %s\n", d.Type, line(d.Message))
	}
	if len(r.Requests.Blocked) > 0 {
		fmt.Fprintf(&b, "blocked requests (%d):\n", len(r.Requests.Blocked))
		for i, bl := range r.Requests.Blocked {
			if i == maxReported {
				fmt.Fprintf(&b, "  [%d more]\n", len(r.Requests.Blocked)-i)
				break
			}
			fmt.Fprintf(&b, "  %s (%s): %s\n", line(bl.URL), bl.Type, line(bl.Reason))
		}
	}
	for i, s := range r.Requests.Substituted {
		if i == maxReported {
			break
		}
		fmt.Fprintf(&b, "library %s served as %s\n", line(s.URL), s.ServedAs)
	}
	if gl := r.WebGL; gl != nil {
		fmt.Fprintf(&b, "webgl: %s created, %d failed, %d lost, %d restored\n", count(gl.Contexts, "context"), gl.Failed, gl.Lost, gl.Restored)
	}
	if l := r.Loop; l != nil && r.Frames > 0 {
		fmt.Fprintf(&b, "render loop: %d of %d frames ran an animation-frame callback, %d drew with WebGL (%s)\n",
			l.FramesWithCallbacks, r.Frames, l.FramesWithDraws, count(l.Draws, "draw call"))
	}
	if sc := r.Scene; sc != nil && sc.ThreeRevision != "" {
		fmt.Fprintf(&b, "three.js r%s: %s, %s, %s (%d visible), %s\n",
			sc.ThreeRevision, count(sc.Scenes, "scene"), count(sc.Objects, "object"), count(sc.Meshes, "mesh"), sc.VisibleMeshes, count(sc.Lights, "light"))
	}
	if c := r.Canvas; c != nil {
		blank := "not blank"
		if c.Blank {
			blank = "blank"
		}
		fmt.Fprintf(&b, "canvas: %dx%d pixels, %s\n", c.Width, c.Height, blank)
	}
	if len(r.Events) > 0 {
		ev, _ := json.Marshal(r.Events)
		fmt.Fprintf(&b, "runtime events: %s\n", capOutput(string(ev), maxReportLine))
	}
	state := strings.TrimSpace(string(r.State))
	switch {
	case r.Crash != nil && state == "":
	case state == "" || state == "null":
		b.WriteString("window.__3D_STATE__ is not set\n")
	default:
		fmt.Fprintf(&b, "window.__3D_STATE__ after the last frame:\n%s\n", capOutput(state, maxStateOutput))
	}
	if is := r.StateIssues; is != nil {
		if len(is.NonFinite) > 0 {
			fmt.Fprintf(&b, "state values that are not finite numbers: %s\n", strings.Join(is.NonFinite, ", "))
		}
		if len(is.Cycles) > 0 {
			fmt.Fprintf(&b, "state paths that refer back to themselves: %s\n", strings.Join(is.Cycles, ", "))
		}
		for _, e := range is.Errors {
			fmt.Fprintf(&b, "state getter %s threw: %s\n", e.Path, line(e.Message))
		}
		if is.Truncated {
			b.WriteString("the state is too large and was cut\n")
		}
	}
	return b.String()
}

// line puts a message on one line, at most maxReportLine characters.
func line(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > maxReportLine {
		s = string(r[:maxReportLine]) + " […]"
	}
	return s
}

// count writes n and the noun, plural unless n is 1: "1 mesh", "2 meshes".
func count(n int, noun string) string {
	switch {
	case n == 1:
		return "1 " + noun
	case strings.HasSuffix(noun, "sh"):
		return fmt.Sprintf("%d %ses", n, noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
