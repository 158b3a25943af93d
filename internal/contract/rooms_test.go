package contract

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// rooms: replays a probe once per room, composed with hands: mirror into
// every combination; each run opens its page in its room (RoomOf), reads
// its room's label in the CEL variable room, and is reported as its own
// probe, so one room's failure fails that run alone.
func TestRoomsReplayAProbePerRoom(t *testing.T) {
	o := xrOpener()
	res := run(t, `
version: 1
probes:
  - name: plain
    level: state
    steps:
      - assert: 'true'
  - name: place
    level: transition
    hands: mirror
    rooms: [living_room, office_small, rooms/kitchen.json]
    steps:
      - controller: {hand: right, position: [0.3, 1.1, -0.5]}
      - assert: s[hand].ray == [mirror * 0.3, 1.1, -0.5]
      - assert: room != "office_small"
        message: not in the small office
`, o, Options{})
	var got []string
	for _, v := range res.Verdicts {
		got = append(got, v.Probe+": "+string(v.Status))
	}
	require.Equal(t, []string{
		"plain: pass",
		"place[right,living_room]: pass", "place[right,living_room]: pass",
		"place[right,office_small]: pass", "place[right,office_small]: fail",
		"place[right,kitchen]: pass", "place[right,kitchen]: pass",
		"place[left,living_room]: pass", "place[left,living_room]: pass",
		"place[left,office_small]: pass", "place[left,office_small]: fail",
		"place[left,kitchen]: pass", "place[left,kitchen]: pass",
	}, got)
	require.Equal(t, []string{"", "living_room", "office_small", "rooms/kitchen.json", "living_room", "office_small", "rooms/kitchen.json"}, o.rooms)

	c := mustParse(t, `
version: 1
probes:
  - name: a
    level: state
    rooms: [music_room, meeting_room]
    steps:
      - step: 700
      - assert: room == "music_room" || room == "meeting_room"
`)
	var names []string
	for _, p := range c.Probes {
		names = append(names, p.Name+" in "+p.Room+" of "+p.Base)
	}
	require.Equal(t, []string{"a[music_room] in music_room of a", "a[meeting_room] in meeting_room of a"}, names)
	// The frame budget is said once, by the written name.
	require.Len(t, c.CheckBudget(60, 600), 1)
	require.EqualError(t, c.CheckBudget(60, 600)[0], "contract.yaml:3: probe a steps 700 frames, more than the task's frame budget of 600")
	require.Equal(t, "", RoomOf(context.Background()))
}

// rooms: says its mistakes with their lines, once; room exists only in
// probes declared with rooms:.
func TestRoomsParseErrors(t *testing.T) {
	for _, c := range []struct{ probe, want string }{
		{"rooms: living_room\n    steps:\n      - assert: 'true'",
			"contract.yaml:5: probe a: rooms: want a list of rooms (living_room, meeting_room, music_room, office_large, office_small, or .json files in the task folder)"},
		{"rooms: [kitchen, ../x.json, /abs.json, ./x.json, 'a//x.json', 'a\\x.json', x.json.bak]\n    steps:\n      - assert: 'true'",
			`contract.yaml:5: probe a: rooms: no such room "kitchen" (one of living_room, meeting_room, music_room, office_large, office_small, or a .json file in the task folder)` + "\n" +
				`contract.yaml:5: probe a: rooms: room file "../x.json" must be a plain path inside the task folder` + "\n" +
				`contract.yaml:5: probe a: rooms: room file "/abs.json" must be relative to the task folder` + "\n" +
				`contract.yaml:5: probe a: rooms: room file "./x.json" must be a plain path inside the task folder` + "\n" +
				`contract.yaml:5: probe a: rooms: room file "a//x.json" must be a plain path inside the task folder` + "\n" +
				`contract.yaml:5: probe a: rooms: room file "a\\x.json" must use / between folders` + "\n" +
				`contract.yaml:5: probe a: rooms: no such room "x.json.bak" (one of living_room, meeting_room, music_room, office_large, office_small, or a .json file in the task folder)`},
		{"rooms: [a/office_small.json, office_small]\n    steps:\n      - assert: 'true'",
			`contract.yaml:5: probe a: rooms: "a/office_small.json" and "office_small" are both named office_small`},
		{"rooms: [office_small]\n    steps:\n      - snapshot: room\n      - assert: 'true'",
			`contract.yaml:7: probe a: snapshot "room": with rooms:, room is the probe's room`},
		{"steps:\n      - assert: room == 'x'",
			"contract.yaml:6: probe a: assert: 1:1: undeclared reference to 'room'\n | room == 'x'\n | ^"},
		{"rooms: [office_small, living_room]\n    steps:\n      - assert: room == 1",
			"contract.yaml:7: probe a: assert: 1:6: found no matching overload for '_==_' applied to '(string, int)'\n | room == 1\n | .....^"},
	} {
		_, err := Parse("contract.yaml", []byte("version: 1\nprobes:\n  - name: a\n    level: state\n    "+c.probe+"\n"))
		require.EqualError(t, err, c.want, c.probe)
	}
}
