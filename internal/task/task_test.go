package task

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/contract"
)

const ballDir = "testdata/suite/simulation/bouncing-ball"

func ptr(f float64) *float64 { return &f }

func TestLoad(t *testing.T) {
	tk, err := Load(ballDir)
	require.NoError(t, err)
	require.Equal(t, &Task{
		ID: "simulation/bouncing-ball", Title: "Bouncing ball", Category: "simulation", Subdomain: "rigid-bodies",
		Difficulty: "D2", HumanHours: 1.5, Viewport: Viewport{800, 600}, FPS: 60, Seed: 7, Frames: 900,
		Timeout: Duration(20 * time.Second),
		State: []StateField{
			{Path: "ball.position", Type: "vec3", Unit: "m", Description: "centre of the ball"},
			{Path: "ball.bounces", Type: "integer", Description: "times the ball hit the floor"},
			{Path: "paused", Type: "boolean", Description: "whether the simulation is paused | frozen"},
			{Path: "mode", Type: "enum", Values: []string{"run", "stop"}},
		},
		Params: map[string]Param{
			"gravity":     {Default: 9.81, Min: ptr(5), Max: ptr(15), Unit: "m/s²", Description: "gravitational acceleration"},
			"restitution": {Default: 0.8},
		},
		Dir: ballDir,
	}, tk)
	require.Equal(t, "bouncing-ball", tk.Slug())
	require.Equal(t, filepath.Join(ballDir, "contract.yaml"), tk.ContractPath())
	require.Equal(t, filepath.Join(ballDir, "solution", "index.html"), tk.SolutionPath())
	require.Equal(t, filepath.Join(ballDir, "brief.md"), tk.BriefPath())
	require.Equal(t, []string{"gravity", "restitution"}, tk.ParamNames())
	require.Equal(t, map[string]any{"gravity": 9.81, "restitution": 0.8}, tk.DefaultParams())
	require.Equal(t, []contract.Field{
		{Path: "ball.position", Type: "vec3"}, {Path: "ball.bounces", Type: "integer"},
		{Path: "paused", Type: "boolean"}, {Path: "mode", Type: "enum", Values: []string{"run", "stop"}},
	}, tk.Interface())
}

func TestDefaults(t *testing.T) {
	tk, err := Parse("task.yaml", []byte("id: world/x\ntitle: X\ncategory: world\ndifficulty: D6\nstate: [{path: a, type: number}]\n"))
	require.NoError(t, err)
	require.Equal(t, Viewport{DefaultWidth, DefaultHeight}, tk.Viewport)
	require.Equal(t, float64(DefaultFPS), tk.FPS)
	require.Equal(t, uint32(DefaultSeed), tk.Seed)
	require.Equal(t, DefaultFrames, tk.Frames)
	require.Equal(t, Duration(DefaultTimeout), tk.Timeout)

	tk, err = Parse("task.yaml", []byte("id: world/x\ntitle: X\ncategory: world\ndifficulty: D6\nseed: 0\nstate: [{path: a, type: number}]\n"))
	require.NoError(t, err)
	require.Equal(t, uint32(0), tk.Seed, "an explicit seed 0 stays 0")
	require.Equal(t, 0.0, tk.HumanHours)
	require.Equal(t, 4.5, tk.EstimatedHumanHours(), "no human_hours: the D6 default")

	tk, err = Parse("task.yaml", []byte("id: world/x\ntitle: X\ncategory: world\ndifficulty: D6\nhuman_hours: 7\nstate: [{path: a, type: number}]\n"))
	require.NoError(t, err)
	require.Equal(t, 7.0, tk.EstimatedHumanHours())
	_, err = Parse("task.yaml", []byte("id: world/x\ntitle: X\ncategory: world\ndifficulty: D6\nhuman_hours: 0\nstate: [{path: a, type: number}]\n"))
	require.EqualError(t, err, "task.yaml:5: human_hours must be > 0 (leave it out to use the difficulty's default, 4.5 h for D6)")
}

func TestParseErrors(t *testing.T) {
	head := "id: simulation/x\ntitle: X\ncategory: simulation\ndifficulty: D1\n"
	state := "state:\n  - {path: a, type: number}\n"
	cases := []struct {
		name, src string
		want      []string
	}{
		{"unknown field", head + "colour: red\n" + state, []string{`task.yaml:5: unknown field "colour"`}},
		{"unknown nested field", head + "state:\n  - path: a\n    type: number\n    units: m\n", []string{`task.yaml:8: unknown field "units"`}},
		{"bad number", head + "fps: fast\n" + state, []string{`task.yaml:5: "fast" is not a number`}},
		{"bad duration", head + "timeout: soon\n" + state, []string{`task.yaml:5: "soon" is not a duration (write e.g. 30s or 1m30s)`}},
		{"unknown headset", head + "xr: vision-pro\n" + state, []string{`task.yaml:5: xr: no such headset "vision-pro" (one of metaQuest3, metaQuest2, metaQuestPro, oculusQuest1)`}},
		{"unknown backend", head + "xr: metaQuest3\nxrBackend: unity\n" + state, []string{`task.yaml:6: xrBackend: "unity" needs xr: and is one of iwer, xrblocks`}},
		{"XR Blocks on a Quest 2", head + "xr: metaQuest2\nxrBackend: xrblocks\n" + state, []string{`task.yaml:6: xrBackend: xrblocks simulates XR Blocks' own device: want xr: metaQuest3`}},
		{"backend without a headset", head + "xrBackend: xrblocks\n" + state, []string{`task.yaml:5: xrBackend: "xrblocks" needs xr: and is one of iwer, xrblocks`}},
		{"room without xr", head + "room: living_room\n" + state, []string{"task.yaml:5: room: a room needs a headset: set xr: too"}},
		{"unknown room", head + "xr: metaQuest3\nroom: kitchen\n" + state, []string{`task.yaml:6: room: no such room "kitchen" (one of living_room, meeting_room, music_room, office_large, office_small, or a .json file in the task folder)`}},
		{"room outside the folder", head + "xr: metaQuest3\nroom: ../kitchen.json\n" + state, []string{`task.yaml:6: room: room file "../kitchen.json" must be a plain path inside the task folder`}},
		{"room not written plainly", head + "xr: metaQuest3\nroom: ./kitchen.json\n" + state, []string{`task.yaml:6: room: room file "./kitchen.json" must be a plain path inside the task folder`}},
		{"scaffold outside", head + "scaffold: ../x/index.html\n" + state, []string{`task.yaml:5: scaffold "../x/index.html": want a path inside the task folder, e.g. scaffold/index.html`}},
		{"scaffold alone", head + "scaffold: index.html\n" + state, []string{`task.yaml:5: scaffold "index.html": put the scaffold in a folder of its own (e.g. scaffold/index.html): every file beside it goes into the prompt`}},
		{"scaffold not a page", head + "scaffold: scaffold/app.js\n" + state, []string{`task.yaml:5: scaffold "scaffold/app.js": want an .html page`}},
		{"syntax", "id: [\n", []string{"task.yaml:1: did not find expected node content"}},
		{"empty", "", []string{"task.yaml: empty file"}},
		{"missing", "title: X\n", []string{"task.yaml:1: missing id", "task.yaml:1: missing category", "task.yaml:1: missing difficulty", "task.yaml:1: missing state"}},
		{"enums and ranges", "id: physics/X\ntitle: X\ncategory: physics\ndifficulty: D7\nfps: 0\nframes: -1\ntimeout: -1s\nhuman_hours: -1\nviewport: {width: 0, height: 10}\n" + state, []string{
			`task.yaml:3: unknown category "physics" (want one of simulation, rendering, application, xr, world)`,
			`task.yaml:1: id "physics/X": want <category>/<slug>, the slug in lower-case letters, digits and dashes`,
			`task.yaml:4: unknown difficulty "D7" (want D1 … D6)`,
			"task.yaml:8: human_hours must be > 0 (leave it out to use the difficulty's default, 0 h for D7)",
			"task.yaml:9: viewport: want width and height between 1 and 8192",
			"task.yaml:5: fps must be > 0 and <= 1000",
			"task.yaml:6: frames (the frame budget) must be > 0",
			"task.yaml:7: timeout must be > 0"}},
		{"id not in category", "id: rendering/x\ntitle: X\ncategory: simulation\ndifficulty: D1\n" + state,
			[]string{`task.yaml:1: id "rendering/x" is not in category "simulation"`}},
		{"state", head + `state:
  - {path: ball.position, type: vec3}
  - {path: ball.position, type: vec3}
  - {path: 2d, type: number}
  - {path: mode, type: enum}
  - {path: speed, type: number, values: [a]}
  - {path: kind, type: colour}
  - {type: number}
  - {path: label}
  - {path: ball, type: number}
  - {path: mood, type: enum, values: [a, a]}
`, []string{
			`task.yaml:7: state path "ball.position" declared twice (also state[0])`,
			`task.yaml:8: state path "2d": want dotted names (letters, digits, _), e.g. ball.position`,
			"task.yaml:9: state mode: an enum needs values",
			"task.yaml:10: state speed: values are for enums only",
			`task.yaml:11: state kind: unknown type "colour" (want one of number, integer, boolean, string, vec2, vec3, array, object, enum)`,
			"task.yaml:12: state[6]: missing path",
			"task.yaml:13: state label: missing type (number, integer, boolean, string, vec2, vec3, array, object, enum)",
			`task.yaml:15: state mood: value "a" listed twice`,
			"task.yaml:6: state ball.position is below ball, which is a number, not an object",
			"task.yaml:7: state ball.position is below ball, which is a number, not an object"}},
		{"empty state", head + "state: []\n", []string{"task.yaml:5: state: declare at least one path"}},
		{"params", head + state + `params:
  gravity: {default: 20, min: 5, max: 15}
  low: {default: 1, min: 2}
  swapped: {default: 1, min: 2, max: 0}
  nodefault: {min: 0}
  bad-name: {default: 1}
`, []string{
			"task.yaml:12: param name \"bad-name\": use letters, digits and _ (it is read as params.bad-name)",
			"task.yaml:8: param gravity: default 20 is outside [5, 15]",
			"task.yaml:9: param low: default 1 is outside [2, ∞]",
			"task.yaml:11: param nodefault: missing default",
			"task.yaml:10: param swapped: min 2 is above max 0"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("task.yaml", []byte(c.src))
			require.Error(t, err)
			require.Equal(t, c.want, strings.Split(err.Error(), "\n"), "got:\n%s", err)
		})
	}
}

func TestLoadFolderMismatch(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "simulation", "Bouncing_Ball")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "task.yaml"),
		[]byte("title: X\nid: simulation/bouncing-ball\ncategory: simulation\ndifficulty: D1\nstate: [{path: a, type: number}]\n"), 0o644))
	_, err := Load(dir)
	require.Error(t, err)
	file := filepath.ToSlash(filepath.Join(dir, "task.yaml"))
	require.Equal(t, file+`:2: id "simulation/bouncing-ball" does not match its folder: want "simulation/Bouncing_Ball" (<category>/<slug>)`+"\n"+
		file+`: folder name "Bouncing_Ball" is not a slug (lower-case letters, digits and single dashes)`, err.Error())

	_, err = Load(t.TempDir())
	require.ErrorIs(t, err, os.ErrNotExist)
}

func TestLoadSuite(t *testing.T) {
	tasks, err := LoadSuite("testdata/suite")
	require.NoError(t, err)
	var ids []string
	for _, tk := range tasks {
		ids = append(ids, tk.ID)
	}
	require.Equal(t, []string{"rendering/lit-cube", "simulation/bouncing-ball"}, ids)

	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "world", "empty"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".git", "objects"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "xr", "bad"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "xr", "bad", "task.yaml"), []byte("id: xr/bad\n"), 0o644))
	tasks, err = LoadSuite(dir)
	require.Empty(t, tasks)
	require.ErrorContains(t, err, filepath.ToSlash(filepath.Join(dir, "world", "empty"))+": no task.yaml in this task folder")
	require.ErrorContains(t, err, "task.yaml:1: missing title")
}

func TestFixtures(t *testing.T) {
	tk, err := Load(ballDir)
	require.NoError(t, err)
	fx, err := tk.Fixtures()
	require.NoError(t, err)
	require.Len(t, fx, 2)
	require.Equal(t, Fixture{Name: "crashes", Dir: filepath.Join(ballDir, "candidates", "crashes"),
		Page:   filepath.Join(ballDir, "candidates", "crashes", "index.html"),
		Expect: Expect{Reason: "throws at load", Outcome: "crash", CrashKind: "js_exception"}}, fx[0])
	require.Equal(t, Expect{Reason: "the ball never falls", Fails: []string{"falls_under_gravity"}, Outcome: "ok",
		Attribution: "other"}, fx[1].Expect)

	cube, err := Load("testdata/suite/rendering/lit-cube")
	require.NoError(t, err)
	fx, err = cube.Fixtures()
	require.NoError(t, err)
	require.Empty(t, fx)
}

func TestParseExpectErrors(t *testing.T) {
	cases := map[string][]string{
		"fails: [a]\n":                        {"expect.yaml:1: missing reason: say what is wrong with this candidate"},
		"reason: x\n":                         {"expect.yaml:1: a candidate with outcome ok must list the probes it fails"},
		"reason: x\nfails: [a, a]\nwhy: no\n": {`expect.yaml:3: unknown field "why"`},
		"reason: x\nfails: [a, a]\n":          {"expect.yaml:2: probe a listed twice"},
		"reason: x\noutcome: crash\n":         {"expect.yaml:2: outcome crash needs crash_kind, one of load_failed, js_exception, no_webgl, webgl_context_lost, render_loop_dead, timeout, page_crashed, runtime_error"},
		"reason: x\noutcome: crash\ncrash_kind: js_exception\nfails: [a]\nattribution: other\n": {
			"expect.yaml:4: a crash fails every probe: leave fails out",
			"expect.yaml:5: a crash is attributed to crash, not other"},
		"reason: x\nfails: [a]\ncrash_kind: timeout\nattribution: crash\n": {
			"expect.yaml:3: crash_kind is for outcome: crash only",
			"expect.yaml:4: attribution crash needs outcome: crash"},
		"reason: x\nfails: [a]\nattribution: gremlins\noutcome: maybe\n": {
			`expect.yaml:4: unknown outcome "maybe" (want ok or crash)`,
			`expect.yaml:3: unknown attribution "gremlins" (want one of crash, schema_drift, state_mismatch, physics_violation, broken_interaction, other)`},
	}
	// Every kind a page can be given can be expected, runtime_error included.
	e, err := ParseExpect("expect.yaml", []byte("reason: x\noutcome: crash\ncrash_kind: runtime_error\n"))
	require.NoError(t, err)
	require.Equal(t, "runtime_error", e.CrashKind)
	for src, want := range cases {
		t.Run(src, func(t *testing.T) {
			_, err := ParseExpect("expect.yaml", []byte(src))
			require.Error(t, err)
			require.Equal(t, want, strings.Split(err.Error(), "\n"))
		})
	}
}

func TestFixtureProblems(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "candidates", "nopage"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "candidates", "nopage", "expect.yaml"), []byte("reason: x\nfails: [a]\n"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "candidates", "noexpect"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "candidates", "noexpect", "index.html"), nil, 0o644))
	tk := &Task{ID: "world/x", Dir: dir}
	fx, err := tk.Fixtures()
	require.Len(t, fx, 0)
	require.ErrorContains(t, err, "candidate noexpect: no such file or directory")
	require.ErrorContains(t, err, "candidate nopage has no index.html")
}

func TestDigest(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, body string) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	write("task.yaml", "id: x")
	write("solution/index.html", "<html>")
	tk := &Task{ID: "world/x", Dir: dir}
	d1, err := tk.Digest()
	require.NoError(t, err)
	sum := sha256.Sum256([]byte("solution/index.html\x006\x00<html>task.yaml\x005\x00id: x"))
	require.Equal(t, hex.EncodeToString(sum[:]), d1)

	write(".DS_Store", "junk")
	write(".git/HEAD", "ref")
	d2, err := tk.Digest()
	require.NoError(t, err)
	require.Equal(t, d1, d2, "dotfiles are not digested")

	write("solution/index.html", "<html>!")
	d3, err := tk.Digest()
	require.NoError(t, err)
	require.NotEqual(t, d1, d3)

	require.NoError(t, os.Rename(filepath.Join(dir, "solution"), filepath.Join(dir, "solutions")))
	write("solution/index.html", "<html>")
	require.NoError(t, os.RemoveAll(filepath.Join(dir, "solutions")))
	d4, err := tk.Digest()
	require.NoError(t, err)
	require.Equal(t, d1, d4, "same files, same digest")

	write("assets/a.txt", "")
	d5, err := tk.Digest()
	require.NoError(t, err)
	require.NotEqual(t, d1, d5, "an empty file still counts")
}

func TestPromptInterface(t *testing.T) {
	tk, err := Load(ballDir)
	require.NoError(t, err)
	want := "## State interface\n\n" +
		"Expose the page's state as `window.__3D_STATE__`: a plain object (getters are fine) that is read as JSON at any frame, so keep it current every frame. " +
		"A dotted path `a.b` means `window.__3D_STATE__.a.b`. It must contain:\n\n" +
		"| Path | Type | Unit | Meaning | Values |\n|---|---|---|---|---|\n" +
		"| `ball.position` | vec3 | m | centre of the ball |  |\n" +
		"| `ball.bounces` | integer |  | times the ball hit the floor |  |\n" +
		"| `paused` | boolean |  | whether the simulation is paused \\| frozen |  |\n" +
		"| `mode` | enum |  |  | `\"run\"`, `\"stop\"` |\n" +
		"\nTypes: `integer` is a whole number; `boolean` is true or false; `vec3` is an array [x, y, z] of 3 numbers; `enum` is one of the listed strings. Numbers must be finite.\n"
	require.Equal(t, want, PromptInterface(tk))

	cube, err := Load("testdata/suite/rendering/lit-cube")
	require.NoError(t, err)
	require.Contains(t, PromptInterface(cube), "| Path | Type | Unit | Meaning |\n|---|---|---|---|\n| `cube.color` | string |  | colour of the cube as #rrggbb |\n")
}
