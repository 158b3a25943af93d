package trial

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/result"
)

// TestXRTagTargets: XR steps aim at objects by semantic tag in a real
// three.js VR app (internal/xr/testdata/xr-world.html, whose gem sits under
// two rotated, scaled parents): reachTo {tag: gem} puts the right grip on
// the gem's world position, teleportHand {tag: table} the left
// controller itself on the table's (its grip the controller's 5.2 cm grip
// offset away), lookAtTarget {tag: surface} (a role) faces the
// table, and {tag: grabbable}, a role two objects share, is an error that
// names both.
func TestXRTagTargets(t *testing.T) {
	page, err := filepath.Abs(filepath.Join("..", "xr", "testdata", "xr-world.html"))
	require.NoError(t, err)
	dir := filepath.Join(t.TempDir(), "xr", "tags")
	tk, c := writeTask(t, dir, map[string]string{
		"task.yaml": "id: xr/tags\ntitle: Tags\ncategory: xr\ndifficulty: D1\ntimeout: 120s\nxr: metaQuest3\nstate:\n  - {path: selects, type: number}\n",
		"brief.md":  "# Tags\n\nTagged objects.\n",
		"contract.yaml": `version: 1
probes:
  - name: by_tag
    level: transition
    steps:
      - step: 2
      - reachTo: {hand: right, tag: gem}
      - assert: dist(xr().inputs.filter(i, i.hand == "right")[0].position, object("gem").position) < 0.00001
      - teleportHand: {hand: left, tag: table}
      - assert: approx(dist(xr().inputs.filter(i, i.hand == "left")[0].position, object("table").position), 0.052265, 0.00001)
      - lookAtTarget: {tag: surface}
      - assert: facing(xr().head, xr().head.forward, object("table"), 0.001)
  - name: ambiguous
    level: state
    steps:
      - pointTo: {hand: left, tag: grabbable}
      - assert: 'true'
`,
	})
	r := &Runner{Browser: shared.Browser, Resolver: shared.Resolver, SkipDraw: true, Load: func() float64 { return 0.2 }}
	tr, err := r.Run(context.Background(), Input{Key: "k", Task: tk, Contract: c, Page: page, Model: "m", Candidate: "c", Dir: t.TempDir()})
	require.NoError(t, err)
	require.Equal(t, result.OutcomeOK, tr.Outcome, "%s: %s", tr.CrashKind, tr.CrashMessage)
	var got []string
	for _, a := range tr.Assertions {
		if a.Probe != "interface" {
			got = append(got, a.Probe+" "+a.Status+" "+a.Message)
		}
	}
	require.Equal(t, []string{
		"by_tag pass ", "by_tag pass ", "by_tag pass ",
		`ambiguous error pointTo left {tag: "grabbable"} (line 16): {tag: "grabbable"} is ambiguous: 2 scene objects have the role "grabbable": object "gem" {role: grabbable, name: gem}, object "ball" {role: grabbable, name: ball}; tag one by its name: target not found`,
	}, got)
}
