package xr

import (
	"fmt"
	"math"
)

// ObjectsProperty is the property of the emulated device that holds the
// boxes the harness added to its room (a Map from id to @iwer/sem entity).
const ObjectsProperty = "__wpObjects"

// EntitiesProperty is the property of the emulated device that keeps the
// scene JSON of each box the harness added (a Map from id to entity, as
// BoxEntity made it), for the navigation mesh.
const EntitiesProperty = "__wpObjectEntities"

// SEMProperty is the property of the emulated device that keeps
// @iwer/sem's module as the prelude found it.
const SEMProperty = "__wpSEM"

// metaLabels are @iwer/sem's capture labels for WebXR's names of them.
var metaLabels = map[string]string{
	"table": "TABLE", "couch": "COUCH", "shelf": "STORAGE", "bed": "BED", "lamp": "LAMP",
	"screen": "SCREEN", "plant": "PLANT", "wall art": "WALL_ART", "other": "OTHER",
}

// ObjectUUID is the uuid of the entity of a box the harness added.
func ObjectUUID(id string) string { return "wp-object-" + id }

// BoxEntity is a box in @iwer/sem's scene format (one of a room file's
// spatialEntities): centre position, size [width, height, depth] in
// metres, turned by yaw degrees about +y, with a WebXR semantic label.
// It is stored as the captures store furniture: its locatable position is
// the centre of its top face and its frame is turned -90° about x, so
// that its depth runs down to the bottom face.
func BoxEntity(id, label string, position, size []float64, yaw float64) (map[string]any, error) {
	meta, ok := metaLabels[label]
	if !ok {
		return nil, fmt.Errorf("xr: no semantic label %q for a box", label)
	}
	if len(position) != 3 || len(size) != 3 {
		return nil, fmt.Errorf("xr: box %s: want a position and a size of 3 numbers", id)
	}
	h := yaw * math.Pi / 360 // half the yaw, in radians
	r := math.Sqrt(0.5)
	// R_y(yaw) · R_x(-90°)
	q := [4]float64{-math.Cos(h) * r, math.Sin(h) * r, math.Sin(h) * r, math.Cos(h) * r}
	w, ht, d := size[0], size[1], size[2]
	return map[string]any{
		"uuid":               ObjectUUID(id),
		"semanticLabel_META": meta,
		"locatable_META": map[string]any{
			"orientation": map[string]float64{"x": q[0], "y": q[1], "z": q[2], "w": q[3]},
			"position":    map[string]float64{"x": position[0], "y": position[1] + ht/2, "z": position[2]},
		},
		"bounded3D_META": map[string]any{
			"offset": map[string]float64{"x": -w / 2, "y": -d / 2, "z": -ht},
			"extent": map[string]float64{"width": w, "height": d, "depth": ht},
		},
	}, nil
}

// RoomObjectsJS edits the boxes added to the device d's room, given a =
// {op, objects: [{id, entity}], ids}: op "add", "update", "remove" or
// "clear" (contract.XRRoom). It returns {v: ids} (the added boxes' ids in
// order), {v: null} when the device stands in no room, or {err} for an id
// already added (add) or never added (update, remove).
const RoomObjectsJS = `const sem = d.sem, S = d.` + SEMProperty + `;
if (!sem || !S || !d.` + RoomProperty + `) return {v: null};
let added = d.` + ObjectsProperty + `;
if (!added) { added = new Map(); Object.defineProperty(d, '` + ObjectsProperty + `', { value: added, enumerable: false }); }
let json = d.` + EntitiesProperty + `;
if (!json) { json = new Map(); Object.defineProperty(d, '` + EntitiesProperty + `', { value: json, enumerable: false }); }
const drop = (id) => { const e = added.get(id); e.removeFromParent(); sem.trackedMeshes.delete(e.nativeEntity); added.delete(id); json.delete(id); };
const put = (o) => {
  const e = S.SpatialEntity.fromPBJSON(o.entity);
  if (!e) throw new Error('@iwer/sem made no entity of box ' + o.id);
  sem.boxes.add(e); sem.trackedMeshes.add(e.nativeEntity); added.set(o.id, e); json.set(o.id, JSON.stringify(o.entity));
};
switch (a.op) {
  case 'add':
    for (const o of a.objects) { if (added.has(o.id)) return {err: 'an object "' + o.id + '" is already in the room'}; }
    for (const o of a.objects) put(o);
    break;
  case 'update':
    for (const o of a.objects) { if (!added.has(o.id)) return {err: 'no object "' + o.id + '" was added to the room'}; }
    for (const o of a.objects) { drop(o.id); put(o); }
    break;
  case 'remove':
    for (const id of a.ids) { if (!added.has(id)) return {err: 'no object "' + id + '" was added to the room'}; }
    for (const id of a.ids) drop(id);
    break;
  case 'clear':
    for (const id of [...added.keys()]) drop(id);
    break;
}
return {v: [...added.keys()]};`
