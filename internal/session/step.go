package session

import (
	"context"
	"fmt"
	"time"
)

// chunkFrames is how many frames one call into the page steps at most; the
// network is allowed to settle between chunks.
const chunkFrames = 60

// StepResult summarises stepped frames.
type StepResult struct {
	// Frames is the number of frames stepped by this call.
	Frames int `json:"frames"`
	// Frame is the page's frame counter after the call.
	Frame int `json:"frame"`
	// VirtualMs is the page's clock after the call.
	VirtualMs float64 `json:"virtual_ms"`
	// Callbacks and Draws are per stepped frame: animation-frame callbacks run
	// and WebGL draw calls issued (skipped draws included).
	Callbacks []int `json:"callbacks"`
	Draws     []int `json:"draws"`
}

type stepReply struct {
	Frame     int      `json:"frame"`
	VirtualMs float64  `json:"virtualMs"`
	PerFrame  [][2]int `json:"perFrame"`
}

// Step advances the page by n frames of 1000/FPS virtual ms each, running
// due timers and animation-frame callbacks. When draw is true the last frame
// is drawn even if draw skipping is on (the frame is about to be observed).
//
// Frames go to the page in chunks sized so that one chunk takes about a
// quarter of the call timeout at the page's measured pace: a slow but live
// page is never taken for a hung one, and a hung page is caught within one
// call timeout. The drawn frame is its own call, with the GPU allowance
// added, since drawing may wait on the GPU. On ErrUnresponsive or ErrCrashed
// the result holds the frames completed.
func (s *Session) Step(ctx context.Context, n int, draw bool) (StepResult, error) {
	var out StepResult
	k := 1
	for done := 0; done < n; {
		drawn := draw && done == n-1
		if draw && !drawn {
			k = min(k, n-1-done) // leave the drawn frame for its own call
		}
		k = max(1, min(k, n-done))
		if err := s.WaitIdle(ctx); err != nil {
			return out, err
		}
		limit := s.cfg.CallTimeout
		if drawn {
			limit += s.cfg.GPUTimeout
		}
		expr := fmt.Sprintf("window.__wp.step(%d, {skip: %t, draw: %t})", k, s.cfg.SkipDraw, drawn)
		var r stepReply
		start := time.Now()
		if err := s.eval(ctx, limit, expr, true, &r); err != nil {
			return out, err
		}
		took := time.Since(start)
		for _, pf := range r.PerFrame {
			out.Callbacks = append(out.Callbacks, pf[0])
			out.Draws = append(out.Draws, pf[1])
		}
		out.Frames += len(r.PerFrame)
		out.Frame, out.VirtualMs = r.Frame, r.VirtualMs
		s.frame.Store(int64(r.Frame))
		done += k
		perFrame := took / time.Duration(k)
		target := s.cfg.CallTimeout / 4
		switch {
		case perFrame <= 0:
			k = chunkFrames
		default:
			k = int(target / perFrame)
		}
		k = max(1, min(k, chunkFrames))
	}
	return out, nil
}

// Present waits until what the last drawn frame put on the canvas has been
// composited, i.e. the GPU has drained. The wait is bounded by the GPU
// allowance, not the call timeout: it is GPU time, not the page's.
func (s *Session) Present(ctx context.Context) error {
	return s.eval(ctx, s.cfg.GPUTimeout, "window.__wp.realFrame()", true, nil)
}
