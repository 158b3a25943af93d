// Package pageenv holds the JavaScript that worldprobe injects into every page
// before any page script runs: a seeded Math.random (sfc32 seeded through
// splitmix32), a virtual clock that only the harness advances, WebGL draw
// accounting and skipping, dialog and popup guards, the three.js devtools hook,
// and the readers for window.__3D_STATE__ and the scene graph.
package pageenv

import (
	_ "embed"
	"encoding/json"
	"fmt"
)

//go:embed runtime.js
var runtimeJS string

//go:embed worker.js
var workerJS string

// libJS holds what runtime.js and worker.js share (seeded streams, the
// virtual clock, Intl/Temporal "now", the timer heap); it goes in front of
// each inside the same function.
//
//go:embed lib.js
var libJS string

// EpochMs is the wall-clock time, in Unix milliseconds, that a page sees at
// virtual time zero: 2026-01-01T12:00:00Z. Date.now() returns EpochMs plus the
// virtual milliseconds stepped so far.
const EpochMs = 1767268800000

// Config parametrises the injected runtime.
type Config struct {
	// Seed seeds Math.random and crypto.getRandomValues.
	Seed uint32 `json:"seed"`
	// FPS is the virtual frame rate: one step advances 1000/FPS ms.
	FPS float64 `json:"fps"`
	// EpochMs is the Unix time in ms at virtual time zero.
	EpochMs int64 `json:"epochMs"`
	// SkipDraw skips WebGL draw calls until a frame is stepped with drawing
	// asked for: frames nobody observes need no pixels.
	SkipDraw bool `json:"skipDraw"`
	// RealTime leaves the page's clock, timers and animation frames real and
	// makes a step wait for real frames. Benchmarks use it to compare with
	// the way harnesses without a virtual clock work; nothing is
	// deterministic in this mode.
	RealTime bool `json:"realtime"`
	// BlobBudget is how many bytes of live Blobs a document may make with
	// the Blob and File constructors (0: no budget); past it the
	// constructor throws QuotaExceededError.
	BlobBudget int64 `json:"blobBudget"`
	// WorkerRuntime is worker.js, which the page runtime puts in front of
	// blob: workers itself (the harness does it for workers it serves).
	WorkerRuntime string `json:"workerRuntime"`
}

// WorkerConfig parametrises the worker runtime of one worker.
type WorkerConfig struct {
	// Seed is the page's seed; the worker's streams mix in Index.
	Seed uint32 `json:"seed"`
	// Index numbers the page's workers in creation order, from 1.
	Index int `json:"index"`
	// StartMs is the page's virtual time when the worker was created.
	StartMs float64 `json:"startMs"`
	// EpochMs is the Unix time in ms at virtual time zero.
	EpochMs int64 `json:"epochMs"`
}

// WorkerMark is the fragment key the page runtime adds to a worker
// script's URL (#__wp_worker=INDEX,START_MS) so the harness knows to serve
// it with the worker runtime in front.
const WorkerMark = "__wp_worker="

// WorkerScript returns the worker runtime for cfg, to go in front of the
// worker's own script on the same line (one indirect eval of the runtime's
// source), so the worker's line numbers stay its own.
func WorkerScript(cfg WorkerConfig) string {
	if cfg.EpochMs == 0 {
		cfg.EpochMs = EpochMs
	}
	b, _ := json.Marshal(cfg) // plain numbers: cannot fail
	src, _ := json.Marshal("(function(){const __WP_WORKER__ = " + string(b) + ";\n" + libJS + "\n" + workerJS + "\n})();")
	return "(0,eval)(" + string(src) + ");"
}

// Script returns the injected runtime for cfg as one self-contained script.
func Script(cfg Config) (string, error) {
	if cfg.FPS <= 0 {
		return "", fmt.Errorf("pageenv: fps must be positive, got %v", cfg.FPS)
	}
	if cfg.EpochMs == 0 {
		cfg.EpochMs = EpochMs
	}
	cfg.WorkerRuntime = libJS + "\n" + workerJS
	b, err := json.Marshal(cfg)
	if err != nil {
		return "", fmt.Errorf("pageenv: encoding config: %w", err)
	}
	return "(function(){const __WP_CONFIG__ = " + string(b) + ";\n" + libJS + "\n" + runtimeJS + "\n})();", nil
}
