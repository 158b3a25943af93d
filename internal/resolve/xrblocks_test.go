package resolve

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// XR Blocks' simulator rooms are answered with worldprobe's room: the
// scene and navigation-mesh GLBs of every default room with a glTF JSON
// floor, the planes sidecar with its plane; any other file of the assets
// repository is not served.
func TestSimulatorRoom(t *testing.T) {
	r := testResolver(t)
	base := "https://cdn.jsdelivr.net/gh/xrblocks/assets@5582bd1b2d1a4e19f7ee7093b63a5ee328e974ac/simulator/scenes/"
	for _, name := range []string{"XREmulatorsceneV5_livingRoom.glb", "XREmulatorsceneV5_office_navmesh.glb", "XREmulatorscene_Dark.glb"} {
		res, ok, err := r.Resolve(base + name)
		require.NoError(t, err, name)
		require.True(t, ok, name)
		require.Equal(t, "worldprobe-xrblocks-room@1/room.gltf", res.Package+"@"+res.Served+"/"+res.File)
		require.Equal(t, "model/gltf+json", res.ContentType)
		var doc struct {
			Asset   struct{ Version string }
			Nodes   []struct{ Name string }
			Buffers []struct {
				ByteLength int
				URI        string
			}
			Accessors []struct {
				Count int
				Min   []float64
				Max   []float64
			}
		}
		require.NoError(t, json.Unmarshal(res.Body, &doc))
		require.Equal(t, "2.0", doc.Asset.Version)
		require.Equal(t, "floor", doc.Nodes[0].Name)
		require.Equal(t, []float64{-10, -0.3, -10}, round(doc.Accessors[0].Min))
		require.Equal(t, []float64{10, -0.3, 10}, round(doc.Accessors[0].Max))
		b64, ok := strings.CutPrefix(doc.Buffers[0].URI, "data:application/octet-stream;base64,")
		require.True(t, ok)
		buf, err := base64.StdEncoding.DecodeString(b64)
		require.NoError(t, err)
		require.Len(t, buf, doc.Buffers[0].ByteLength)
		require.Equal(t, 4*12+4*12+2*6, len(buf))
		// The first vertex is the floor's corner (-10, -0.3, -10).
		require.Equal(t, float32(-0.3), math.Float32frombits(binary.LittleEndian.Uint32(buf[4:])))
	}
	res, ok, err := r.Resolve(base + "XREmulatorsceneV5_livingRoom_planes.json")
	require.NoError(t, err)
	require.True(t, ok)
	require.JSONEq(t, `{"planes":[{"type":"horizontal","label":"floor","area":400,"position":{"x":0,"y":-0.3,"z":0},"quaternion":[0,0,0,1],`+
		`"polygon":[{"x":-10,"y":-10},{"x":10,"y":-10},{"x":10,"y":10},{"x":-10,"y":10}]}]}`, string(res.Body))

	_, ok, err = r.Resolve("https://cdn.jsdelivr.net/gh/xrblocks/assets@5582bd1/models/chair.glb")
	require.True(t, ok)
	require.ErrorIs(t, err, ErrNotVendored)
}

func round(v []float64) []float64 {
	out := make([]float64, len(v))
	for i, f := range v {
		out[i] = math.Round(f*1e6) / 1e6
	}
	return out
}
