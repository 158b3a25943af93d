package xr

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestExploreHook(t *testing.T) {
	ctx := context.Background()
	s := open(t, filepath.Join("testdata", "xr-world.html"), Options{})
	_, err := s.Step(ctx, 5, true)
	require.NoError(t, err)
	var out string
	for _, e := range []string{
		`String(__wpXRHook.state())`, `String(__wpXRHook.events())`,
		`__wp.objectInfo("gem")`, `__wp.taggedInfo("grabbable", "")`,
		`__wp.xrView({name: "panel"})`, `__wp.xrView({name: "marker"})`, `__wp.xrView({tag: true, role: "grabbable", name: "ball"})`,
	} {
		require.NoError(t, s.Eval(ctx, 0, e, &out))
		t.Logf("%s => %s", e, out)
	}
	require.NoError(t, s.Eval(ctx, 0, `__wpXR.primaryInputMode = 'hand', __wpXR.hands.right.position.set(0.2, 1.3, -0.4), 'ok'`, &out))
	_, err = s.Step(ctx, 2, true)
	require.NoError(t, err)
	require.NoError(t, s.Eval(ctx, 0, `__wpXR.hands.right.updatePinchValue(1), 'ok'`, &out))
	_, err = s.Step(ctx, 2, true)
	require.NoError(t, err)
	require.NoError(t, s.Eval(ctx, 0, `__wpXR.hands.right.updatePinchValue(0), 'ok'`, &out))
	_, err = s.Step(ctx, 2, true)
	require.NoError(t, err)
	for _, e := range []string{`String(__wpXRHook.state())`, `String(__wpXRHook.events())`} {
		require.NoError(t, s.Eval(ctx, 0, e, &out))
		t.Logf("%s => %s", e, out)
	}
}
