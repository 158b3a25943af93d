package inspect

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// glPage is a page that draws a WebGL point every frame, counting frames
// in n, with state as its __3D_STATE__ script.
func glPage(t *testing.T, state string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "index.html")
	html := `<!doctype html><canvas id=c width=64 height=64></canvas><script>
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
requestAnimationFrame(frame);
` + state + `
</script>`
	require.NoError(t, os.WriteFile(p, []byte(html), 0o644))
	return p
}

// TestEarlyStateRead: with StateAt the load check also reads the state after
// that many frames when the read leaves the page untouched, and its report
// is the one an inspection without it gives, whatever the page does when
// read: a getter that would stop the page's loop is stopped by V8 before
// it does (no early state, the loop alive), and one that hangs makes the
// inspection start again without the early read, in a fresh tab.
func TestEarlyStateRead(t *testing.T) {
	cases := []struct {
		name    string
		state   string
		early   string // the early state's JSON, "" for none
		outcome string
		kind    string
	}{
		{"plain data", `window.__3D_STATE__ = {get n() { return n; }, label: 'x'};`, `{"label":"x","n":5}`, OutcomeOK, ""},
		{"no state", ``, `null`, OutcomeOK, ""},
		{"a getter that stops the loop", `window.__3D_STATE__ = {get n() { stopped = true; return n; }};`, "", OutcomeOK, ""},
		{"a getter that hangs", `window.__3D_STATE__ = {get n() { for (;;) {} }};`, "", OutcomeCrash, CrashTimeout},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := glPage(t, c.state)
			plain := run(t, inspector(t, func(o *Options) { o.Timeout = 5 * time.Second; o.GPUTime = 5 * time.Second }), path)
			withEarly := run(t, inspector(t, func(o *Options) { o.Timeout = 5 * time.Second; o.GPUTime = 5 * time.Second; o.StateAt = 5 }), path)
			require.Nil(t, plain.Early)
			if c.early == "" {
				require.Nil(t, withEarly.Early)
			} else {
				require.NotNil(t, withEarly.Early)
				require.Equal(t, 5, withEarly.Early.Frame)
				require.Equal(t, 60.0, withEarly.Early.FPS)
				require.Equal(t, c.early, string(withEarly.Early.State.JSON))
			}
			require.Equal(t, c.outcome, plain.Outcome, "%+v", plain.Crash)
			if c.kind != "" {
				require.Equal(t, c.kind, plain.Crash.Kind)
			}
			withEarly.Early, withEarly.Timing, plain.Timing = nil, Timing{}, Timing{}
			require.Equal(t, plain, withEarly, "the same report with and without the early read")
		})
	}
}

// TestEarlyStateReadContextCancelled: a cancelled inspection is an error,
// not a page's verdict, with the early read too.
func TestEarlyStateReadContextCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := inspector(t, func(o *Options) { o.StateAt = 5 }).Inspect(ctx, glPage(t, ""))
	require.ErrorIs(t, err, context.Canceled)
}
