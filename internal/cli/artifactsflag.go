package cli

import (
	"context"
	"io/fs"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/worldprobe/worldprobe/internal/artifactstore"
)

// artifactsFlag is --artifacts: where a scaled-out run's trial folders are
// kept besides the run folder, a folder or s3://BUCKET/PREFIX (endpoint and
// credentials from the environment only: docs/scale-out.md).
type artifactsFlag struct{ Where string }

func (f *artifactsFlag) register(fs *pflag.FlagSet, usage string) {
	fs.StringVar(&f.Where, "artifacts", "", usage)
}

// open opens the store; nil when the flag is not given.
func (f *artifactsFlag) open(ctx context.Context, io IO) (artifactstore.Store, error) {
	if f.Where == "" {
		return nil, nil
	}
	s, err := artifactstore.Open(ctx, f.Where, io.Getenv)
	if err != nil {
		return nil, runtimeErr(err)
	}
	return s, nil
}

// runFiles is the run folder run's files in the store: the trial folders
// the workers copied there.
func (f *artifactsFlag) runFiles(ctx context.Context, io IO, run string) (fs.FS, error) {
	s, err := f.open(ctx, io)
	if s == nil || err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(run)
	if err != nil {
		return nil, runtimeErr(err)
	}
	sub, err := fs.Sub(artifactstore.FS(ctx, s), artifactstore.RunPrefix(abs))
	if err != nil {
		return nil, runtimeErr(err)
	}
	return sub, nil
}
