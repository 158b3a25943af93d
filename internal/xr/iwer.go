package xr

import (
	_ "embed"
	"encoding/json"
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

// RoomProperty is the property of the emulated device that names the room
// it stands in (Options.Room) once @iwer/sem has loaded it; the device's
// sem property is @iwer/sem's module.
const RoomProperty = "__wpRoom"

// RoomErrorProperty is the property of the emulated device that says why
// its room could not be loaded.
const RoomErrorProperty = "__wpRoomError"

// Profiles are IWER's device configurations a session may emulate.
var Profiles = []string{"metaQuest3", "metaQuest2", "metaQuestPro", "oculusQuest1"}

// Options configure the emulated device.
type Options struct {
	// Profile is one of Profiles; "" is metaQuest3.
	Profile string
	// Backend is one of Backends; "" is BackendIWER.
	Backend string
	// Room, when set, stands the headset in a room: one of Rooms (a
	// capture @iwer/sem ships) or the path of a room file in @iwer/sem's
	// scene format (ending in .json). The prelude installs @iwer/sem with
	// it, so an immersive session detects the room's planes and meshes and
	// hit-tests against them.
	Room string
	// Scene, when set, is Room's scene JSON as RoomScene returned it, so
	// a trial reads its room once for the prelude and the walkable area;
	// nil reads Room here.
	Scene []byte
}

// gestures is the function that adds worldprobe's hand gestures to IWER's
// pose table (see the file's comment).
//
//go:embed gestures.js
var gestures string

// libs holds the IWER builds read, by file: every trial of an XR task
// builds a prelude, and the 260 KB build does not change during a run.
var libs sync.Map // path → []byte

// readURL reads the vendored file the resolver serves for url.
func readURL(res *resolve.Resolver, url string) ([]byte, error) {
	r, ok, err := res.Resolve(url)
	if err != nil || !ok {
		return nil, fmt.Errorf("xr: resolving %s (run 'make setup' to vendor it): ok=%v: %w", url, ok, err)
	}
	if r.Body != nil {
		return r.Body, nil
	}
	b, err := readLib(r.File)
	if err != nil {
		return nil, fmt.Errorf("xr: reading %s: %w", url, err)
	}
	return b, nil
}

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
		if o.Room != "" {
			return "", fmt.Errorf("xr: room %s needs the IWER backend (@iwer/sem): XR Blocks' simulator has rooms of its own", o.Room)
		}
		return xrblocksPrelude(o)
	}
	profile := o.Profile
	if profile == "" {
		profile = "metaQuest3"
	}
	if !slices.Contains(Profiles, profile) {
		return "", fmt.Errorf("xr: unknown device profile %q (one of %v)", profile, Profiles)
	}
	read := func(url string) ([]byte, error) { return readURL(res, url) }
	lib, err := read(IWERURL)
	if err != nil {
		return "", err
	}
	room := ""
	if o.Room != "" {
		sem, err := read(SEMURL)
		if err != nil {
			return "", err
		}
		scene := o.Scene
		if scene == nil {
			if scene, err = roomJSON(read, o.Room); err != nil {
				return "", err
			}
		}
		text, err := json.Marshal(string(scene))
		if err != nil {
			return "", fmt.Errorf("xr: quoting room %s: %w", o.Room, err)
		}
		name, err := json.Marshal(o.Room)
		if err != nil {
			return "", fmt.Errorf("xr: quoting room %s: %w", o.Room, err)
		}
		lib = append(append(slices.Clone(lib), "\n;"...), sem...)
		// The room is loaded into @iwer/sem before any page script runs;
		// a room that fails to load leaves the reason on the device.
		room = "  try {\n" +
			"    device.installSEM(IWER_SEM.SyntheticEnvironmentModule);\n" +
			"    device.sem.loadEnvironment(JSON.parse(" + string(text) + "));\n" +
			"    Object.defineProperty(device, " + strconv.Quote(SEMProperty) + ", { value: IWER_SEM, enumerable: false });\n" +
			"    Object.defineProperty(device, " + strconv.Quote(RoomProperty) + ", { value: " + string(name) + ", enumerable: false });\n" +
			"  } catch (e) {\n" +
			"    Object.defineProperty(device, " + strconv.Quote(RoomErrorProperty) + ", { value: String(e && e.stack || e), enumerable: false });\n" +
			"  }\n"
	}
	return string(lib) + "\n;(function () {\n" +
		"  if (window !== window.top || typeof IWER === 'undefined' || window." + DeviceGlobal + ") return;\n" +
		"  const device = new IWER.XRDevice(IWER[" + strconv.Quote(profile) + "]);\n" +
		"  device.installRuntime({ forceInstall: true });\n" +
		"  try { (" + gestures + ")(device); } catch (e) { /* no gestures: a gesture step says so */ }\n" +
		room +
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
