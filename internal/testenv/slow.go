package testenv

import (
	"os"
	"testing"
)

// SlowEnv is the environment variable that turns on the slow tests
// ('make test-slow' sets it): the long real-browser suites kept out of
// 'make test' so that it fits CI with room to spare.
const SlowEnv = "WORLDPROBE_SLOW"

// SlowEnabled reports whether the slow tests run.
func SlowEnabled() bool { return os.Getenv(SlowEnv) != "" }

// Slow skips t unless the slow tests run, saying how to run it.
func Slow(t testing.TB) {
	t.Helper()
	if !SlowEnabled() {
		t.Skipf("slow test: run with %s=1 (make test-slow)", SlowEnv)
	}
}
