package contract

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/worldprobe/worldprobe/internal/contract/contracttest/world"
	"github.com/worldprobe/worldprobe/internal/target"
)

// This file gives the fake page the scene capabilities of the registered
// functions: Bodies (contact, contacts) from each object's "solids" and
// "parent", Panels (panel, panelText, uiVisible) from its "panel".

// resolve finds the fake object a reference names.
func (p *fakePage) resolve(r ObjectRef) (string, error) {
	if !r.Tag {
		if _, ok := p.objects[r.Name]; !ok {
			return "", fmt.Errorf("no scene object named %q: %w", r.Name, target.ErrNotFound)
		}
		return r.Name, nil
	}
	var found []string
	for _, n := range slices.Sorted(maps.Keys(p.objects)) {
		tag, ok := p.objects[n]["semantic"].(map[string]any)
		if ok && (r.Role == "" || tag["role"] == r.Role) && (r.Name == "" || tag["name"] == r.Name) {
			found = append(found, n)
		}
	}
	if len(found) != 1 {
		return "", fmt.Errorf("%d scene objects are tagged %s: %w", len(found), r, target.ErrNotFound)
	}
	return found[0], nil
}

// ancestors are the names of an object's parents, nearest first.
func (p *fakePage) ancestors(name string) []any {
	out := []any{}
	for n, _ := p.objects[name]["parent"].(string); n != ""; n, _ = p.objects[n]["parent"].(string) {
		out = append(out, n)
	}
	return out
}

// fakeBody describes an object as Bodies does, its solids and its
// descendants' (in name order); its uuid is its name.
func (p *fakePage) fakeBody(name string) map[string]any {
	o := p.objects[name]
	solids := []any{}
	for _, n := range slices.Sorted(maps.Keys(p.objects)) {
		if n == name || slices.Contains(p.ancestors(n), any(name)) {
			own, ok := p.objects[n]["solids"].([]any)
			if !ok {
				own = p.worldSolids(n)
			}
			solids = append(solids, own...)
		}
	}
	return map[string]any{"name": name, "semantic": o["semantic"], "uuid": name, "ancestors": p.ancestors(name), "solids": solids}
}

// Bodies implements contract.Bodies over the fake's objects, in name order.
func (p *fakePage) Bodies(ctx context.Context, r ObjectRef, others bool) ([]any, error) {
	if err := p.err("Bodies"); err != nil {
		return nil, err
	}
	name, err := p.resolve(r)
	if err != nil {
		return nil, err
	}
	out := []any{p.fakeBody(name)}
	if !others {
		return out, nil
	}
	for _, n := range slices.Sorted(maps.Keys(p.objects)) {
		if n == name || slices.Contains(p.ancestors(n), any(name)) || slices.Contains(p.ancestors(name), any(n)) {
			continue
		}
		out = append(out, p.fakeBody(n))
	}
	return out, nil
}

// Panel implements contract.Panels: the object's "panel" as written.
func (p *fakePage) Panel(ctx context.Context, r ObjectRef) (map[string]any, error) {
	if err := p.err("Panel"); err != nil {
		return nil, err
	}
	name, err := p.resolve(r)
	if err != nil {
		return nil, err
	}
	if m, ok := p.objects[name]["panel"].(map[string]any); ok {
		return m, nil
	}
	// The conformance world: no text; the ball seen whole by the camera
	// while it is on screen, the hidden box behind it.
	out := map[string]any{"text": "", "texts": []any{}, "unread": []any{}, "visible": false, "in_view": false,
		"occluded": false, "samples": 0.0, "hidden": 0.0}
	if name == "ball" {
		_, _, on := world.Project([3]float64{0, p.y, 0})
		out["visible"], out["in_view"] = true, on
		if on {
			out["samples"] = 9.0
		}
	}
	return out, nil
}

// worldSolids are the conformance world's geometry boxes (world.html):
// the ball's sphere of radius 0.5 where it is now, the hidden unit box at
// z = 30.
func (p *fakePage) worldSolids(name string) []any {
	unit := func(x, y, z float64) []any { return []any{x, y, z, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0} }
	switch name {
	case "ball":
		return []any{unit(-0.5, p.y-0.5, -0.5)}
	case "hidden":
		return []any{unit(-0.5, -0.5, 29.5)}
	}
	return nil
}
