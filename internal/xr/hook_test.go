package xr

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/session"
)

// hookRead calls the XR hook's reader (state or events).
func hookRead(t *testing.T, s *session.Session, what string) string {
	t.Helper()
	var out string
	require.NoError(t, s.Eval(context.Background(), 0, "String(window."+HookGlobal+"."+what+"())", &out))
	return out
}

// drive runs a statement on the emulated device and steps frames.
func drive(t *testing.T, s *session.Session, js string, frames int) {
	t.Helper()
	var ok bool
	require.NoError(t, s.Eval(context.Background(), 0, "(() => { const d = window."+DeviceGlobal+"; "+js+"; return true; })()", &ok))
	_, err := s.Step(context.Background(), frames, true)
	require.NoError(t, err)
}

// TestHookRecordsWhatThePageSees: the hook logs the session's input-source
// changes and select events with the frame they came in, and samples the
// head and inputs each XR frame as the page sees them (local-floor space).
// The runtime describes objects in world frame whatever their parents and
// sees them through three's XR eye cameras.
func TestHookRecordsWhatThePageSees(t *testing.T) {
	ctx := context.Background()
	s := open(t, filepath.Join("testdata", "xr-world.html"), Options{})
	_, err := s.Step(ctx, 5, true)
	require.NoError(t, err)
	require.JSONEq(t, `{"session":true,"mode":"immersive-vr","presenting":true,"visibility":"visible","frames":5,
		"head":{"position":[0,1.6,0],"orientation":[0,0,0,1],"forward":[0,0,-1]},
		"inputs":[{"hand":"left","input":"controller","tracked":true,"position":[-0.25398,1.484142,-0.350358]},
		          {"hand":"right","input":"controller","tracked":true,"position":[0.25398,1.484142,-0.350358]}]}`, hookRead(t, s, "state"))

	// The gem: T(0.25, 0, 0) under holder (T(0, 0.5, 0), 90° about x) under
	// base (T(1, 0, -2), 90° about y, scale 2).
	gem, err := s.Object(ctx, "gem")
	require.NoError(t, err)
	require.Equal(t, []float64{1, 1, -2.5}, gem.Position)
	require.Equal(t, []float64{0.5, 0.5, -0.5, 0.5}, gem.Quaternion)
	require.Equal(t, []float64{2, 2, 2}, gem.Scale)
	require.Equal(t, []float64{0, -1, 0}, gem.Forward)
	require.Equal(t, &session.Bounds{Min: []float64{0.8, 0.7, -2.6}, Max: []float64{1.2, 1.3, -2.4}}, gem.BBox)
	require.Equal(t, &session.Semantic{Role: "grabbable", Name: "gem"}, gem.Semantic)
	panel, err := s.Object(ctx, "panel")
	require.NoError(t, err)
	require.Nil(t, panel.Semantic)

	tagged, err := s.Tagged(ctx, "grabbable", "")
	require.NoError(t, err)
	require.Len(t, tagged, 2)
	require.Equal(t, "gem", tagged[0].Name)
	require.Equal(t, "ball", tagged[1].Name)
	tagged, err = s.Tagged(ctx, "", "table")
	require.NoError(t, err)
	require.Len(t, tagged, 1)
	require.Equal(t, []float64{-0.5, 0.65, -1.5}, tagged[0].BBox.Min)

	view := func(ref session.ObjectRef) session.XRView {
		t.Helper()
		v, err := s.XRView(ctx, ref)
		require.NoError(t, err)
		return v
	}
	// 800×600, 90° vertical field of view: the 0.5 m panel 1 m ahead
	// covers 0.375 × 0.5 of the view's NDC square.
	require.Equal(t, session.XRView{InView: true, Coverage: 0.046875}, view(session.ObjectRef{Name: "panel"}))
	require.Equal(t, session.XRView{InView: false, Coverage: 0}, view(session.ObjectRef{Name: "marker"}))
	require.Equal(t, session.XRView{InView: true, Coverage: 0.014731}, view(session.ObjectRef{Tag: true, Role: "grabbable", Name: "ball"}))
	_, err = s.XRView(ctx, session.ObjectRef{Tag: true, Role: "grabbable"})
	require.EqualError(t, err, `2 scene objects are tagged {"role":"grabbable","name":""}: name one (tagged() lists them): target not found`)
	_, err = s.XRView(ctx, session.ObjectRef{Name: "nothing"})
	require.EqualError(t, err, `no scene object named "nothing": target not found`)

	// The left controller's squeeze, the session blurred and back, then
	// hands and the right hand's pinch. IWER fires squeeze with
	// squeezestart, as it does select, and takes the input sources away
	// while the session is blurred.
	drive(t, s, `d.controllers.left.updateButtonValue('squeeze', 1)`, 1)
	drive(t, s, `d.controllers.left.updateButtonValue('squeeze', 0)`, 1)
	drive(t, s, `d.updateVisibilityState('visible-blurred')`, 1)
	var st struct {
		Visibility string
		Frames     int
	}
	require.NoError(t, json.Unmarshal([]byte(hookRead(t, s, "state")), &st))
	require.Equal(t, "visible-blurred", st.Visibility)
	drive(t, s, `d.updateVisibilityState('visible')`, 1)
	drive(t, s, `d.primaryInputMode = 'hand'; d.hands.right.position.set(0.2, 1.3, -0.4)`, 2)
	drive(t, s, `d.hands.right.updatePinchValue(1)`, 2)
	drive(t, s, `d.hands.right.updatePinchValue(0)`, 2)
	require.JSONEq(t, `[
		{"type":"inputsourceschange","hand":"left","input":"controller","frame":1,"change":"added"},
		{"type":"inputsourceschange","hand":"right","input":"controller","frame":1,"change":"added"},
		{"type":"squeeze","hand":"left","input":"controller","frame":6},
		{"type":"squeezestart","hand":"left","input":"controller","frame":6},
		{"type":"squeezeend","hand":"left","input":"controller","frame":7},
		{"type":"visibilitychange","hand":"","input":"","frame":8,"visibility":"visible-blurred"},
		{"type":"inputsourceschange","hand":"left","input":"controller","frame":8,"change":"removed"},
		{"type":"inputsourceschange","hand":"right","input":"controller","frame":8,"change":"removed"},
		{"type":"visibilitychange","hand":"","input":"","frame":9,"visibility":"visible"},
		{"type":"inputsourceschange","hand":"left","input":"controller","frame":9,"change":"added"},
		{"type":"inputsourceschange","hand":"right","input":"controller","frame":9,"change":"added"},
		{"type":"inputsourceschange","hand":"left","input":"hand","frame":10,"change":"added"},
		{"type":"inputsourceschange","hand":"right","input":"hand","frame":10,"change":"added"},
		{"type":"inputsourceschange","hand":"left","input":"controller","frame":10,"change":"removed"},
		{"type":"inputsourceschange","hand":"right","input":"controller","frame":10,"change":"removed"},
		{"type":"select","hand":"right","input":"hand","frame":12},
		{"type":"selectstart","hand":"right","input":"hand","frame":12},
		{"type":"selectend","hand":"right","input":"hand","frame":14}]`, hookRead(t, s, "events"))
	require.NoError(t, json.Unmarshal([]byte(hookRead(t, s, "state")), &st))
	require.Equal(t, 15, st.Frames)
	require.Equal(t, "visible", st.Visibility)

	// Turned around, the user sees the marker and not the panel: the
	// marker's near face, 0.2 m square 1.9 m ahead, spans (0.2 / 1.9) ×
	// 0.75 by 0.2 / 1.9 of the NDC square's sides, 0.002078 of the view.
	drive(t, s, `d.quaternion.set(0, 1, 0, 0)`, 1)
	require.Equal(t, session.XRView{InView: true, Coverage: 0.002078}, view(session.ObjectRef{Name: "marker"}))
	require.False(t, view(session.ObjectRef{Name: "panel"}).InView)

	// A geometry the page edits gets a new box: the panel's width doubled.
	panel, err = s.Object(ctx, "panel")
	require.NoError(t, err)
	require.Equal(t, []float64{-0.25, 1.35, -1}, panel.BBox.Min)
	drive(t, s, `stretchPanel()`, 1)
	panel, err = s.Object(ctx, "panel")
	require.NoError(t, err)
	require.Equal(t, &session.Bounds{Min: []float64{-0.5, 1.35, -1}, Max: []float64{0.5, 1.85, -1}}, panel.BBox)
}

// TestHookWithstandsAHostilePage: a page that replaces the built-ins the
// hook uses, tries to replace its reader and its wrappers and stops the
// propagation of its own select events is still seen whole.
func TestHookWithstandsAHostilePage(t *testing.T) {
	ctx := context.Background()
	s := open(t, filepath.Join("testdata", "xr-hostile.html"), Options{})
	_, err := s.Step(ctx, 3, true)
	require.NoError(t, err)
	drive(t, s, `d.primaryInputMode = 'hand'`, 1)
	drive(t, s, `d.hands.right.updatePinchValue(1)`, 1)
	drive(t, s, `d.hands.right.updatePinchValue(0)`, 1)
	raw, err := s.ReadState(ctx)
	require.NoError(t, err)
	var page struct {
		Frames, Selects int
		Tampered        []string
	}
	require.NoError(t, json.Unmarshal(raw.JSON, &page))
	require.Equal(t, []string{"hook deleted refused", "hook replaced refused", "hook redefined refused",
		"requestSession replaced refused", "requestSession redefined refused", "raf replaced refused"}, page.Tampered)
	require.Equal(t, 1, page.Selects)
	require.Greater(t, page.Frames, 0)
	var events []struct {
		Type, Hand string
		Frame      int
	}
	require.NoError(t, json.Unmarshal([]byte(hookRead(t, s, "events")), &events))
	var selects []string
	for _, e := range events {
		if e.Type == "select" || e.Type == "selectstart" || e.Type == "selectend" {
			selects = append(selects, e.Type+":"+e.Hand)
		}
	}
	require.Equal(t, []string{"select:right", "selectstart:right", "selectend:right"}, selects)
	var st struct {
		Presenting bool
		Frames     int
	}
	require.NoError(t, json.Unmarshal([]byte(hookRead(t, s, "state")), &st))
	require.True(t, st.Presenting)
	require.Equal(t, page.Frames, st.Frames, "the hook sampled every XR frame the page got")
	var keys []string
	require.NoError(t, s.Eval(ctx, 0, `Object.keys(window).filter((k) => k.startsWith('__wp'))`, &keys))
	require.Empty(t, keys)
}
