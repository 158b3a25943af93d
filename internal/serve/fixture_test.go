package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/result"
	"github.com/worldprobe/worldprobe/internal/store"
)

// videoBytes stands for a trial's clip: the server serves bytes, it
// never decodes them, and Range requests are checked against these.
var videoBytes = []byte("0123456789abcdefghijklmnopqrstuvwxyz-not-a-real-webm-clip")

// fixture is a run folder: trials saved to its results.db and written
// to their folders, as 'worldprobe run' leaves them.
type fixture struct {
	dir     string
	db      *store.SQLite
	outside string // a file beside the run folder, never to be served
}

// newFixture writes a run folder with three trials: the reference of
// simulation/ball (pass, with a trace), a flawed page of it (fail, one
// failed assertion, a trace, a screenshot and a video) and a crash of
// rendering/fog; and one trial folder still running (no result.json). It
// plans 5 trials (one not started yet).
func newFixture(t *testing.T) *fixture {
	t.Helper()
	base := t.TempDir()
	dir := filepath.Join(base, "run")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "trials", "rendering_fog__gpt__page__s1"), 0o755))
	outside := filepath.Join(base, "secret.txt")
	require.NoError(t, os.WriteFile(outside, []byte("outside the run folder"), 0o644))
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "link-out.txt")))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "report.html"), []byte("<!DOCTYPE html><title>the static report</title>"), 0o644))
	require.NoError(t, os.Symlink(base, filepath.Join(dir, "trials", "dir-out")))
	db, err := store.OpenSQLite(context.Background(), filepath.Join(dir, store.ResultsDB))
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	f := &fixture{dir: dir, db: db, outside: outside}
	require.NoError(t, db.SetPlanned(context.Background(), 5))

	fall := []result.Assertion{
		{Probe: "interface", Level: "affordance", Status: "pass", Expr: "ball.position: vec3"},
		{Probe: "falls", Level: "transition", Status: "pass", Expr: "after.ball.position[1] < before.ball.position[1]", Line: 11},
	}
	oracle := trialOf("k-oracle", "simulation/ball", "oracle", "solution", 0)
	oracle.Pass, oracle.VCov, oracle.ACov, oracle.SCov, oracle.TCov = true, 1, 1, 1, 1
	oracle.Assertions = fall
	flawed := trialOf("k-flawed", "simulation/ball", "gpt", "page", 0)
	flawed.VCov, flawed.ACov, flawed.SCov, flawed.TCov, flawed.Attribution = 0.5, 1, 0, 1, "physics_violation"
	flawed.Assertions = []result.Assertion{fall[0], {Probe: "falls", Level: "transition", Status: "fail", Line: 11,
		Expr: "s.ball.position[1] < 5", Message: "s.ball.position[1] = 5.3, want < 5 <script>alert(1)</script>"}}
	flawed.Videos = []result.Video{{Probe: "falls", File: "video-falls.webm", Kind: "webm", Frames: 4, Every: 1, FPS: 60, DurationS: 4.0 / 60, Width: 2, Height: 2}}
	crash := trialOf("k-crash", "rendering/fog", "gpt", "page", 0)
	crash.Outcome, crash.CrashKind, crash.Attribution, crash.CrashMessage = result.OutcomeCrash, result.CrashJSException, "crash", "Uncaught TypeError: x is undefined"

	ys := func(v ...float64) []map[string]any {
		var out []map[string]any
		for i, y := range v {
			out = append(out, map[string]any{"probe": "falls", "kind": "trace", "name": "drop", "line": 9, "frame": 1 + 10*i,
				"state": map[string]any{"ball": map[string]any{"position": []any{0.0, y, 0.0}}}})
		}
		out = append(out, map[string]any{"probe": "falls", "kind": "assert", "line": 11, "frame": 31,
			"state": map[string]any{"ball": map[string]any{"position": []any{0.0, v[len(v)-1], 0.0}}}})
		return out
	}
	f.add(t, oracle, ys(5, 4, 2.5, 0.5))
	f.add(t, flawed, ys(5, 5.3, 5.6, 5.3))
	require.NoError(t, os.WriteFile(filepath.Join(dir, f.dirOf(flawed), "video-falls.webm"), videoBytes, 0o644))
	f.add(t, crash, nil)
	return f
}

func trialOf(key, task, model, cand string, sample int) *result.Trial {
	cat, _, _ := strings.Cut(task, "/")
	return &result.Trial{Key: key, Task: task, Category: cat, Difficulty: "D2", Model: model, Candidate: cand, Sample: sample,
		Outcome: result.OutcomeOK, StartedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), DurationMs: 1234}
}

// dirOf is the trial's folder, relative to the run folder, as run names it.
func (f *fixture) dirOf(tr *result.Trial) string {
	return filepath.Join("trials", fmt.Sprintf("%s__%s__%s__s%d", strings.ReplaceAll(tr.Task, "/", "_"), tr.Model, tr.Candidate, tr.Sample))
}

// add writes the trial's folder (result.json, screenshot.png, trace.jsonl
// when given) and then saves it to the store, as a run does.
func (f *fixture) add(t *testing.T, tr *result.Trial, trace []map[string]any) {
	t.Helper()
	full := filepath.Join(f.dir, f.dirOf(tr))
	require.NoError(t, os.MkdirAll(full, 0o755))
	img := image.NewRGBA(image.Rect(0, 0, 4, 4))
	img.Set(1, 1, color.RGBA{R: 255, A: 255})
	var shot bytes.Buffer
	require.NoError(t, png.Encode(&shot, img))
	require.NoError(t, os.WriteFile(filepath.Join(full, "screenshot.png"), shot.Bytes(), 0o644))
	if trace != nil {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		for _, l := range trace {
			require.NoError(t, enc.Encode(l))
		}
		require.NoError(t, os.WriteFile(filepath.Join(full, "trace.jsonl"), buf.Bytes(), 0o644))
	}
	b, err := json.Marshal(tr)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(full, "result.json"), b, 0o644))
	require.NoError(t, f.db.Save(context.Background(), tr))
}

// storeAt creates an empty results database at path.
func storeAt(t *testing.T, path string) (*store.SQLite, error) {
	t.Helper()
	return store.OpenSQLite(context.Background(), path)
}
