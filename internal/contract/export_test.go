package contract

// NewFakePage exports the in-memory page of the conformance world to this
// package's external tests (conformance_test.go).
func NewFakePage(fps float64) Page { return newFakePage(fps) }

// NewFakeXRPage exports the in-memory page of the XR conformance world.
func NewFakeXRPage(fps float64) Page { return newFakeXRPage(fps) }

// NewFakeXRRoomPage exports the in-memory page of the XR conformance world
// with its headset standing in a room.
func NewFakeXRRoomPage(fps float64) Page {
	p := newFakeXRPage(fps)
	p.xr.inRoom = true
	return p
}

// NewFakeMicPage exports the in-memory page of the microphone world with
// files in its task folder.
func NewFakeMicPage(fps float64, files map[string][]byte) Page { return newFakeMicPage(fps, files) }
