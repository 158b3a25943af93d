package contract

import (
	"fmt"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// The UI drawn in a 3D scene: a panel's text and whether the user can see
// it (panel, panelText, uiVisible). What the page knows as text is read;
// what it only painted (a canvas texture's pixels) is listed as unread,
// for a look to judge.

// panelDoc is the part of panel()'s documentation the three functions share.
const panelDoc = "`text` joins, with newlines, the text of every object of the subtree that is visible with its ancestors up to `o`, " +
	"in scene-graph order (depth first), each listed in `texts` as `{object, source, text}` by where it came from: `text` (a string " +
	"`.text` property: troika-three-text's `Text`, XR Blocks' `UIText`), `label` (XR Blocks' `UIButton` and any object with " +
	"`isUI`), `element` (the `innerText` of a `CSS2DObject`'s or `CSS3DObject`'s HTML element) or `userData.text` (what the page " +
	"declares a mesh shows, e.g. a panel it paints on a canvas); `unread` names the meshes drawn with a canvas texture that gave " +
	"no text: their pixels are text only a model can read (a `look`). `visible` is `o` and every ancestor `visible`; the " +
	"**samples** are the centre and the eight corners, drawn 10% in towards the centre, of each oriented box of the subtree's " +
	"geometry (as `contact` builds them), or `o`'s origin when it has none (an HTML label); `in_view` is some sample inside the view frustum of an eye (while a three.js " +
	"renderer presents an XR session; otherwise the camera of the frame's last draw whose scene contains `o`, else the last camera drawn with); a sample in view is **hidden** when the segment " +
	"from the eye to it crosses a triangle of another mesh of the scene that is visible with its ancestors and opaque (its " +
	"material neither `transparent` with `opacity` below 1 nor `visible: false`; InstancedMeshes and skinned poses are not " +
	"tested) before it; `occluded` is every sample in view hidden (`null`, with `occlusion_error`, when the scene has more " +
	"than 2,000,000 triangle tests to make); `samples` and `hidden` count them"

func init() {
	registerFunc(funcType{
		Name: "panel", Order: 20, Arities: []int{1}, Result: cel.MapType(cel.StringType, cel.DynType), Observes: true,
		Signature: "panel(o)",
		Example:   "`panel(\"menu\").texts.map(t, t.source) == [\"text\", \"label\"]`",
		Doc: "the UI drawn in the 3D scene under the object `o` (a name or a tag, as for `object()`): `{text, texts, unread, " +
			"visible, in_view, occluded, samples, hidden}`. " + panelDoc,
		Check: func(args []ast.Expr) []string { return checkObjectArg("panel", 0, args[0]) },
		Call: func(o *observer, args []ref.Val) ref.Val {
			m, bad := o.panel(args[0])
			if bad != nil {
				return bad
			}
			return types.DefaultTypeAdapter.NativeToValue(m)
		},
	})
	registerFunc(funcType{
		Name: "panelText", Order: 21, Arities: []int{1}, Result: cel.StringType, Observes: true,
		Signature: "panelText(o)",
		Example:   "`panelText({\"role\": \"score\"}).contains(\"Score: 3\")`",
		Doc:       "`panel(o).text`: the text the page holds for the UI under `o`, empty when it holds none (then `panel(o).unread` says whether something painted is unread)",
		Check:     func(args []ast.Expr) []string { return checkObjectArg("panelText", 0, args[0]) },
		Call: func(o *observer, args []ref.Val) ref.Val {
			m, bad := o.panel(args[0])
			if bad != nil {
				return bad
			}
			s, ok := m["text"].(string)
			if !ok {
				return o.broken(fmt.Errorf("panelText: the page described no text (%T)", m["text"]))
			}
			return types.String(s)
		},
	})
	registerFunc(funcType{
		Name: "uiVisible", Order: 22, Arities: []int{1}, Result: cel.BoolType, Observes: true,
		Signature: "uiVisible(o)",
		Example:   "`uiVisible(\"menu\") && panelText(\"menu\") == \"Start\"`",
		Doc: "the user can see the UI under `o`: `panel(o)`'s `visible` and `in_view`, and not `occluded` (some sample in view " +
			"is not hidden). An occlusion that could not be tested is an error, never a pass",
		Check: func(args []ast.Expr) []string { return checkObjectArg("uiVisible", 0, args[0]) },
		Call: func(o *observer, args []ref.Val) ref.Val {
			m, bad := o.panel(args[0])
			if bad != nil {
				return bad
			}
			vis, okv := m["visible"].(bool)
			in, oki := m["in_view"].(bool)
			if !okv || !oki {
				return o.broken(fmt.Errorf("uiVisible: the page described no visible and in_view (%v, %v)", m["visible"], m["in_view"]))
			}
			if !vis || !in {
				return types.False
			}
			occ, ok := m["occluded"].(bool)
			if !ok {
				return errorf("uiVisible: its occlusion could not be tested: %v", m["occlusion_error"])
			}
			return types.Bool(!occ)
		},
	})
}

// panel reads the UI under the object an argument names.
func (o *observer) panel(v ref.Val) (map[string]any, ref.Val) {
	r, bad := objectRef(v)
	if bad != nil {
		return nil, bad
	}
	raw, bad := o.fetch("panel", []any{r}, func() (any, error) {
		in, err := capability[Panels](o.page, "panel()")
		if err != nil {
			return nil, err
		}
		return in.Panel(o.ctx, r)
	})
	if bad != nil {
		return nil, bad
	}
	m, ok := raw.(map[string]any)
	if !ok {
		return nil, o.broken(fmt.Errorf("the page described the panel as a %T", raw))
	}
	return m, nil
}
