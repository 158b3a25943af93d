package trial

import (
	"context"
	"fmt"

	"github.com/worldprobe/worldprobe/internal/result"
)

// DesignFrame is one recorded frame of a probe's page, as the design
// score sees it: the probe, the frame's count since its recording
// started (1-based), and its PNG.
type DesignFrame struct {
	Probe string
	N     int
	PNG   []byte
}

// DesignRater rates an XR trial's recorded frames on the XR design
// heuristics (docs/xr-design.md; run --design). The error is for what
// must stop the run (a cancelled context, a fatal model error); a rating
// that could not be had is a Design with Unjudged set.
type DesignRater interface {
	RateDesign(ctx context.Context, frames []DesignFrame) (*result.Design, error)
}

// DesignFramesPerProbe is how many recorded frames of each probe the
// design score rates: the first, the middle and the last.
const DesignFramesPerProbe = 3

// DesignFile is the artifact of a rated frame: design-PROBE-N.png.
func DesignFile(probe string, n int) string {
	return fmt.Sprintf("design-%s-%d.png", unsafeName.ReplaceAllString(probe, "_"), n)
}

// design samples DesignFramesPerProbe frames of each recorded probe,
// keeps them as artifacts and asks the rater.
func (r *recorder) design(ctx context.Context, art *Artifacts, rater DesignRater) (*result.Design, error) {
	var frames []DesignFrame
	var names []string
	for _, pc := range r.clips {
		sampled, err := pc.clip.Sample(DesignFramesPerProbe)
		if err != nil {
			return &result.Design{Unjudged: "reading the recorded frames: " + err.Error()}, nil
		}
		for _, f := range sampled {
			name := DesignFile(pc.probe, f.N)
			if err := art.Write(name, f.PNG); err != nil {
				return nil, fmt.Errorf("keeping a frame for the design score: %w", err)
			}
			frames = append(frames, DesignFrame{Probe: pc.probe, N: f.N, PNG: f.PNG})
			names = append(names, name)
		}
	}
	d, err := rater.RateDesign(ctx, frames)
	if err != nil {
		return nil, err
	}
	d.Frames = names
	return d, nil
}
