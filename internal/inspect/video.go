package inspect

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/worldprobe/worldprobe/internal/session"
	"github.com/worldprobe/worldprobe/internal/video"
)

// Video is the recording of a page's stepped frames (Options.VideoDir):
// a WebM, or a contact-sheet PNG without ffmpeg.
type Video struct {
	// File is where it was written ("" when it could not be: see Error).
	File string `json:"file,omitempty"`
	video.Info
	// Error says why the recording stopped early or was not written; it
	// never changes the report's outcome.
	Error string `json:"error,omitempty"`
}

// startVideo records s's frames into a new clip.
func (in *Inspector) startVideo(s *session.Session) (*video.Clip, *string, error) {
	o := in.Options
	clip, err := video.NewClip("", o.FPS, o.VideoEvery, 0)
	if err != nil {
		return nil, nil, err
	}
	var failed string
	rec := &session.Recorder{Every: clip.Every()}
	rec.Frame = func(_ context.Context, f session.RecordedFrame) error {
		if failed != "" {
			return nil
		}
		err := f.Err
		if err == nil {
			err = clip.Add(f.N, f.PNG)
		}
		if err != nil {
			failed = err.Error()
			rec.Every = 1 << 30 // stop capturing: the clip ends here
			return nil
		}
		rec.Every = clip.Every()
		return nil
	}
	s.SetRecorder(rec)
	return clip, &failed, nil
}

// writeVideo stops recording s and writes the clip into Options.VideoDir
// as <name>.webm (<name>.png, a contact sheet, without ffmpeg), named as
// the screenshot is.
func (in *Inspector) writeVideo(ctx context.Context, s *session.Session, clip *video.Clip, failed string, page string) *Video {
	s.SetRecorder(nil)
	v := &Video{Error: failed}
	if clip.Frames() == 0 {
		v.Error = joinErr(v.Error, "no frame was recorded")
		return v
	}
	dir := in.Options.VideoDir
	if err := os.MkdirAll(dir, 0o755); err != nil {
		v.Error = joinErr(v.Error, fmt.Sprintf("creating the video folder: %v", err))
		return v
	}
	base := filepath.Join(dir, strings.TrimSuffix(screenshotName(page), ".png"))
	var err error
	if ffmpeg := video.FFmpeg(); ffmpeg != "" {
		v.File = base + ".webm"
		v.Info, err = clip.Encode(ctx, ffmpeg, v.File)
	} else {
		var data []byte
		v.File = base + ".png"
		if data, v.Info, err = clip.ContactSheet(); err == nil {
			err = os.WriteFile(v.File, data, 0o644)
		}
	}
	if err != nil {
		v.File, v.Error = "", joinErr(v.Error, err.Error())
	}
	return v
}

func joinErr(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
