package capture

import (
	"context"
	"time"

	"github.com/worldprobe/worldprobe/internal/worldjudge/measure"
)

// calibrationFrames is how many frames taken with the UI hidden are taken
// in turn each way, their CPU time measured, before the cheaper way takes
// the rest: the four orbits, where a world has them.
const calibrationFrames = 4

// The ways a UI-hidden frame is read (Reads.Chosen).
const (
	readWebGL = "webgl"
	readShots = "screenshots"
)

// calibrating: no option forces how UI-hidden frames are read, and the
// choice is not made yet.
func (k *capturer) calibrating() bool {
	o := k.o
	return !o.WebGLReads && !o.CheckReads && !o.Screenshots && k.c.Reads.Chosen == ""
}

// calibrationFrame steps n frames, the last drawn, and saves it as a
// calibration frame: the even ones drawn and read back from WebGL
// (readAt), the odd ones drawn and taken as a screenshot, each with the
// CPU time of every browser process and of the harness from the drawn
// step to the PNG written (so that each way pays for its own drawing:
// SwiftShader draws when the frame is read or composited), and its wall
// time. After calibrationFrames the way that took less CPU reads the
// rest; a world whose frame cannot be read back (readAt took a
// screenshot instead) is read with screenshots at once.
func (k *capturer) calibrationFrame(ctx context.Context, n int, name, kind string) (View, error) {
	r := &k.c.Reads
	if n > 1 {
		if _, err := k.advance(ctx, n-1, false); err != nil {
			return View{}, err
		}
	}
	t, cpu := time.Now(), k.b.ReadCPU()
	viaRead := r.Calibrated%2 == 0
	webgl := r.WebGL
	var v View
	var err error
	if viaRead {
		v, err = k.readAt(ctx, 1, name, kind)
	} else {
		if _, err = k.advance(ctx, 1, true); err == nil {
			v, err = k.shot(ctx, name, kind)
			r.Screenshots++
		}
	}
	if err != nil {
		return View{}, err
	}
	wall, used := time.Since(t), k.b.ReadCPU().Since(cpu)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	r.Calibrated++
	switch {
	case viaRead && r.WebGL == webgl:
		r.Chosen = readShots // the hook declined the read
		return v, nil
	case viaRead:
		r.ReadMs, r.ReadCPUMs = measure.Round(r.ReadMs+ms(wall), 1), measure.Round(r.ReadCPUMs+ms(used), 1)
	default:
		r.ShotMs, r.ShotCPUMs = measure.Round(r.ShotMs+ms(wall), 1), measure.Round(r.ShotCPUMs+ms(used), 1)
	}
	if r.Calibrated >= calibrationFrames {
		r.Chosen = readWebGL
		if r.ShotCPUMs < r.ReadCPUMs {
			r.Chosen = readShots
		}
	}
	return v, nil
}
