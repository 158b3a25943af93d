package session

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/worldprobe/worldprobe/internal/target"
)

// Bodies describes the object ref names as a body — {name, semantic,
// uuid, ancestors, solids}, each solid a geometry's box under its world
// matrix as 12 numbers (a corner, then three edges) — and, when others is
// set, after it every other named or tagged object of its scene that is
// neither it, its ancestor nor its descendant, in scene-graph order. A
// missing object or an ambiguous tag wraps target.ErrNotFound.
func (s *Session) Bodies(ctx context.Context, ref ObjectRef, others bool) ([]any, error) {
	var v struct {
		Bodies []any  `json:"bodies"`
		Error  string `json:"error"`
	}
	if err := s.sceneQuery(ctx, ref, fmt.Sprintf("bodiesInfo(%%s, %t)", others), &v); err != nil {
		return nil, err
	}
	if v.Error != "" {
		return nil, fmt.Errorf("%s: %w", v.Error, target.ErrNotFound)
	}
	return v.Bodies, nil
}

// Panel describes the UI under the object ref names: its text and the
// objects it came from, the canvas-textured meshes whose text is unread,
// and whether the user's eyes see it (visible, in_view, occluded). A
// missing object, an ambiguous tag or a scene no camera has drawn wraps
// target.ErrNotFound.
func (s *Session) Panel(ctx context.Context, ref ObjectRef) (map[string]any, error) {
	var v map[string]any
	if err := s.sceneQuery(ctx, ref, "panelInfo(%s)", &v); err != nil {
		return nil, err
	}
	if e, ok := v["error"].(string); ok {
		return nil, fmt.Errorf("%s: %w", e, target.ErrNotFound)
	}
	return v, nil
}

// sceneQuery calls window.__wp.<call> with the reference as its first
// argument (call's %s) and decodes the JSON it returns into out.
func (s *Session) sceneQuery(ctx context.Context, ref ObjectRef, call string, out any) error {
	defer s.charge("query")()
	arg, err := json.Marshal(ref)
	if err != nil {
		return err
	}
	var raw string
	if err := s.eval(ctx, s.cfg.CallTimeout, "window.__wp."+fmt.Sprintf(call, string(arg)), false, &raw); err != nil {
		return err
	}
	if err := json.Unmarshal([]byte(raw), out); err != nil {
		return fmt.Errorf("decoding %s for %s: %w", call, ref, err)
	}
	return nil
}
