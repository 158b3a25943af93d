package cli

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"

	"github.com/spf13/pflag"

	"github.com/worldprobe/worldprobe/internal/artifactstore"
	"github.com/worldprobe/worldprobe/internal/result"
	"github.com/worldprobe/worldprobe/internal/run"
	"github.com/worldprobe/worldprobe/internal/trial"
)

// artifactsFlag is --artifacts: where a scaled-out run's trial folders are
// kept besides the run folder, a folder or s3://BUCKET/PREFIX (endpoint and
// credentials from the environment only: docs/scale-out.md).
type artifactsFlag struct {
	Where string
	// store is the store once opened: one per command.
	store artifactstore.Store
}

func (f *artifactsFlag) register(fs *pflag.FlagSet, usage string) {
	fs.StringVar(&f.Where, "artifacts", "", usage)
}

// open opens the store, once; nil when the flag is not given.
func (f *artifactsFlag) open(ctx context.Context, io IO) (artifactstore.Store, error) {
	if f.Where == "" || f.store != nil {
		return f.store, nil
	}
	s, err := artifactstore.Open(ctx, f.Where, io.Getenv)
	if err != nil {
		return nil, runtimeErr(err)
	}
	f.store = s
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

// fetchTrials copies from st into the run folder out each trial folder
// of want (trial key → its folder relative to out, "trials/<name>") that
// out does not hold finished — no result.json of that key — and st does:
// the trials that workers judged on machines that do not share the run
// folder. A folder copied replaces what out held of it (an attempt cut
// short); it is copied beside it first and renamed into place, so a copy
// cut short leaves a folder that the next run removes as unfinished. It
// returns the folders copied, sorted. When out holds every trial of want
// it asks st nothing.
func fetchTrials(ctx context.Context, st artifactstore.Store, out string, want map[string]string) ([]string, error) {
	missing := map[string]string{} // folder → key
	for key, dir := range want {
		if t, err := trial.ReadResult(os.DirFS(filepath.Join(out, filepath.FromSlash(dir))), "."); err == nil && t.Key == key {
			continue
		}
		missing[dir] = key
	}
	if len(missing) == 0 {
		return nil, nil
	}
	abs, err := filepath.Abs(out)
	if err != nil {
		return nil, fmt.Errorf("locating the run folder: %w", err)
	}
	prefix := artifactstore.RunPrefix(abs)
	names, err := st.List(ctx, path.Join(prefix, "trials"))
	if err != nil {
		return nil, err
	}
	stored := map[string]bool{}
	for _, n := range names {
		stored[n] = true
	}
	dirs := make([]string, 0, len(missing))
	for dir := range missing {
		if stored[path.Join(prefix, dir, trial.ResultFile)] {
			dirs = append(dirs, dir)
		}
	}
	sort.Strings(dirs)
	var fetched []string
	for _, dir := range dirs {
		if !filepath.IsLocal(filepath.FromSlash(dir)) {
			continue
		}
		local := filepath.Join(out, filepath.FromSlash(dir))
		tmp := filepath.Join(filepath.Dir(local), ".fetch-"+filepath.Base(local))
		if err := os.RemoveAll(tmp); err != nil {
			return fetched, err
		}
		if _, err := artifactstore.GetDir(ctx, st, path.Join(prefix, dir), tmp); err != nil {
			os.RemoveAll(tmp)
			return fetched, fmt.Errorf("trial %s: %w", dir, err)
		}
		// The store's copy of another judgement of the folder (another
		// key) is not this trial's.
		if t, err := trial.ReadResult(os.DirFS(tmp), "."); err != nil || t.Key != missing[dir] {
			os.RemoveAll(tmp)
			continue
		}
		if err := os.RemoveAll(local); err != nil {
			return fetched, fmt.Errorf("trial %s: removing the unfinished copy: %w", dir, err)
		}
		if err := os.Rename(tmp, local); err != nil {
			return fetched, fmt.Errorf("trial %s: %w", dir, err)
		}
		fetched = append(fetched, dir)
	}
	return fetched, nil
}

// fetchFinished is fetchTrials, saying what it fetched.
func fetchFinished(ctx context.Context, io IO, st artifactstore.Store, out string, want map[string]string) ([]string, error) {
	got, err := fetchTrials(ctx, st, out, want)
	if len(got) > 0 {
		fmt.Fprintf(io.ErrOut, "fetched %d finished trial folders from %s into %s\n", len(got), st, out)
	}
	if err != nil {
		return got, fmt.Errorf("fetching finished trials from %s: %w", st, err)
	}
	return got, nil
}

// copyingExecutor is the in-process pool with --artifacts: each judged
// trial's folder is copied into the store before the trial is done (its
// result saved), as River's workers copy theirs.
type copyingExecutor struct {
	inner run.Executor
	store artifactstore.Store
}

// Execute implements run.Executor.
func (e *copyingExecutor) Execute(ctx context.Context, runDir string, specs []trial.Spec, done func(trial.Spec, *result.Trial) error) error {
	abs, err := filepath.Abs(runDir)
	if err != nil {
		return fmt.Errorf("locating the run folder: %w", err)
	}
	return e.inner.Execute(ctx, runDir, specs, func(s trial.Spec, t *result.Trial) error {
		if _, err := artifactstore.PutDir(ctx, e.store, filepath.Join(runDir, filepath.FromSlash(s.Dir)), path.Join(artifactstore.RunPrefix(abs), s.Dir)); err != nil {
			return fmt.Errorf("trial %s: %w", s.Dir, err)
		}
		return done(s, t)
	})
}
