package trial

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/contract"
	"github.com/worldprobe/worldprobe/internal/contract/contracttest"
	"github.com/worldprobe/worldprobe/internal/contract/contracttest/world"
	"github.com/worldprobe/worldprobe/internal/session"
	"github.com/worldprobe/worldprobe/internal/testenv"
	"github.com/worldprobe/worldprobe/internal/xr"
)

// The page every trial drives — a real Chromium session behind the
// contract.Page adapter — passes the conformance suite the contract
// package's fake passes too.
func TestPageConformance(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "index.html")
	require.NoError(t, os.WriteFile(path, world.HTML, 0o644))
	contracttest.Conformance(t, func(t *testing.T, fps float64) contract.Page {
		ctx := context.Background()
		s, err := session.Open(ctx, shared.Browser, shared.Resolver, path, session.Config{Seed: 1, FPS: fps, SkipDraw: true})
		require.NoError(t, err)
		t.Cleanup(s.Close)
		require.True(t, s.Loaded(), "the conformance world loads: %+v", s.Log())
		return &page{s: s, fps: fps}
	})
}

// The page of an XR task — a real Chromium session with IWER's headset —
// passes the XR conformance suite the fake's headset passes too.
func TestPageXRConformance(t *testing.T) {
	path := filepath.Join(t.TempDir(), "index.html")
	require.NoError(t, os.WriteFile(path, world.XRHTML, 0o644))
	prelude, err := xr.Prelude(shared.Resolver, xr.Options{})
	require.NoError(t, err)
	contracttest.XRConformance(t, func(t *testing.T, fps float64) contract.Page {
		ctx := context.Background()
		s, err := session.Open(ctx, shared.Browser, shared.Resolver, path, session.Config{Seed: 1, FPS: fps, SkipDraw: true, Preludes: []string{prelude}})
		require.NoError(t, err)
		t.Cleanup(s.Close)
		require.True(t, s.Loaded(), "the XR conformance world loads: %+v", s.Log())
		return &page{s: s, fps: fps}
	})
}

// openXRBlocksWorld opens the XR conformance world written with XR Blocks
// (world.XRBlocksHTML) with the XR Blocks backend, stepping frames until
// XR Blocks is ready to be driven (window.xbReady resolved,
// EmbodiedControl loaded).
func openXRBlocksWorld(t *testing.T, fps float64) contract.Page {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "index.html")
	require.NoError(t, os.WriteFile(path, world.XRBlocksHTML, 0o644))
	prelude, err := xr.Prelude(shared.Resolver, xr.Options{Backend: xr.BackendXRBlocks})
	require.NoError(t, err)
	s, err := session.Open(ctx, shared.Browser, shared.Resolver, path, session.Config{Seed: 1, FPS: fps, SkipDraw: true,
		CallTimeout: 120 * time.Second, Preludes: []string{prelude}})
	require.NoError(t, err)
	t.Cleanup(s.Close)
	require.True(t, s.Loaded(), "the XR Blocks conformance world loads: %+v", s.Log())
	p := &page{s: s, fps: fps, backend: xr.BackendXRBlocks}
	for i := 0; ; i++ {
		err := p.xrbReady(ctx)
		if err == nil {
			break
		}
		require.True(t, contract.IsInfra(err) && i < 60, "XR Blocks gets ready: %v", err)
		require.NoError(t, p.Step(ctx, 1))
	}
	return p
}

// TestPageXRBlocksConformance: the page of a task with the XR Blocks
// backend passes the XR conformance suite's joints case over the world
// written with XR Blocks — a hand placed, its joints read, setHandPose
// turning one exactly (one load of XR Blocks; the other cases, one load
// each, are TestPageXRBlocksConformanceSlow's).
func TestPageXRBlocksConformance(t *testing.T) {
	contracttest.XRHeadsetConformance(t, openXRBlocksWorld, world.XRBlocks, "joints")
}

// TestPageXRBlocksConformanceSlow runs the XR conformance suite's other
// cases against the XR Blocks backend: poses, hands and locomotion pass;
// controller is refused as infrastructure naming the backend and skipped
// (slow: four loads of XR Blocks, 20 s or more each on a loaded 2-core
// machine).
func TestPageXRBlocksConformanceSlow(t *testing.T) {
	testenv.Slow(t)
	contracttest.XRHeadsetConformance(t, openXRBlocksWorld, world.XRBlocks, "poses", "controller", "hands", "locomotion")
}

// TestPageXRRoomConformance: the Chromium page furnishes its headset's
// room through @iwer/sem as the suite says (office_small), and refuses to
// when the headset stands in no room.
func TestPageXRRoomConformance(t *testing.T) {
	path := filepath.Join(t.TempDir(), "index.html")
	require.NoError(t, os.WriteFile(path, world.XRHTML, 0o644))
	for _, room := range []string{"office_small", ""} {
		prelude, err := xr.Prelude(shared.Resolver, xr.Options{Room: room})
		require.NoError(t, err)
		open := func(t *testing.T, fps float64) contract.Page {
			ctx := context.Background()
			s, err := session.Open(ctx, shared.Browser, shared.Resolver, path, session.Config{Seed: 1, FPS: fps, SkipDraw: true,
				CallTimeout: 120 * time.Second, Preludes: []string{prelude}})
			require.NoError(t, err)
			t.Cleanup(s.Close)
			require.True(t, s.Loaded(), "the XR conformance world loads: %+v", s.Log())
			return &page{s: s, fps: fps}
		}
		if room != "" {
			contracttest.XRRoomConformance(t, open)
		} else {
			contracttest.XRNoRoomConformance(t, open)
		}
	}
}

// The Chromium page's synthetic microphone passes the microphone
// conformance suite: what the microphone world's analyser reads is the
// window of the injected samples at the virtual time, as the fake models it.
func TestPageMicrophoneConformance(t *testing.T) {
	contracttest.MicrophoneConformance(t, func(t *testing.T, fps float64, files map[string][]byte) contract.Page {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, "index.html"), world.MicHTML, 0o644))
		for name, body := range files {
			require.NoError(t, os.WriteFile(filepath.Join(dir, name), body, 0o644))
		}
		s, err := session.Open(context.Background(), shared.Browser, shared.Resolver, filepath.Join(dir, "index.html"), session.Config{Seed: 1, FPS: fps, SkipDraw: true})
		require.NoError(t, err)
		t.Cleanup(s.Close)
		require.True(t, s.Loaded(), "the microphone world loads: %+v", s.Log())
		return &page{s: s, fps: fps, dir: dir}
	})
}
