package xr

import (
	_ "embed"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"

	"github.com/worldprobe/worldprobe/internal/resolve"
)

// IWERURL is the IWER build the prelude installs. The resolver serves it
// from web/node_modules, as it would serve a page that loads it itself.
const IWERURL = "https://unpkg.com/iwer@2.5.0/build/iwer.min.js"

// DeviceGlobal is the window property that holds the emulated device
// (IWER's XRDevice) for the harness; it is not enumerable.
const DeviceGlobal = "__wpXR"

// PoseBeforePinch is the property of an emulated hand that keeps the pose
// it had before the harness closed its fingers for a pinch.
const PoseBeforePinch = "__wpPoseBeforePinch"

// Profiles are IWER's device configurations a session may emulate.
var Profiles = []string{"metaQuest3", "metaQuest2", "metaQuestPro", "oculusQuest1"}

// Options configure the emulated device.
type Options struct {
	// Profile is one of Profiles; "" is metaQuest3.
	Profile string
	// Backend is one of Backends; "" is BackendIWER.
	Backend string
}

// gestures is the function that adds worldprobe's hand gestures to IWER's
// pose table (see the file's comment).
//
//go:embed gestures.js
var gestures string

// libs holds the IWER builds read, by file: every trial of an XR task
// builds a prelude, and the 260 KB build does not change during a run.
var libs sync.Map // path → []byte

func readLib(path string) ([]byte, error) {
	if b, ok := libs.Load(path); ok {
		return b.([]byte), nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	libs.Store(path, b)
	return b, nil
}

// Prelude returns the script that installs IWER's emulated headset in the
// top document: navigator.xr becomes IWER's (forceInstall, since
// Chromium's own navigator.xr on the loopback origin reports no headset),
// a session the page offers (three's VRButton calls offerSession) is
// granted at once, so no click is needed, and the device is kept at
// window[DeviceGlobal] for the harness to drive. Both hands can take, besides
// IWER's default, pinch and point poses, the gestures gestures.js derives
// from the relaxed hand: open-palm, fist, thumbs-up and palm-up.
// Its hook (window[HookGlobal]) records what the page sees of the headset
// and the session events it is sent, for the contract's xr() and xrEvents().
//
// With Backend BackendXRBlocks it returns the XR Blocks backend's prelude
// instead (xrblocks.go).
func Prelude(res *resolve.Resolver, o Options) (string, error) {
	if err := checkBackend(o.Backend); err != nil {
		return "", err
	}
	if o.Backend == BackendXRBlocks {
		return xrblocksPrelude(o)
	}
	profile := o.Profile
	if profile == "" {
		profile = "metaQuest3"
	}
	if !slices.Contains(Profiles, profile) {
		return "", fmt.Errorf("xr: unknown device profile %q (one of %v)", profile, Profiles)
	}
	r, ok, err := res.Resolve(IWERURL)
	if err != nil || !ok {
		return "", fmt.Errorf("xr: resolving %s (run 'make setup' to vendor iwer): ok=%v: %w", IWERURL, ok, err)
	}
	lib := r.Body
	if lib == nil {
		if lib, err = readLib(r.File); err != nil {
			return "", fmt.Errorf("xr: reading IWER: %w", err)
		}
	}
	return string(lib) + "\n;(function () {\n" +
		"  if (window !== window.top || typeof IWER === 'undefined' || window." + DeviceGlobal + ") return;\n" +
		"  const device = new IWER.XRDevice(IWER[" + strconv.Quote(profile) + "]);\n" +
		"  device.installRuntime({ forceInstall: true });\n" +
		"  try { (" + gestures + ")(device); } catch (e) { /* no gestures: a gesture step says so */ }\n" +
		"  const xr = navigator.xr;\n" +
		"  if (xr && typeof xr.offerSession === 'function') {\n" +
		"    const offer = xr.offerSession;\n" +
		"    // An offered session is accepted as a user would, once the offer is made.\n" +
		"    xr.offerSession = function () {\n" +
		"      const p = offer.apply(this, arguments);\n" +
		"      Promise.resolve().then(() => { if (device.sessionOffered) device.grantOfferedSession(); });\n" +
		"      return p;\n" +
		"    };\n" +
		"  }\n" +
		"  Object.defineProperty(window, " + strconv.Quote(DeviceGlobal) + ", { value: device, enumerable: false });\n" +
		"})();\n" + hookJS, nil
}
