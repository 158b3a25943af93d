package session

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestReadStateUntouched reads the state in V8's side-effect-free mode:
// plain data, a getter and a state function that only compute give the
// same state as ReadState; a getter, a Proxy trap or a state function that
// changes the page is stopped before its change, nothing is read, and the
// page is as if nobody had read it.
func TestReadStateUntouched(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name      string
		script    string
		untouched bool
		want      string // the state ReadState returns (when untouched)
	}{
		{"plain data", `window.__3D_STATE__ = {ball: {position: [1, 2.5, 0]}, n: frames, label: "x"};`, true,
			`{"ball":{"position":[1,2.5,0]},"label":"x","n":1}`},
		{"a pure getter", `window.__3D_STATE__ = {get n() { return frames * 2; }, v: [NaN, 1]};`, true,
			`{"n":8,"v":["NaN",1]}`},
		{"a pure state function", `window.__3D_STATE__ = () => ({n: frames, list: [1, 2].map((x) => x * frames)});`, true,
			`{"list":[4,8],"n":4}`},
		{"a getter that counts its reads", `window.__3D_STATE__ = {get n() { reads++; return frames; }};`, false, ""},
		{"a state function that caches", `const cache = {}; window.__3D_STATE__ = () => { cache.last = frames; return {n: frames}; };`, false, ""},
		{"a Proxy whose trap counts", `window.__3D_STATE__ = new Proxy({n: 1}, {get(t, k) { reads++; return t[k]; }});`, false, ""},
		{"an index setter on Array.prototype", `Object.defineProperty(Array.prototype, "0", {set(v) {}, get() { return 7; }, configurable: true});
window.__3D_STATE__ = {v: [1, 2]};`, false, ""},
		{"a getter that throws", `window.__3D_STATE__ = {get n() { throw new Error("no n"); }, m: 1};`, true, `{"m":1}`},
		{"a getter that fakes V8's refusal", `window.__3D_STATE__ = {get n() { throw new EvalError("Possible side-effect in debug-evaluate"); }, m: 1};`, true, `{"m":1}`},
	}
	dir := t.TempDir()
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			page := filepath.Join(dir, "p"+string(rune('a'+i))+".html")
			// frames counts animation-frame callbacks: 1 at load, 4 after
			// three stepped frames.
			html := `<!doctype html><script>let frames = 0; window.reads = 0;
(function f() { frames++; requestAnimationFrame(f); })();
` + c.script + `</script>`
			require.NoError(t, os.WriteFile(page, []byte(html), 0o644))
			s := open(t, page)
			_, err := s.Step(ctx, 3, false)
			require.NoError(t, err)
			st, untouched, err := s.ReadStateUntouched(ctx)
			require.NoError(t, err)
			require.Equal(t, c.untouched, untouched)
			var reads int
			require.NoError(t, s.Eval(ctx, 0, "window.reads", &reads))
			require.Equal(t, 0, reads, "the page's read counter did not move")
			if !c.untouched {
				require.Equal(t, State{}, st)
				return
			}
			require.Equal(t, c.want, string(st.JSON))
			again, err := s.ReadState(ctx)
			require.NoError(t, err)
			require.Equal(t, again.JSON, st.JSON)
			require.Equal(t, again.Hash, st.Hash)
		})
	}
}
