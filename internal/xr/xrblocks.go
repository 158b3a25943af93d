package xr

import (
	_ "embed"
	"fmt"
	"slices"
)

// The backends a task's xrBackend: names. IWER (the default) emulates a
// WebXR headset for any page; XR Blocks drives an app written with XR
// Blocks through its own desktop simulator (docs/xr.md).
const (
	BackendIWER     = "iwer"
	BackendXRBlocks = "xrblocks"
)

// Backends are the values of Options.Backend ("" is BackendIWER).
var Backends = []string{BackendIWER, BackendXRBlocks}

// XRBlocksGlobal is the window property that holds the XR Blocks
// backend's harness object (xrblocks.js); it is not enumerable.
const XRBlocksGlobal = "__wpXRB"

// xrblocksJS is the XR Blocks backend's script (see its comment).
//
//go:embed xrblocks.js
var xrblocksJS string

// xrblocksPrelude returns the XR Blocks backend's prelude: it turns on XR
// Blocks' automation mode (?xrAutomation=1: the simulator starts by itself,
// hands on, no XR button) and debug globals (?debug=1: window.xb and
// window.xbReady) by rewriting the page's URL query before any script
// reads it, and installs window[XRBlocksGlobal], through which the harness
// waits for xbReady, loads EmbodiedControl from the app's own import map
// and drives the simulator's head and hands. XR Blocks' simulator needs no
// emulated navigator.xr, so IWER is not installed.
func xrblocksPrelude(o Options) (string, error) {
	if o.Profile != "" && o.Profile != "metaQuest3" {
		return "", fmt.Errorf("xr: the %s backend simulates XR Blocks' own device: profile %q is IWER's (use metaQuest3 or none)", BackendXRBlocks, o.Profile)
	}
	return xrblocksJS, nil
}

// checkBackend reports an unknown backend.
func checkBackend(b string) error {
	if b != "" && !slices.Contains(Backends, b) {
		return fmt.Errorf("xr: unknown backend %q (one of %v)", b, Backends)
	}
	return nil
}
