package contract_test

import (
	"testing"

	"github.com/worldprobe/worldprobe/internal/contract"
	"github.com/worldprobe/worldprobe/internal/contract/contracttest"
)

// The fake page the contract tests drive passes the same conformance suite
// as the browser session (internal/trial's TestPageConformance).
func TestFakePageConformance(t *testing.T) {
	contracttest.Conformance(t, func(t *testing.T, fps float64) contract.Page { return contract.NewFakePage(fps) })
}

// The fake's headset passes the XR conformance suite the real session with
// IWER passes too.
func TestFakePageXRConformance(t *testing.T) {
	contracttest.XRConformance(t, func(t *testing.T, fps float64) contract.Page { return contract.NewFakeXRPage(fps) })
}

func TestFakePageXRRoomConformance(t *testing.T) {
	contracttest.XRRoomConformance(t, func(t *testing.T, fps float64) contract.Page { return contract.NewFakeXRRoomPage(fps) })
	contracttest.XRNoRoomConformance(t, func(t *testing.T, fps float64) contract.Page { return contract.NewFakeXRPage(fps) })
}

// The fake's microphone world passes the microphone conformance suite the
// real session's synthetic microphone passes too.
func TestFakePageMicrophoneConformance(t *testing.T) {
	contracttest.MicrophoneConformance(t, func(t *testing.T, fps float64, files map[string][]byte) contract.Page {
		return contract.NewFakeMicPage(fps, files)
	})
}
