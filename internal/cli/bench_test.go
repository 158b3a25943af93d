package cli

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFormatCPU: CPU times by process, largest first (ties by name), after
// their total.
func TestFormatCPU(t *testing.T) {
	require.Equal(t, "total 1210: gpu-process 500, renderer 420, browser 200, harness 80, utility 10",
		formatCPU(map[string]float64{"renderer": 420, "gpu-process": 500, "browser": 200, "harness": 80, "utility": 10}))
	require.Equal(t, "total 20: a 10, b 10", formatCPU(map[string]float64{"b": 10, "a": 10}))
	require.Equal(t, "not measured", formatCPU(nil))
}

// TestParseChromiumFlags: NAME is a bare switch, NAME=false drops one,
// NAME=VALUE sets a value, leading dashes are optional, no name is refused.
func TestParseChromiumFlags(t *testing.T) {
	got, err := parseChromiumFlags([]string{"--disable-gpu-program-cache", "use-angle=swiftshader-webgl", "--disable-gpu-compositing=false", "gpu-program-cache-size-kb=65536"})
	require.NoError(t, err)
	require.Equal(t, map[string]any{"disable-gpu-program-cache": true, "use-angle": "swiftshader-webgl", "disable-gpu-compositing": false, "gpu-program-cache-size-kb": "65536"}, got)
	got, err = parseChromiumFlags(nil)
	require.NoError(t, err)
	require.Nil(t, got)
	_, err = parseChromiumFlags([]string{"--=1"})
	require.Error(t, err)
}
