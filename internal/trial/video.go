package trial

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"regexp"

	"github.com/worldprobe/worldprobe/internal/contract"
	"github.com/worldprobe/worldprobe/internal/result"
	"github.com/worldprobe/worldprobe/internal/session"
	"github.com/worldprobe/worldprobe/internal/task"
	"github.com/worldprobe/worldprobe/internal/video"
)

// Which trials record video (Video.Mode).
const (
	VideoOff = ""    // none
	VideoXR  = "xr"  // trials of tasks with xr: (run's default)
	VideoAll = "all" // every trial (run --video)
)

// Video says which trials record each probe's page, and how (docs/xr.md).
type Video struct {
	// Mode is VideoOff, VideoXR or VideoAll.
	Mode string
	// Every records every Every-th stepped frame (0 or 1: every frame).
	Every int
	// MaxFrames caps a clip (0: video.DefaultMaxFrames): past it the clip
	// keeps every other frame and records at twice the spacing.
	MaxFrames int
	// frames, when set, sees every frame recorded (tests).
	frames func(probe string, f session.RecordedFrame)
}

// records says whether a trial of t records video.
func (v Video) records(t *task.Task) bool {
	return v.Mode == VideoAll || (v.Mode == VideoXR && t.XR != "")
}

// VideoFile is the artifact of a probe's clip: video-PROBE.webm, or
// video-PROBE.png for a contact sheet (ext "png").
func VideoFile(probe, ext string) string {
	return "video-" + unsafeName.ReplaceAllString(probe, "_") + "." + ext
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_.-]`)

// recorder records one trial's probes, each probe's page a clip of its
// own, and writes them as artifacts when the trial ends. Recording never
// changes a verdict: a frame it cannot keep stops that clip, with the
// reason in the trial's result.
type recorder struct {
	opts   Video
	logger *slog.Logger
	clips  []*probeClip
}

type probeClip struct {
	probe string
	clip  *video.Clip
	err   error
}

// start records the probe's page in s until the returned page is closed.
func (r *recorder) start(s *session.Session, p *page, probe string) (contract.Page, error) {
	clip, err := video.NewClip("", p.fps, r.opts.Every, r.opts.MaxFrames)
	if err != nil {
		return nil, contract.Infra(err)
	}
	pc := &probeClip{probe: probe, clip: clip}
	r.clips = append(r.clips, pc)
	rec := &session.Recorder{Every: clip.Every()}
	rec.Frame = func(_ context.Context, f session.RecordedFrame) error {
		if pc.err != nil {
			return nil
		}
		if r.opts.frames != nil {
			r.opts.frames(probe, f)
		}
		err := f.Err
		if err == nil {
			err = clip.Add(f.N, f.PNG)
		}
		if err != nil {
			pc.err = err
			rec.Every = 1 << 30 // stop capturing: the clip ends here
			r.logger.Warn("recording stopped", "probe", probe, "err", err)
			return nil
		}
		rec.Every = clip.Every()
		return nil
	}
	s.SetRecorder(rec)
	return &recordingPage{page: p}, nil
}

// recordingPage is a probe's page while it is recorded: every capability
// of page, and Close, which the contract engine calls when the probe ends,
// stops recording.
type recordingPage struct{ *page }

// Close stops recording; the session lives on for the next probe.
func (p *recordingPage) Close() error {
	p.s.SetRecorder(nil)
	return nil
}

// write encodes each clip (a contact sheet without ffmpeg) into the
// trial's artifacts and returns what was written, in probe order. A clip
// that cannot be written is listed with its error; only a cancelled ctx
// is an error.
func (r *recorder) write(ctx context.Context, art *Artifacts) ([]result.Video, error) {
	ffmpeg := video.FFmpeg()
	var out []result.Video
	for _, pc := range r.clips {
		v := result.Video{Probe: pc.probe, Frames: pc.clip.Frames()}
		if pc.err != nil {
			v.Error = pc.err.Error()
		}
		if pc.clip.Frames() > 0 {
			info, file, err := r.encode(ctx, art, pc, ffmpeg)
			if ctx.Err() != nil {
				return nil, fmt.Errorf("writing the video of probe %s: %w", pc.probe, context.Cause(ctx))
			}
			if err != nil {
				v.Error = joinErr(v.Error, err.Error())
				r.logger.Warn("video not written", "probe", pc.probe, "err", err)
			} else {
				v.File, v.Kind, v.Frames, v.Every, v.FPS, v.DurationS = file, info.Kind, info.Frames, info.Every, info.FPS, info.Duration
				v.Width, v.Height, v.Sampled = info.Width, info.Height, info.Sampled
			}
		}
		out = append(out, v)
	}
	return out, nil
}

func (r *recorder) encode(ctx context.Context, art *Artifacts, pc *probeClip, ffmpeg string) (video.Info, string, error) {
	if ffmpeg == "" {
		data, info, err := pc.clip.ContactSheet()
		if err != nil {
			return info, "", err
		}
		name := VideoFile(pc.probe, "png")
		return info, name, art.Write(name, data)
	}
	name := VideoFile(pc.probe, "webm")
	part := art.Path(name + ".part")
	info, err := pc.clip.Encode(ctx, ffmpeg, part)
	if err != nil {
		os.Remove(part)
		return info, "", err
	}
	return info, name, art.Adopt(name, part)
}

// close removes the clips' frames.
func (r *recorder) close() {
	for _, pc := range r.clips {
		if err := pc.clip.Close(); err != nil {
			r.logger.Warn("removing recorded frames", "err", err)
		}
	}
}

func joinErr(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// recording wraps open so that each probe's page (not the interface
// probe's) is recorded, when the runner's Video asks it for a trial of t;
// otherwise it returns open and a nil recorder.
func (j *Runner) recording(t *task.Task, logger *slog.Logger, open contract.Opener) (contract.Opener, *recorder) {
	if j.RealTime || !j.Video.records(t) {
		return open, nil
	}
	r := &recorder{opts: j.Video, logger: logger}
	return func(ctx context.Context, fps float64) (contract.Page, error) {
		p, err := open(ctx, fps)
		probe := contract.ProbeOf(ctx)
		if err != nil || probe == "" || probe == contract.InterfaceProbe {
			return p, err
		}
		pg, ok := p.(*page)
		if !ok {
			return p, nil
		}
		return r.start(pg.s, pg, probe)
	}, r
}
