package cli

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestViewportSize: --viewport is parsed exactly, and a refusal says
// whether the value is no size at all or a size out of range.
func TestViewportSize(t *testing.T) {
	cases := []struct {
		value      string
		w, h       int
		wantErrMsg string
	}{
		{"1280x800", 1280, 800, ""},
		{"320X200", 320, 200, ""},
		{"16x16", 16, 16, ""},
		{"8192x8192", 8192, 8192, ""},
		{"big", 0, 0, `--viewport "big": want WIDTHxHEIGHT, e.g. 1280x800`},
		{"1280x", 0, 0, `--viewport "1280x": want WIDTHxHEIGHT, e.g. 1280x800`},
		{"1280*800", 0, 0, `--viewport "1280*800": want WIDTHxHEIGHT, e.g. 1280x800`},
		{"", 0, 0, `--viewport "": want WIDTHxHEIGHT, e.g. 1280x800`},
		{"10x10", 0, 0, `--viewport "10x10": too small; width and height must be at least 16 CSS pixels`},
		{"1280x15", 0, 0, `--viewport "1280x15": too small; width and height must be at least 16 CSS pixels`},
		{"-5x800", 0, 0, `--viewport "-5x800": too small; width and height must be at least 16 CSS pixels`},
		{"8193x800", 0, 0, `--viewport "8193x800": too large; width and height must be at most 8192 CSS pixels`},
		{"800x10000", 0, 0, `--viewport "800x10000": too large; width and height must be at most 8192 CSS pixels`},
	}
	for _, c := range cases {
		w, h, err := (&viewportFlag{Viewport: c.value}).size()
		if c.wantErrMsg == "" {
			require.NoError(t, err, c.value)
			require.Equal(t, []int{c.w, c.h}, []int{w, h}, c.value)
			continue
		}
		require.EqualError(t, err, c.wantErrMsg, c.value)
		require.Equal(t, ExitUsage, exitCodeOf(context.Background(), err), c.value)
	}
}

// TestViewportOnlyWhereItWorks: inspect and bench take --viewport and
// refuse a bad one before any browser starts; the commands that judge
// tasks (each opens its pages at its task.yaml viewport) have no such flag.
func TestViewportOnlyWhereItWorks(t *testing.T) {
	for _, args := range [][]string{
		{"inspect", "--viewport", "10x10", "x.html"},
		{"bench", "--viewport", "10x10"},
	} {
		code, out, errOut := executeIn(context.Background(), nil, args...)
		require.Equal(t, ExitUsage, code, "%v: %s", args, errOut)
		require.Equal(t, "worldprobe: --viewport \"10x10\": too small; width and height must be at least 16 CSS pixels\n", errOut, args)
		require.Empty(t, out)
	}
	code, _, errOut := executeIn(context.Background(), nil, "inspect", "--viewport", "big", "x.html")
	require.Equal(t, ExitUsage, code)
	require.Equal(t, "worldprobe: --viewport \"big\": want WIDTHxHEIGHT, e.g. 1280x800\n", errOut)

	for _, cmd := range [][]string{{"run", "suites/starter"}, {"task", "check", "suites/starter"}, {"suite", "perturb", "suites/starter"}} {
		args := append(append([]string(nil), cmd...), "--viewport", "800x600")
		code, _, errOut := executeIn(context.Background(), nil, args...)
		require.Equal(t, ExitUsage, code, "%v: %s", args, errOut)
		require.Contains(t, errOut, "worldprobe: unknown flag: --viewport\n", args)
	}
}
