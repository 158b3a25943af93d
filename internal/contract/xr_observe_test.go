package contract

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestObjectsByTag: object() takes a semantic tag that must match exactly
// one object; tagged() lists them; a malformed tag is the assertion's
// error, not the page's.
func TestObjectsByTag(t *testing.T) {
	o := &opener{tweak: func(p *fakePage) {
		p.objects["ball"]["semantic"] = map[string]any{"role": "grabbable", "name": "ball"}
		p.objects["hidden"]["semantic"] = map[string]any{"role": "grabbable", "name": "spare"}
	}}
	res := run(t, `
version: 1
probes:
  - name: tags
    level: state
    steps:
      - assert: 'object({"role": "grabbable", "name": "ball"}).name == "ball"'
      - assert: 'object({"name": "spare"}).visible'
      - assert: tagged("grabbable").map(x, x.name) == ["ball", "hidden"] && size(tagged("surface")) == 0
      - assert: 'object({"role": "grabbable"}).visible'
      - assert: 'object({"role": "surface"}).visible'
      - assert: 'object({"colour": "red"}).visible'
      - assert: 'object({}).visible'
      - assert: object(1).visible
      - assert: 'inView({"role": 2})'
`, o, Options{})
	require.Equal(t, []string{
		`object({"role": "grabbable", "name": "ball"}).name == "ball" | pass | `,
		`object({"name": "spare"}).visible | fail | object({"name": "spare"}).visible is false`,
		`tagged("grabbable").map(x, x.name) == ["ball", "hidden"] && size(tagged("surface")) == 0 | pass | `,
		`object({"role": "grabbable"}).visible | error | object({"role": "grabbable"}): 2 scene objects are tagged {role: "grabbable", name: ""}: name one (tagged() lists them): target not found`,
		`object({"role": "surface"}).visible | error | object({"role": "surface"}): no scene object is tagged {role: "surface", name: ""}: target not found`,
		`object({"colour": "red"}).visible | error | object({"colour": "red"}): a tag's keys are role and name, got "colour"`,
		`object({}).visible | error | object({}): a tag needs a role or a name`,
		`object(1).visible | error | object(1): want an object name or a tag {"role": ..., "name": ...}, got int`,
		`inView({"role": 2}) | error | inView({"role": 2}): the tag's role must be a string, got int`,
	}, messages(res))
	require.True(t, res.Verdicts[2].Observes, "tagged() observes the scene")
}

// plainPage offers only the core Page: no scene, no headset.
type plainPage struct{ Page }

// TestXRFunctionsNeedAHeadset: a page without the XR viewer capability
// makes xr(), xrEvents(), inView() and coverage() an infrastructure error
// that stops the run, never a verdict.
func TestXRFunctionsNeedAHeadset(t *testing.T) {
	for expr, want := range map[string]string{
		`xr().presenting`:               "probe p: assert: xr(): the page does not offer this (contract.plainPage)",
		`size(xrEvents()) == 0`:         "probe p: assert: xrEvents(): the page does not offer this (contract.plainPage)",
		`inView("ball")`:                "probe p: assert: inView(): the page does not offer this (contract.plainPage)",
		`coverage("ball") > 0.1`:        "probe p: assert: coverage(): the page does not offer this (contract.plainPage)",
		`size(tagged("grabbable")) > 0`: "probe p: assert: tagged(): the page does not offer this (contract.plainPage)",
	} {
		t.Run(expr, func(t *testing.T) {
			c := mustParse(t, "version: 1\nprobes:\n  - name: p\n    level: state\n    steps:\n      - assert: '"+expr+"'\n")
			open := func(ctx context.Context, fps float64) (Page, error) { return plainPage{newFakePage(fps)}, nil }
			_, err := Run(context.Background(), c, open, nil, Options{FPS: 60})
			require.EqualError(t, err, want)
			require.True(t, IsInfra(err))
		})
	}
}
