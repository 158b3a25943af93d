package session

import (
	"context"
	"errors"
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
	// Clears is per stepped frame the number of WebGL clear calls (skipped
	// ones included): a frame whose objects are all outside the view makes
	// no draw call but still clears, and is rendering.
	Clears []int `json:"-"`
}

type stepReply struct {
	Frame     int      `json:"frame"`
	VirtualMs float64  `json:"virtualMs"`
	PerFrame  [][3]int `json:"perFrame"`
	// Dirty: the page made network-capable calls (or has a tracked load
	// pending) since the harness last saw it settled; nothing was stepped.
	Dirty bool `json:"dirty"`
	// NetBefore and Net are the page's count of network-capable calls
	// before and after the stepped frames; Pending its tracked loads.
	NetBefore int64 `json:"netBefore"`
	Net       int64 `json:"net"`
	Pending   int   `json:"pending"`
}

// settled says whether the network is known to be quiet without asking:
// the last chunk ended with the page making no network-capable call and no
// tracked load pending, and no request has reached the harness since that
// chunk began. The page re-checks its side when it is asked to step.
func (s *Session) settled() bool {
	return s.netSeen >= 0 && s.inflight.Load() == 0 && s.scripts.waiting() == 0 && s.started.Load() == s.startedSeen
}

// Step advances the page by n frames of 1000/FPS virtual ms each, running
// due timers and animation-frame callbacks. When draw is true the last frame
// is drawn even if draw skipping is on (the frame is about to be observed).
//
// Before each chunk of frames the network must be settled (WaitIdle), so
// that whatever the page asked for lands on the same frame on any machine.
// The wait is skipped when it is known to be unnecessary (see settled): the
// page counts its network-capable calls (fetch, XHR, workers, element URLs,
// inserted markup) and refuses to step when that count moved since the
// harness last saw it, and any request that reached the harness since
// forces the wait too. A frame that makes such a call ends its chunk, so
// what it asked for lands before the next frame whatever the chunk size.
// Requests no counted call starts (a dynamic import(), a CSS url(), a
// worker's own fetch) are waited for only when they have reached the
// harness by the end of a chunk.
//
// Frames go to the page in chunks sized so that one chunk takes about a
// quarter of the call timeout at the page's measured pace (kept between
// calls, measured anew after each load): a slow but live page is never
// taken for a hung one, and a hung page is caught within one call timeout.
// The drawn frame is its own call, with the GPU allowance added, since
// drawing may wait on the GPU. On ErrUnresponsive or ErrCrashed the result
// holds the frames completed.
func (s *Session) Step(ctx context.Context, n int, draw bool) (StepResult, error) {
	defer s.charge(stepPhase(draw))()
	if s.video.rec != nil && !s.video.active {
		return s.stepRecorded(ctx, n, draw) // video.go
	}
	var out StepResult
	k := s.chunk()
	for done := 0; done < n; {
		drawn := draw && done == n-1
		if draw && !drawn {
			k = min(k, n-1-done) // leave the drawn frame for its own call
		}
		k = max(1, min(k, n-done))
		since := int64(-1)
		if s.settled() {
			since = s.netSeen
		} else {
			s.waits++
			if err := s.WaitIdle(ctx); err != nil {
				return out, err
			}
		}
		limit := s.cfg.CallTimeout
		if drawn {
			limit += s.cfg.GPUTimeout
		}
		expr := fmt.Sprintf("window.__wp.step(%d, {skip: %t, draw: %t, since: %d})", k, s.cfg.SkipDraw, drawn, since)
		var r stepReply
		startedBefore := s.started.Load()
		start := time.Now()
		if err := s.eval(ctx, limit, expr, true, &r); err != nil {
			return out, err
		}
		if r.Dirty {
			s.netSeen = -1
			continue
		}
		took := time.Since(start)
		s.netSeen, s.startedSeen = -1, startedBefore
		if r.Net == r.NetBefore && r.Pending == 0 {
			s.netSeen = r.Net
		}
		stepped := len(r.PerFrame)
		if stepped == 0 {
			return out, fmt.Errorf("stepping %d frames: the page stepped none", k)
		}
		for _, pf := range r.PerFrame {
			out.Callbacks = append(out.Callbacks, pf[0])
			out.Draws = append(out.Draws, pf[1])
			out.Clears = append(out.Clears, pf[2])
		}
		out.Frames += stepped
		out.Frame, out.VirtualMs = r.Frame, r.VirtualMs
		s.frame.Store(int64(r.Frame))
		if drawn || !s.cfg.SkipDraw || s.cfg.RealTime {
			s.drawnAt = int64(r.Frame)
		}
		done += stepped
		if perFrame := took / time.Duration(stepped); !drawn || stepped > 1 {
			s.pace = perFrame // a drawn frame's time is mostly the GPU's
		}
		k = s.chunk()
	}
	return out, nil
}

// Drawn reports whether the canvas shows the current frame: its draw calls
// ran (the last frame of a Step with draw, or any frame with draw
// skipping off). Pixels read when it is false would show an older frame.
func (s *Session) Drawn() bool {
	return s.Frame() > 0 && s.drawnAt == int64(s.Frame())
}

// ErrUndrawn is returned when pixels are asked for a frame that was
// stepped without drawing: the caller should have stepped it with draw.
var ErrUndrawn = errors.New("the current frame was stepped without drawing")

// chunk is how many frames the next call into the page steps: about a
// quarter of the call timeout at the page's measured pace, 1 while the pace
// is unknown, at most chunkFrames.
func (s *Session) chunk() int {
	if s.pace <= 0 {
		return 1
	}
	return max(1, min(int(s.cfg.CallTimeout/4/s.pace), chunkFrames))
}

// Present waits until what the last drawn frame put on the canvas has been
// composited, i.e. the GPU has drained. The wait is bounded by the GPU
// allowance, not the call timeout: it is GPU time, not the page's.
func (s *Session) Present(ctx context.Context) error {
	defer s.charge("pixels")()
	return s.eval(ctx, s.cfg.GPUTimeout, "window.__wp.realFrame()", true, nil)
}

// stepPhase names a Step's phase in the CPU ledger (browser.Charge).
func stepPhase(draw bool) string {
	if draw {
		return "step: drawn"
	}
	return "step: undrawn"
}
