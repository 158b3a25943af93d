package task

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestLintClean(t *testing.T) {
	for _, dir := range []string{ballDir, "testdata/suite/rendering/lit-cube"} {
		tk, err := Load(dir)
		require.NoError(t, err)
		require.Empty(t, Lint(tk), dir)
	}
}

// copyDir copies a task folder into a temp suite, keeping <category>/<slug>.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(filepath.Dir(src)), filepath.Base(src))
	require.NoError(t, filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		require.NoError(t, err)
		rel, _ := filepath.Rel(src, p)
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	}))
	return dst
}

func TestLintFindings(t *testing.T) {
	dir := copyDir(t, ballDir)
	write := func(rel, body string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, rel), []byte(body), 0o644))
	}
	write("brief.md", "Drop a ball. Expose ball.positions, ball.bounces and mode.\n")
	write("contract.yaml", `version: 1
probes:
  - name: falls
    level: state
    steps:
      - snapshot: before
      - step: 30
      - assert: s.ball.velocity[1] < 0 && before.ball.position[1] > 0 && s.ball.bounces == 0
      - assert: s.ball == before.ball && s.balls[0].x > 0 && params.wind > 0 && params.gravity > 0
      - trace: {name: run, frames: 900}
      - assert: trace.run.all(x, x.paused == false && x.ball.spin.z >= 0)
  - name: grab
    level: state
    hands: mirror
    steps:
      - hand: {hand: left, pinch: 1}
      - step: 901
      - assert: s.mode == "grab"
`)
	write("candidates/no-gravity/expect.yaml", "reason: the ball never falls\nfails: [falls_under_gravity, falls, interface, grab]\n")
	require.NoError(t, os.Remove(filepath.Join(dir, "solution", "index.html")))
	tk, err := Load(dir)
	require.NoError(t, err)
	var got []string
	for _, f := range Lint(tk) {
		rel, err := filepath.Rel(dir, f.File)
		require.NoError(t, err)
		f.File = filepath.ToSlash(rel)
		got = append(got, f.String())
	}
	require.Equal(t, []string{
		"brief.md: the brief never names state path ball.position; name every declared path so the model knows what it means",
		"brief.md: the brief never names state path paused; name every declared path so the model knows what it means",
		"brief.md: the brief never states parameter gravity: write its value as {{params.gravity}}",
		"brief.md: the brief never states parameter restitution: write its value as {{params.restitution}}",
		"solution/index.html: missing reference solution: no such file or directory",
		"contract.yaml:3: probe falls steps 931 frames, more than the task's frame budget of 900",
		"contract.yaml:12: probe grab steps 903 frames, more than the task's frame budget of 900",
		"contract.yaml:8: probe falls reads s.ball.velocity[1], which is not in the declared state interface",
		"contract.yaml:9: probe falls reads s.balls[0].x, which is not in the declared state interface",
		"contract.yaml:9: probe falls reads params.wind, which task.yaml does not declare",
		"contract.yaml:11: probe falls reads trace.run.ball.spin.z, which is not in the declared state interface",
		"brief.md: the brief has no requirements: write them as top-level bullets under ## sections, each ending with {#id}",
		"candidates/no-gravity/expect.yaml: fails names probe falls_under_gravity, which the contract does not have",
		`candidates/no-gravity/expect.yaml: fails names probe grab, which the contract does not have (it has hands: mirror: name its runs, "grab[left]", "grab[right]")`,
	}, got)
}

func TestLintRequirements(t *testing.T) {
	dir := copyDir(t, ballDir)
	write := func(rel, body string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, rel), []byte(body), 0o644))
	}
	write("brief.md", `# Ball

## Behaviour

- Drop a ball ({{params.gravity}}, {{params.restitution}}). {#falls}
- Expose `+"`ball.position`"+`, `+"`ball.bounces`"+`, `+"`paused`"+` and `+"`mode`"+`. {#state}
- Bounce forever. {#falls}
- The #pause button pauses. {#pause}
- Nobody checks this.
`)
	write("contract.yaml", `version: 1
probes:
  - name: falls
    level: state
    covers: [falls, gone]
    steps:
      - step: 3
      - assert: s.ball.position[1] < 10.0
  - name: silent
    level: state
    steps:
      - step: 3
      - assert: s.paused == false
`)
	tk, err := Load(dir)
	require.NoError(t, err)
	var got []string
	for _, f := range Lint(tk) {
		rel, err := filepath.Rel(dir, f.File)
		require.NoError(t, err)
		f.File = filepath.ToSlash(rel)
		if strings.HasPrefix(f.File, "candidates/") {
			continue
		}
		got = append(got, f.String())
	}
	require.Equal(t, []string{
		"brief.md:7: requirement id falls is already used at line 5",
		`brief.md:9: requirement in section "Behaviour" has no id: end the bullet with {#some-id} (Nobody checks this.)`,
		"contract.yaml:3: probe falls covers gone, which the brief has no requirement for",
		"contract.yaml:9: probe silent says nothing about what it covers: list the requirement ids of the brief it checks (covers: [id, …])",
		"brief.md:6: requirement state (Behaviour) is covered by no probe: add a probe that can break it, and name state in its covers (Expose `ball.position`, `ball.bounces`, `paused` and `mode`.)",
		"brief.md:8: requirement pause (Behaviour) is covered by no probe: add a probe that can break it, and name pause in its covers (The #pause button pauses.)",
	}, got)
}

func TestLintBrokenContract(t *testing.T) {
	dir := copyDir(t, ballDir)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "contract.yaml"), []byte("version: 1\nprobes:\n  - name: a\n    level: state\n    steps:\n      - assert: s.x <\n  - name: b\n    level: state\n    steps:\n      - step: 0\n      - assert: s.x <\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "candidates", "crashes", "expect.yaml"), []byte("reason: x\noutcome: crash\n"), 0o644))
	tk, err := Load(dir)
	require.NoError(t, err)
	var got []string
	for _, f := range Lint(tk) {
		got = append(got, strings.TrimPrefix(filepath.ToSlash(f.File), filepath.ToSlash(dir)+"/")+":"+f.Message)
	}
	require.Len(t, got, 3, strings.Join(got, "\n"))
	require.True(t, strings.HasPrefix(got[0], "contract.yaml:probe a: assert: 1:6: Syntax error"), got[0])
	require.Equal(t, "contract.yaml:probe b: steps: step (frames): want a whole number >= 1, got 0", got[1], "b's assertion is not compiled while its steps are broken")
	require.Equal(t, "candidates/crashes/expect.yaml:outcome crash needs crash_kind, one of load_failed, js_exception, no_webgl, webgl_context_lost, render_loop_dead, timeout, page_crashed, runtime_error", got[2])
}

func TestMentions(t *testing.T) {
	require.True(t, mentions("the `ball.position` is", "ball.position"))
	require.True(t, mentions("ball.position", "ball.position"))
	require.True(t, mentions("__3D_STATE__.ball.position.", "ball.position"))
	require.False(t, mentions("ball.positions", "ball.position"))
	require.False(t, mentions("myball.position", "ball.position"))
	require.True(t, mentions("myball.position and ball.position", "ball.position"))
	require.False(t, mentions("", "x"))
}
