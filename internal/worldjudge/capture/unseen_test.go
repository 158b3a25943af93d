package capture_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/worldprobe/worldprobe/internal/worldjudge"
	"github.com/worldprobe/worldprobe/internal/worldjudge/capture"
	"github.com/worldprobe/worldprobe/internal/worldjudge/rubric"
)

// TestWorldsItHasNeverSeen judges small worlds of ours unlike the corpus
// (testdata/unseen) offline: one whose texture never loads, one with no
// UI, one on three.js r128 as a classic script with a legend of links,
// one that throws before it makes a canvas and one whose frame callback
// never returns. The asset world's capture completes with black frames
// and the refused request listed; the others as the table says. Each
// gets a report — complete, or with its named reason
// — written to its folder, and never a judge error.
func TestWorldsItHasNeverSeen(t *testing.T) {
	r, err := rubric.Load(filepath.Join("..", "..", "..", "suites", "worldbench", "island"))
	if err != nil {
		t.Fatal(err)
	}
	o := capture.DefaultOptions(r.Pixels)
	o.Width, o.Height, o.Coverage = 320, 200, false
	o.Horizon, o.Samples = 4, 2
	o.CallTimeout = 3 * time.Second
	cases := []struct {
		world, status, reason string
		check                 func(t *testing.T, rep *worldjudge.Report)
	}{
		{"asset-never-loads", worldjudge.Complete, "", func(t *testing.T, rep *worldjudge.Report) {
			c := rep.Capture
			if !contains(c.Blocked, "https://assets.example.com/grass.png") {
				t.Errorf("blocked %v", c.Blocked)
			}
			if c.Orbit != "no orbits: the page rendered with no camera the harness could see" || len(c.Views) != 2+4+3 {
				t.Errorf("orbit %q, %d views", c.Orbit, len(c.Views))
			}
		}},
		{"no-legend", worldjudge.Complete, "", func(t *testing.T, rep *worldjudge.Report) {
			c := rep.Capture
			if c.Legend == nil || c.Legend.Note != "no legend framing: none of the page's 0 clickable elements names a biome" || len(c.Legend.Framed) != 0 {
				t.Errorf("legend %+v", c.Legend)
			}
			if c.Three != "166" || c.DayNight == nil || !c.DayNight.Pinned {
				t.Errorf("three %q, day/night %+v", c.Three, c.DayNight)
			}
		}},
		{"classic-r128", worldjudge.Complete, "", func(t *testing.T, rep *worldjudge.Report) {
			c := rep.Capture
			if c.Three != "128" || c.Legend == nil || strings.Join(c.Legend.Framed, ",") != "desert,volcano" {
				t.Errorf("three %q, legend %+v", c.Three, c.Legend)
			}
		}},
		{"throws-at-start", worldjudge.NotCaptured, "time sample 0 (0 s): the page has no canvas", func(t *testing.T, rep *worldjudge.Report) {
			if len(rep.Capture.Errors) != 1 || rep.Capture.Errors[0] != "line 9: Uncaught TypeError: Cannot read properties of undefined (reading 'list')" {
				t.Errorf("errors %v", rep.Capture.Errors)
			}
		}},
		{"raf-loop", worldjudge.Partial, "the page stopped responding", func(t *testing.T, rep *worldjudge.Report) {
			if !rep.Capture.DeadlineMissed {
				t.Errorf("the missed deadline is not said")
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.world, func(t *testing.T) {
			out := t.TempDir()
			rep, err := worldjudge.Judge(context.Background(), capture.Harness.Browser, capture.Harness.Resolver,
				filepath.Join("testdata", "unseen", c.world+".html"), out, worldjudge.Options{Rubric: r, Capture: o, Offline: true})
			if err != nil {
				t.Fatalf("the judge failed: %v", err)
			}
			if err := worldjudge.Write(out, rep); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(filepath.Join(out, "panic.txt")); err == nil {
				t.Fatalf("the judge panicked: %s", rep.Reason)
			}
			if rep.Status != c.status || !strings.Contains(rep.Reason, c.reason) {
				t.Fatalf("status %s (%s), want %s (%s); capture failure %q, errors %v", rep.Status, rep.Reason, c.status, c.reason, rep.Capture.Failure, rep.Capture.Errors)
			}
			if rep.Score.Max != 280 || rep.Score.Earned != nil {
				t.Errorf("score %+v: offline it stays open", rep.Score)
			}
			c.check(t, rep)
		})
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
