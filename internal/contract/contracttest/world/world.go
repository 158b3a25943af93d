// Package world is the conformance world: one small scene that every
// implementation of contract.Page shows, so that contracttest.Conformance
// can check each against the same expected values. The real browser loads
// HTML; the in-memory fake page models the same world with the functions
// here. The package imports nothing of the project, so that the contract
// package's own tests can use it.
//
// The world: an 800×600 canvas at the page's top-left, cleared to
// rgb(10, 20, 30); a red ball (radius 0.5) at (0, Y, 0) that starts at
// Y = 10 and falls under gravity 10 (per frame: v -= 10·dt, y += v·dt,
// dt = 1/fps; below 0 it bounces back at half speed) unless paused; an
// invisible box "hidden" at (0, 0, 30), behind the camera; one ambient light; a camera at
// (0, 5, 20) looking at (0, 5, 0), vertical field of view 50°. A button
// #pause (text "Pause", "Resume" while paused) toggles pause when
// clicked, and so does the space key going down. An input #name takes
// typed text. The state is
//
//	{ball: {position: [0, y, 0], velocity: [0, v, 0]}, paused, frame,
//	 mode: "run", wheel: total deltaY, down: primary button down on the canvas}
package world

import (
	_ "embed"
	"math"
)

// XRHTML is the XR conformance world, a page for a session with the
// emulated headset (task.yaml xr:, package xr): a three.js app that
// requests immersive-vr at load and, on every XR frame, writes the state
//
//	{frames, head: viewer position [x, y, z], mode: "hand" | "controller",
//	 left, right: {ray: target ray position, dir: its -z, selecting (between
//	 selectstart and selectend), selects (select events), squeezing,
//	 trigger: button 0 of a controller, a: button 4, thumbstick: axes 2, 3}}
//
// with a 0.1 m box "target" at XRTarget. Positions are rounded to 1e-6.
//
//go:embed xr.html
var XRHTML []byte

// The XR world's constants: where IWER 2.5's Quest 3 starts the head
// and the controllers' and hands' target rays (the headset turned
// nowhere), where the box is, and the touching points of the right hand
// in its device's frame — the grip of IWER's Touch controller, the index
// fingertip of its relaxed hand — the fake page models.
var (
	XRHeadStart   = [3]float64{0, 1.6, 0}
	XRRightStart  = [3]float64{0.25, 1.5, -0.4}
	XRLeftStart   = [3]float64{-0.25, 1.5, -0.4}
	XRTarget      = [3]float64{0, 1.2, -1}
	XRGripOffset  = [3]float64{0.003979853354394436, -0.01585787907242775, 0.04964182525873184}
	XRIndexOffset = [3]float64{-0.03362493962049484, 0.06421422213315964, -0.033461250364780426}
)

// XRBlocksHTML is the XR conformance world written as an XR Blocks app
// (xrblocks 0.21.1, three 0.184.0), for the XR Blocks backend: the same
// box "target" and the same state as XRHTML, with mode always "hand" (XR
// Blocks' simulator has hands only), each hand's ray the world pose of its
// simulated controller (core.input.controllers), selecting and selects from
// the app's onSelectStart and onSelectEnd (a select counts when it ends),
// and no squeeze, trigger, button or thumbstick.
//
//go:embed xrblocks.html
var XRBlocksHTML []byte

// Headset is what one backend's XR conformance world starts with and can
// do: the suite (contracttest.XRConformance) checks a backend against its
// Headset, and names in its skips what the headset lacks.
type Headset struct {
	// Name names the backend in the suite's messages.
	Name string
	// HTML is the world's page for the backend.
	HTML []byte
	// Where the head and the hands' target rays start (turned nowhere).
	HeadStart, RightStart, LeftStart [3]float64
	// StartMode is the input mode the headset starts in.
	StartMode string
	// Controllers says whether the headset has controllers; RightDevice
	// is the device the suite places and turns as the right hand's ray.
	Controllers bool
	RightDevice string
	// GripOffset and IndexOffset are the right hand's touching points in
	// its device's frame: a controller's grip, the relaxed hand's index
	// fingertip.
	GripOffset, IndexOffset [3]float64
	// Lacks lists the gestures (contract.XRGestures) the headset has no
	// pose for: each is refused.
	Lacks []string
	// HandPose says whether a hand can be shaped joint by joint
	// (setHandPose); Why says why not.
	HandPose bool
	Why      string
}

// IWER is IWER 2.5's Quest 3 in the world XRHTML, which the fake page
// models too.
var IWER = Headset{
	Name: "IWER", HTML: XRHTML,
	HeadStart: XRHeadStart, RightStart: XRRightStart, LeftStart: XRLeftStart,
	StartMode: "controller", Controllers: true, RightDevice: "right-controller",
	GripOffset: XRGripOffset, IndexOffset: XRIndexOffset, HandPose: true,
}

// XRBlocks is XR Blocks 0.21.1's desktop simulator in the world
// XRBlocksHTML: the head at its standing height of 1.5 m, the hands' simulated
// controllers 0.3 m to each side, 0.1 m down and 0.3 m ahead, the relaxed
// index fingertip 0.22 m ahead of its controller; no controllers and no
// palm-up pose.
var XRBlocks = Headset{
	Name: "the XR Blocks backend", HTML: XRBlocksHTML,
	HeadStart: [3]float64{0, 1.5, 0}, RightStart: [3]float64{0.3, 1.4, -0.3}, LeftStart: [3]float64{-0.3, 1.4, -0.3},
	StartMode: "hand", Controllers: false, RightDevice: "right",
	IndexOffset: [3]float64{0.012498365153067958, 0.028713442692822833, -0.21990382521630797},
	Lacks:       []string{"palm-up"},
	HandPose:    true,
}

// HTML is the conformance world as a page (three.js from the CDN the
// resolver serves).
//
//go:embed world.html
var HTML []byte

// The world's constants.
const (
	Width, Height = 800, 600
	StartY        = 10.0
	Gravity       = 10.0
	BallRadius    = 0.5
	// FOV is the camera's vertical field of view in degrees.
	FOV = 50.0
)

// Background is the canvas's clear colour.
var Background = [3]float64{10, 20, 30}

// Camera is where the camera stands; it looks at (0, CameraY, 0).
var Camera = [3]float64{0, 5, 20}

// Fall advances the ball by one frame at fps: semi-implicit Euler with a
// half-speed bounce at 0.
func Fall(y, v, fps float64) (float64, float64) {
	dt := 1 / fps
	v -= Gravity * dt
	y += v * dt
	if y < 0 {
		y, v = 0, -v*0.5
	}
	return y, v
}

// Project maps a world point to canvas pixels with the world's camera;
// onScreen is false behind the camera or outside the canvas.
func Project(p [3]float64) (x, y float64, onScreen bool) {
	d := Camera[2] - p[2] // distance along the view direction (-z)
	if d <= 0.1 {
		return 0, 0, false
	}
	half := math.Tan(FOV / 2 * math.Pi / 180)
	ny := (p[1] - Camera[1]) / (d * half)
	nx := (p[0] - Camera[0]) / (d * half * Width / Height)
	x, y = (nx+1)/2*Width, (1-ny)/2*Height
	return x, y, nx >= -1 && nx <= 1 && ny >= -1 && ny <= 1
}

// MicHTML is the microphone world: a page that opens the synthetic
// microphone into an AnalyserNode of MicWindow samples and, every frame,
// writes the state {frame, mic: {open, level}}, level the RMS of the
// analyser's time-domain window rounded to 1e-6 (MicLevel).
//
//go:embed mic.html
var MicHTML []byte

// The microphone world's constants: the microphone's rate and the
// analyser's window.
const (
	MicRate   = 48000
	MicWindow = 2048
)

// MicLevel is the microphone world's level when the sound samples (at
// MicRate) started at sample start and the analyser's window ends at
// sample end (exclusive): the RMS of the MicWindow samples before end,
// silence outside the sound, rounded to 1e-6.
func MicLevel(samples []float32, start, end int) float64 {
	var sum float64
	for i := end - MicWindow; i < end; i++ {
		if k := i - start; k >= 0 && k < len(samples) {
			v := float64(samples[k])
			sum += v * v
		}
	}
	return math.Round(math.Sqrt(sum/MicWindow)*1e6) / 1e6
}
