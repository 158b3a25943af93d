package xr

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The XR Blocks backend's prelude is its own script (no IWER); an unknown
// backend, or an IWER profile other than the Quest 3 it stands for, is an
// error.
func TestPreludeBackends(t *testing.T) {
	p, err := Prelude(shared.Resolver, Options{Backend: BackendXRBlocks})
	require.NoError(t, err)
	require.Equal(t, xrblocksJS, p)
	require.True(t, strings.Contains(p, "'"+XRBlocksGlobal+"'"), "the prelude installs window.%s", XRBlocksGlobal)
	require.False(t, strings.Contains(p, "IWER.XRDevice"), "no IWER on the XR Blocks backend")

	p, err = Prelude(shared.Resolver, Options{Backend: BackendXRBlocks, Profile: "metaQuest3"})
	require.NoError(t, err)
	require.Equal(t, xrblocksJS, p)

	_, err = Prelude(shared.Resolver, Options{Backend: BackendXRBlocks, Profile: "metaQuest2"})
	require.EqualError(t, err, `xr: the xrblocks backend simulates XR Blocks' own device: profile "metaQuest2" is IWER's (use metaQuest3 or none)`)

	_, err = Prelude(shared.Resolver, Options{Backend: "unity"})
	require.EqualError(t, err, `xr: unknown backend "unity" (one of [iwer xrblocks])`)

	p, err = Prelude(shared.Resolver, Options{Backend: BackendIWER})
	require.NoError(t, err)
	require.True(t, strings.Contains(p, "IWER.XRDevice"))
}
