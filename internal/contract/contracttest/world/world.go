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
