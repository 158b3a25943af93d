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
