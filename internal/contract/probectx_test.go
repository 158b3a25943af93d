package contract

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// The Opener learns which probe each page is for: the interface probe,
// then the contract's probes in order.
func TestOpenerKnowsTheProbe(t *testing.T) {
	src := `
version: 1
probes:
  - name: first
    level: state
    steps:
      - step: 1
      - assert: s.frame == 1
  - name: second
    level: state
    steps:
      - step: 2
      - assert: s.frame == 2
`
	var probes []string
	res, err := Run(context.Background(), mustParse(t, src), func(ctx context.Context, fps float64) (Page, error) {
		probes = append(probes, ProbeOf(ctx))
		return newFakePage(fps), nil
	}, nil, Options{FPS: 60, Interface: []Field{{Path: "frame", Type: "number"}}})
	require.NoError(t, err)
	for _, v := range res.Verdicts {
		require.Equal(t, StatusPass, v.Status, v.Expr+": "+v.Message)
	}
	require.Equal(t, []string{InterfaceProbe, "first", "second"}, probes)
	require.Equal(t, "", ProbeOf(context.Background()))
}
