package trial

import (
	"context"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/result"
)

// messages is a slog handler that keeps every message.
type messages struct {
	mu   sync.Mutex
	msgs []string
}

func (m *messages) Enabled(context.Context, slog.Level) bool { return true }
func (m *messages) Handle(_ context.Context, r slog.Record) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.msgs = append(m.msgs, r.Message)
	return nil
}
func (m *messages) WithAttrs([]slog.Attr) slog.Handler { return m }
func (m *messages) WithGroup(string) slog.Handler      { return m }

func (m *messages) count(msg string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, x := range m.msgs {
		if x == msg {
			n++
		}
	}
	return n
}

// TestInterfaceProbeOnTheLoadCheck: the interface probe reads its state on
// the load check's page when that read leaves the page untouched, and the
// trial's verdict — every assertion, the state hash of its trace — is the
// one of a trial whose interface probe loads a page of its own (the load
// check skipped). A page whose state getter would stop its loop when read
// is not read so: its probe loads its own page, and its verdict is the
// same too.
func TestInterfaceProbeOnTheLoadCheck(t *testing.T) {
	contractText := `version: 1
probes:
  - name: counts
    level: state
    steps:
      - step: 10
      - assert: s.n == 11
      - step: 5
      - assert: s.n == 16
`
	state := "  - {path: n, type: integer}\n  - {path: label, type: string}\n"
	glPage := `<!doctype html><canvas id=c width=64 height=64></canvas><script>
const gl = document.getElementById('c').getContext('webgl');
const sh = (type, src) => { const x = gl.createShader(type); gl.shaderSource(x, src); gl.compileShader(x); return x; };
const prog = gl.createProgram();
gl.attachShader(prog, sh(gl.VERTEX_SHADER, 'void main() { gl_Position = vec4(0.0, 0.0, 0.0, 1.0); gl_PointSize = 8.0; }'));
gl.attachShader(prog, sh(gl.FRAGMENT_SHADER, 'void main() { gl_FragColor = vec4(1.0, 0.0, 0.0, 1.0); }'));
gl.linkProgram(prog);
let n = 0, stopped = false;
function frame() {
  n++;
  gl.clearColor(0, 0, 1, 1); gl.clear(gl.COLOR_BUFFER_BIT); gl.useProgram(prog); gl.drawArrays(gl.POINTS, 0, 1);
  if (!stopped) requestAnimationFrame(frame);
}
frame();
`
	for _, c := range []struct {
		name   string
		script string
		served int
		pass   bool
	}{
		{"plain state", `window.__3D_STATE__ = {get n() { return n; }, label: 'x'};`, 1, true},
		{"a getter that stops the loop", `window.__3D_STATE__ = {get n() { stopped = true; return n; }, label: 'x'};`, 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "simulation", "count")
			tk, ct := writeTask(t, dir, map[string]string{
				"task.yaml":       "id: simulation/count\ntitle: Count\ncategory: simulation\ndifficulty: D1\nstate:\n" + state,
				"brief.md":        "# Count\n\nExpose n.\n",
				"contract.yaml":   contractText,
				"page/index.html": glPage + c.script + "\n</script>",
			})
			logs := &messages{}
			r := &Runner{Browser: shared.Browser, Resolver: shared.Resolver, SkipDraw: true, Load: func() float64 { return 0.2 }, Logger: slog.New(logs)}
			in := Input{Key: "k", Task: tk, Contract: ct, Page: filepath.Join(dir, "page", "index.html"), Model: "m", Candidate: "c", Dir: t.TempDir()}
			viaLoad, err := r.Run(context.Background(), in)
			require.NoError(t, err)
			require.Equal(t, c.served, logs.count("the load check read the interface probe's state"))

			in.SkipInspect, in.Dir = true, t.TempDir()
			own, err := r.Run(context.Background(), in)
			require.NoError(t, err)
			require.Equal(t, c.served, logs.count("the load check read the interface probe's state"), "no load check, no early read")

			require.Equal(t, result.OutcomeOK, viaLoad.Outcome, "%s: %s", viaLoad.CrashKind, viaLoad.CrashMessage)
			require.Equal(t, c.pass, viaLoad.Pass)
			require.Equal(t, own.Assertions, viaLoad.Assertions)
			require.Equal(t, own.StateHash, viaLoad.StateHash)
			require.Equal(t, own.Pass, viaLoad.Pass)
			require.Equal(t, own.VCov, viaLoad.VCov)
			require.Equal(t, "n: integer", viaLoad.Assertions[0].Expr)
		})
	}
}
