package xr

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/worldprobe/worldprobe/internal/resolve"
	"github.com/worldprobe/worldprobe/internal/taskfile"
)

// SEMURL is the build of @iwer/sem (IWER's Synthetic Environment Module)
// the prelude installs when the headset stands in a room. The resolver
// serves it from web/node_modules, as it serves IWER.
const SEMURL = "https://unpkg.com/@iwer/sem@2.4.0/build/iwer-sem.min.js"

// Rooms are the room captures @iwer/sem ships (its captures/ folder), by
// the name a task's room: or a probe's rooms: gives them.
var Rooms = []string{"living_room", "meeting_room", "music_room", "office_large", "office_small"}

// CaptureURL is the URL of a room capture in @iwer/sem's package; the
// resolver serves it from web/node_modules.
func CaptureURL(room string) string {
	return "https://unpkg.com/@iwer/sem@2.4.0/captures/" + room + ".json"
}

// IsRoomName reports whether room names one of the captures in Rooms
// rather than a file.
func IsRoomName(room string) bool { return slices.Contains(Rooms, room) }

// RoomFile reports whether room is a path to a room file: it ends in
// .json (whatever its case). Anything else must be one of Rooms.
func RoomFile(room string) bool { return taskfile.HasExt(room, ".json") }

// CheckRoom says what is wrong with room as a task's room: or a probe's
// rooms: entry, "" when nothing is: it must be one of Rooms, or a .json
// file inside the task folder by the rule of every file a task names
// (taskfile.Check: relative, clean, with /).
func CheckRoom(room string) string {
	switch {
	case IsRoomName(room):
		return ""
	case RoomFile(room):
		if msg := taskfile.Check(room, ".json"); msg != "" {
			return fmt.Sprintf("room file %q %s", room, msg)
		}
		return ""
	}
	return fmt.Sprintf("no such room %q (one of %s, or a .json file in the task folder)", room, strings.Join(Rooms, ", "))
}

// RoomScene is the scene JSON of a room — a capture's name (read through
// the resolver from web/node_modules) or a room file's path — as the
// prelude loads it into @iwer/sem (the navigation mesh is derived from it,
// package navmesh).
func RoomScene(res *resolve.Resolver, room string) ([]byte, error) {
	return roomJSON(func(url string) ([]byte, error) { return readURL(res, url) }, room)
}

// roomJSON reads a room — a capture's name or a JSON file's path — and
// checks it is a scene @iwer/sem can load: an object with a list of
// spatialEntities. It returns the file's text.
func roomJSON(read func(url string) ([]byte, error), room string) ([]byte, error) {
	var b []byte
	var err error
	switch {
	case IsRoomName(room):
		if b, err = read(CaptureURL(room)); err != nil {
			return nil, fmt.Errorf("xr: room %s: %w", room, err)
		}
	case RoomFile(room):
		if b, err = os.ReadFile(room); err != nil {
			return nil, fmt.Errorf("xr: reading the room file: %w", err)
		}
	default:
		return nil, fmt.Errorf("xr: unknown room %q (one of %s, or a .json file)", room, strings.Join(Rooms, ", "))
	}
	var scene struct {
		SpatialEntities []json.RawMessage `json:"spatialEntities"`
	}
	if err := json.Unmarshal(b, &scene); err != nil {
		return nil, fmt.Errorf("xr: room %s is not a scene file: %w", room, err)
	}
	if scene.SpatialEntities == nil {
		return nil, fmt.Errorf("xr: room %s has no spatialEntities", room)
	}
	return b, nil
}
