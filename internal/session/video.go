package session

import (
	"context"
	"errors"
	"fmt"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/worldprobe/worldprobe/internal/target"
)

// Recorder records a session's frames while it is set (SetRecorder): every
// Every-th frame Step steps is drawn and its canvas captured, as a pixel
// check's would be, and handed to Frame. Frames between are stepped as
// they would be without a recorder.
//
// Recording changes no JavaScript: the page runs the same callbacks on the
// same virtual clock, so its state and verdicts are those of a run without
// it. It costs a drawn frame, a wait for the GPU (Present) and a
// screenshot per recorded frame (docs/PERFORMANCE.md).
type Recorder struct {
	// Every records every Every-th stepped frame, counted from
	// SetRecorder (1, or less: every frame). Frame may raise it; the
	// next recorded frame is then the next multiple of the new value.
	Every int
	// Frame receives each recorded frame. An error stops the step that
	// recorded it and is returned from Step, as the page's: a recorder
	// that must not change verdicts keeps its own errors.
	Frame func(ctx context.Context, f RecordedFrame) error
}

// RecordedFrame is one frame a Recorder captured.
type RecordedFrame struct {
	// N counts the frames stepped since the recorder was set, this one
	// included (the first frame stepped is 1).
	N int
	// Frame is the page's frame counter (it restarts at a reload).
	Frame int
	// PNG is the canvas as the compositor showed it (the viewport when
	// the page has no canvas).
	PNG []byte
	// Err is set, and PNG nil, when the capture failed for a reason that
	// is not the page's (a crashed or hung page fails the Step instead).
	Err error
}

// videoState is a session's recorder and its count of stepped frames.
type videoState struct {
	rec     *Recorder
	stepped int
	active  bool // Step is stepping for the recorder
}

// SetRecorder starts recording with r (nil stops) and restarts the count
// of stepped frames.
func (s *Session) SetRecorder(r *Recorder) {
	s.video = videoState{rec: r}
}

// stepRecorded steps n frames for the recorder: in runs that end on each
// frame to record, drawn and captured, the last run drawn when draw asks
// it. The result sums the runs'.
func (s *Session) stepRecorded(ctx context.Context, n int, draw bool) (StepResult, error) {
	v := &s.video
	v.active = true
	defer func() { v.active = false }()
	var out StepResult
	for done := 0; done < n; {
		every := max(1, v.rec.Every)
		next := every - v.stepped%every // frames up to the next one recorded
		k := min(next, n-done)
		record := k == next
		r, err := s.Step(ctx, k, record || (draw && done+k == n))
		out.Frames += r.Frames
		out.Callbacks = append(out.Callbacks, r.Callbacks...)
		out.Draws = append(out.Draws, r.Draws...)
		out.Clears = append(out.Clears, r.Clears...)
		if r.Frames > 0 {
			out.Frame, out.VirtualMs = r.Frame, r.VirtualMs
		}
		v.stepped += r.Frames
		if err != nil {
			return out, err
		}
		done += k
		if !record {
			continue
		}
		png, err := s.captureFrame(ctx)
		if err != nil && (errors.Is(err, ErrCrashed) || errors.Is(err, ErrUnresponsive) || ctx.Err() != nil) {
			return out, fmt.Errorf("recording frame %d: %w", s.Frame(), err)
		}
		if err != nil {
			err = fmt.Errorf("recording frame %d: %w", s.Frame(), err)
		}
		if err := v.rec.Frame(ctx, RecordedFrame{N: v.stepped, Frame: s.Frame(), PNG: png, Err: err}); err != nil {
			return out, err
		}
	}
	return out, nil
}

// RecordWidth is the widest frame a Recorder captures, in pixels: a wider
// canvas is captured scaled down by the compositor (a 1280×800 canvas at
// 640×400), which costs about a third of a full-size capture.
const RecordWidth = 640

// captureFrame screenshots the page's canvas (the viewport when it has
// none) as the frame just drawn left it, at most RecordWidth pixels wide,
// PNG encoded for speed rather than size. The screenshot waits for that
// frame itself (see CanvasPixels).
func (s *Session) captureFrame(ctx context.Context) ([]byte, error) {
	clip := page.Viewport{Width: float64(s.cfg.Width), Height: float64(s.cfg.Height)}
	r, err := s.captureRect(ctx)
	switch {
	case err == nil && r.Width >= 1 && r.Height >= 1:
		clip = page.Viewport{X: r.Left, Y: r.Top, Width: r.Width, Height: r.Height}
	case err != nil && !errors.Is(err, target.ErrNotFound):
		return nil, err
	}
	clip.Scale = min(1, RecordWidth/clip.Width)
	speed := true
	cctx, cancel := s.callCtx(ctx, s.cfg.GPUTimeout)
	defer cancel()
	res, err := chromedp.Call(cctx, page.CaptureScreenshot, page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatPng, OptimizeForSpeed: &speed, Clip: &clip})
	if err != nil {
		if cerr := s.classify(ctx, cctx, err); cerr != nil {
			return nil, cerr
		}
		return nil, fmt.Errorf("taking a screenshot: %w", err)
	}
	return res.Data, nil
}
