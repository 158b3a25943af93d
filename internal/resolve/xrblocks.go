package resolve

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"net/url"
	"regexp"
	"strings"
	"sync"
)

// XR Blocks' desktop simulator (xrblocks on npm) loads its rooms at
// start-up from a GitHub repository that no npm package provides:
// https://cdn.jsdelivr.net/gh/xrblocks/assets@COMMIT/simulator/scenes/,
// a scene GLB, a navigation-mesh GLB and a planes sidecar (JSON) per room.
// Offline, GLTFLoader fails and window.xbReady rejects. The resolver
// answers those three kinds of file with worldprobe's own room instead:
// a grey floor, 20 m square, and its plane. Every default room of XR
// Blocks 0.21.1 is placed 0.3 m up (DefaultManifests.ts: position
// [x, 0.3, z]), so the floor is at y = -0.3 in the room's frame: y = 0 in
// the world, where the simulated user stands.

// SimulatorRoomPackage is the Package of a Result that is worldprobe's
// simulator room (requests.served names it as SimulatorRoomPackage@SimulatorRoomVersion/FILE).
const SimulatorRoomPackage = "worldprobe-xrblocks-room"

// SimulatorRoomVersion versions worldprobe's simulator room.
const SimulatorRoomVersion = "1"

// simulatorRoomFloor is the floor's height in a room's frame (m).
const simulatorRoomFloor = -0.3

// simulatorRoomSide is the floor's side (m).
const simulatorRoomSide = 20.0

// simulatorAssetPath matches the path of an XR Blocks simulator room file
// on jsDelivr's GitHub route: the scene or navigation-mesh GLB, or the
// planes JSON.
var simulatorAssetPath = regexp.MustCompile(`^/gh/xrblocks/assets@[^/]+/simulator/scenes/[A-Za-z0-9_.-]+?(_planes\.json|\.glb)$`)

var simulatorRoom = sync.OnceValues(func() ([]byte, error) { return roomGLTF() })

// simulatorAsset answers a URL of XR Blocks' simulator rooms with
// worldprobe's room; ok is false for any other URL.
func simulatorAsset(u *url.URL) (Result, bool, error) {
	if u == nil || !strings.EqualFold(u.Hostname(), "cdn.jsdelivr.net") {
		return Result{}, false, nil
	}
	m := simulatorAssetPath.FindStringSubmatch(u.Path)
	if m == nil {
		return Result{}, false, nil
	}
	res := Result{Package: SimulatorRoomPackage, Served: SimulatorRoomVersion}
	if m[1] == "_planes.json" {
		res.File, res.ContentType, res.Body = "room_planes.json", "application/json", roomPlanes()
		return res, true, nil
	}
	body, err := simulatorRoom()
	if err != nil {
		return res, true, err
	}
	res.File, res.ContentType, res.Body = "room.gltf", "model/gltf+json", body
	return res, true, nil
}

// roomPlanes is the planes sidecar of worldprobe's room: the floor, a
// horizontal plane facing up (SimulatorWorld.preparePlanes's format; the
// polygon is in the plane's x–z).
func roomPlanes() []byte {
	h := simulatorRoomSide / 2
	return []byte(`{"planes":[{"type":"horizontal","label":"floor","area":` + jsonNum(simulatorRoomSide*simulatorRoomSide) +
		`,"position":{"x":0,"y":` + jsonNum(simulatorRoomFloor) + `,"z":0},"quaternion":[0,0,0,1],"polygon":[` +
		`{"x":-` + jsonNum(h) + `,"y":-` + jsonNum(h) + `},{"x":` + jsonNum(h) + `,"y":-` + jsonNum(h) + `},` +
		`{"x":` + jsonNum(h) + `,"y":` + jsonNum(h) + `},{"x":-` + jsonNum(h) + `,"y":` + jsonNum(h) + `}]}]}`)
}

func jsonNum(f float64) string {
	b, _ := json.Marshal(f)
	return string(b)
}

// roomGLTF is worldprobe's room as a glTF 2.0 JSON document with its one
// buffer inline (a data URI): a floor quad facing up, named "floor". Three's
// GLTFLoader reads a JSON document wherever a .glb is asked for (it tells
// the two apart by the binary header's magic).
func roomGLTF() ([]byte, error) {
	h, y := float32(simulatorRoomSide/2), float32(simulatorRoomFloor)
	pos := []float32{-h, y, -h, -h, y, h, h, y, h, h, y, -h}
	nrm := []float32{0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0}
	idx := []uint16{0, 1, 2, 0, 2, 3}
	var buf bytes.Buffer
	for _, part := range []any{pos, nrm, idx} {
		if err := binary.Write(&buf, binary.LittleEndian, part); err != nil {
			return nil, err
		}
	}
	n := len(pos) / 3
	doc := map[string]any{
		"asset":  map[string]any{"version": "2.0", "generator": "worldprobe " + SimulatorRoomPackage + " " + SimulatorRoomVersion},
		"scene":  0,
		"scenes": []any{map[string]any{"name": "worldprobe room", "nodes": []int{0}}},
		"nodes":  []any{map[string]any{"name": "floor", "mesh": 0}},
		"meshes": []any{map[string]any{"name": "floor", "primitives": []any{map[string]any{
			"attributes": map[string]int{"POSITION": 0, "NORMAL": 1}, "indices": 2, "material": 0}}}},
		"materials": []any{map[string]any{"name": "floor", "pbrMetallicRoughness": map[string]any{
			"baseColorFactor": []float64{0.5, 0.5, 0.5, 1}, "metallicFactor": 0, "roughnessFactor": 1}}},
		"accessors": []any{
			map[string]any{"bufferView": 0, "componentType": 5126, "count": n, "type": "VEC3",
				"min": []float64{float64(-h), float64(y), float64(-h)}, "max": []float64{float64(h), float64(y), float64(h)}},
			map[string]any{"bufferView": 1, "componentType": 5126, "count": n, "type": "VEC3"},
			map[string]any{"bufferView": 2, "componentType": 5123, "count": len(idx), "type": "SCALAR"},
		},
		"bufferViews": []any{
			map[string]any{"buffer": 0, "byteOffset": 0, "byteLength": 4 * len(pos), "target": 34962},
			map[string]any{"buffer": 0, "byteOffset": 4 * len(pos), "byteLength": 4 * len(nrm), "target": 34962},
			map[string]any{"buffer": 0, "byteOffset": 4 * (len(pos) + len(nrm)), "byteLength": 2 * len(idx), "target": 34963},
		},
		"buffers": []any{map[string]any{"byteLength": buf.Len(),
			"uri": "data:application/octet-stream;base64," + base64.StdEncoding.EncodeToString(buf.Bytes())}},
	}
	return json.Marshal(doc)
}
