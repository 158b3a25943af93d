package report

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func readStrings(rs []read) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.From+":"+r.Name+":"+r.Path.String())
	}
	return out
}

func TestExprReads(t *testing.T) {
	snaps := map[string]bool{"before": true, "after": true}
	for expr, want := range map[string][]string{
		"approx(s.x - before.x, 1.0, 0.05)":                       {"s::x", "snapshot:before:x"},
		"after.ball.position[1] < before.ball.position[1]":        {"snapshot:after:ball.position[1]", "snapshot:before:ball.position[1]"},
		"maxOf(trace.late.map(x, abs(x.pendulum.angle))) <= 0.36": {"trace:late:pendulum.angle"},
		// Two reads of one path are one; x bound over a list literal is not a trace.
		"trace.late.all(x, 9.81 * (x.bob.position[1] - 3.0) + x.pendulum.angularVelocity * x.pendulum.angularVelocity <= 0.6)": {
			"trace:late:bob.position[1]", "trace:late:pendulum.angularVelocity"},
		"[t / 2.0].all(p, [p * p].all(x, approx(s.pendulum.angle, 0.349 * x, 0.02)))": {"s::pendulum.angle"},
		// A macro over a state list: its variable is an element, not a state.
		`s.bars.map(b, b.value) == [12, 30, 7, 22, 18]`:             {"s::bars"},
		`dom("#tooltip.s.x").exists && s.hovered == "Thu"`:          {"s::hovered"},
		`object("ball").position[1] > 0.49 && has(s.ball.velocity)`: {"s::ball.velocity"},
		`trace.fall[0].ball.position[1] > s["odd key"].y`:           {"trace:fall:ball.position[1]", `s::["odd key"].y`},
		"params.gravity > 0.0 && frame > 2 && unknown.x == 1":       nil,
		`s.size() > 0 && '\'s.y\'' != "" && r"s.z" != ""`:           nil,
	} {
		require.Equal(t, want, readStrings(exprReads(expr, snaps)), expr)
	}
}

func TestInterfaceRead(t *testing.T) {
	r, ok := interfaceRead("ball.position: vec3")
	require.True(t, ok)
	require.Equal(t, "s::ball.position", readStrings([]read{r})[0])
	_, ok = interfaceRead("a b: number")
	require.False(t, ok)
}

func TestLookup(t *testing.T) {
	state := map[string]any{"ball": map[string]any{"position": []any{0.0, 3.5, 0.0}}, "odd key": map[string]any{"y": 2.0}}
	v, ok := lookup(state, statePath{{Key: "ball"}, {Key: "position"}, {Index: 1}})
	require.True(t, ok)
	require.Equal(t, 3.5, v)
	_, ok = lookup(state, statePath{{Key: "ball"}, {Key: "position"}, {Index: 3}})
	require.False(t, ok)
	_, ok = lookup(state, statePath{{Key: "ball"}, {Index: 0}})
	require.False(t, ok)
	require.Equal(t, 3, vectorLen(state["ball"].(map[string]any)["position"]))
	require.Equal(t, 0, vectorLen([]any{1.0}))
	require.Equal(t, 0, vectorLen([]any{1.0, "a"}))
}
