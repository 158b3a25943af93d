package contract

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"go.yaml.in/yaml/v3"

	"github.com/worldprobe/worldprobe/internal/navmesh"
	"github.com/worldprobe/worldprobe/internal/target"
)

// StepNavigateTo walks the XR user towards a target over the walkable
// area of the room (GenXR-Test's navigateTo).
const StepNavigateTo StepKind = "navigateTo"

// Defaults of navigateTo.
const (
	// NavigateSpeed is the walking speed in m/s.
	NavigateSpeed = 1.0
	// NavigateStop is how far short of the target the walk stops, in m.
	NavigateStop = 0.5
	// NavigateMetres is the longest walk the default frame bound allows:
	// without frames:, a navigateTo may step ⌈NavigateMetres / speed × fps⌉
	// frames.
	NavigateMetres = 5.0
)

// NavigateToStep walks the user at Speed m/s along the shortest walkable
// path to the nearest walkable point within Stop metres of Target, in at
// most Frames frames (0: the default bound).
type NavigateToStep struct {
	Target      Target
	Speed, Stop float64
	Frames      int
}

func init() {
	registerStep(stepType{
		Kind: StepNavigateTo, Order: 225,
		Example: "`navigateTo: {tag: table, speed: 1, stop: 0.75, frames: 300}`",
		Doc: "walks the XR user (GenXR-Test's `navigateTo`) towards a target, `{world: [x, y, z]}`, `{object: name}`, `{tag: name}` or `{joint: {hand, name}}`, " +
			"over the walkable area of the room (task.yaml `room:`; docs/xr.md, \"Navigation\"): the shortest path on the room's walkable grid (A*, straightened) " +
			"from the head's place on the floor to the nearest walkable point within `stop` metres of the target (default 0.5), at `speed` m/s (default 1), " +
			"one stretch of the path a frame, the head's yaw turned to the direction of travel and, on the last frame, to face the target (its pitch and height kept); " +
			"the hands and controllers go with it. It steps ⌈length × fps / speed⌉ frames (at least 1), at most `frames` " +
			"(default ⌈5 m / speed × fps⌉, 300 at 60 fps), which the frame budget counts. A target with no walkable point near it, no path to it, " +
			"the user off the walkable area or a walk longer than `frames` fails the probe naming the room and the target; nothing moves. " +
			"Without a room, and on the XR Blocks backend's open floor, the walk is straight",
		Parse: parseNavigateTo,
	})
}

func parseNavigateTo(p *parser, v *yaml.Node, c stepContext) (Action, bool) {
	fields := p.mapping(v, c.what, append([]string{"speed", "stop", "frames"}, xrTargetKeys()...)...)
	if fields == nil {
		return nil, false
	}
	s := &NavigateToStep{Speed: NavigateSpeed, Stop: NavigateStop}
	t, ok := p.xrTarget(v, fields, c.what)
	s.Target = t
	if f, has := fields["speed"]; has {
		n, good := p.num(f.value, c.what+": speed")
		if good && (n <= 0 || n > 10) {
			p.errorf(f.value, "%s: speed %s: want metres a second > 0 and <= 10", c.what, formatFloat(n))
			good = false
		}
		s.Speed, ok = n, ok && good
	}
	if f, has := fields["stop"]; has {
		n, good := p.num(f.value, c.what+": stop")
		if good && n < 0 {
			p.errorf(f.value, "%s: stop %s: want metres >= 0", c.what, formatFloat(n))
			good = false
		}
		s.Stop, ok = n, ok && good
	}
	if f, has := fields["frames"]; has {
		n, good := p.whole(f.value, c.what+": frames", 1)
		s.Frames, ok = n, ok && good
	}
	return s, ok
}

// Describe renders "navigateTo TARGET".
func (a *NavigateToStep) Describe() string { return "navigateTo " + a.Target.String() }

// Traits: walking is input, and the walk's frames are its own.
func (a *NavigateToStep) Traits() Traits { return Traits{Input: true, Advances: true} }

// FrameCount is the most frames the walk may step: Frames, or enough for
// NavigateMetres at Speed.
func (a *NavigateToStep) FrameCount(t Timing) int {
	if a.Frames > 0 {
		return a.Frames
	}
	return max(1, int(math.Ceil(NavigateMetres/a.Speed*t.FPS-1e-9)))
}

func (a *NavigateToStep) mirrored() Action {
	m := *a
	m.Target = mirrorTarget(a.Target)
	return &m
}

func (a *NavigateToStep) run(x *exec) error {
	xr, err := x.headset()
	if err != nil {
		return err
	}
	nav, err := capability[XRNavigator](x.page, "navigation (navigateTo)")
	if err != nil {
		return err
	}
	at, err := x.worldPoint(a.Target)
	if err != nil {
		return err
	}
	head, q, err := xr.XRPoseOf(x.ctx, "head")
	if err != nil {
		return err
	}
	room, grid, err := nav.XRWalkable(x.ctx)
	if err != nil {
		return err
	}
	from, goal := [2]float64{head[0], head[2]}, [2]float64{at[0], at[2]}
	var path [][2]float64
	if grid == nil {
		path = straight(from, goal, a.Stop)
	} else if path, err = grid.Path(from, goal, a.Stop); err != nil {
		where := "room " + strconv.Quote(room)
		// Places in messages to the millimetre (IWER keeps poses in float32).
		mm := func(xs []float64) string { return target.FormatPoint(target.RoundMM(xs)) }
		switch {
		case errors.Is(err, navmesh.ErrOutside):
			err = fmt.Errorf("the user stands at %s on the floor, outside the walkable area of %s", mm(from[:]), where)
		case errors.Is(err, navmesh.ErrNoGoal):
			err = fmt.Errorf("no walkable point of %s lies within %s m of %s at %s (stop: a larger stop reaches further)",
				where, formatFloat(a.Stop), a.Target, mm(at))
		default:
			err = fmt.Errorf("no walkable path of %s leads from %s to within %s m of %s at %s",
				where, mm(from[:]), formatFloat(a.Stop), a.Target, mm(at))
		}
		return fmt.Errorf("%w: %w", err, target.ErrNotFound)
	}
	length := navmesh.Length(path)
	fps := x.fps
	n := max(1, int(math.Ceil(length*fps/a.Speed-1e-9)))
	if limit := a.FrameCount(x.timing()); n > limit {
		return fmt.Errorf("the walk to %s is %s m long: %d frames at %s m/s, more than its frames: %d: %w",
			a.Target, formatFloat(length), n, formatFloat(a.Speed), limit, target.ErrNotFound)
	}
	if err := x.spend(n); err != nil {
		return err
	}
	heading := headingOf(unitQuat(q))
	prev := path[0]
	for k := 1; k <= n; k++ {
		p := pointAlong(path, length*float64(k)/float64(n))
		d := [2]float64{p[0] - prev[0], p[1] - prev[1]}
		want := heading
		if math.Hypot(d[0], d[1]) > 1e-9 {
			want = math.Atan2(-d[0], -d[1])
		}
		if k == n {
			// Arrived: face the target.
			if f := [2]float64{goal[0] - p[0], goal[1] - p[1]}; math.Hypot(f[0], f[1]) > 1e-9 {
				want = math.Atan2(-f[0], -f[1])
			}
		}
		turn := math.Remainder(want-heading, 2*math.Pi)
		if err := xr.XRLocomote(x.ctx, []float64{d[0], 0, d[1]}, turn*180/math.Pi); err != nil {
			return err
		}
		heading, prev = want, p
		if err := stepPage(x.ctx, x.page, 1, k == n && x.drawNeeded(x.at+1)); err != nil {
			return err
		}
	}
	return nil
}

// straight is the walk without a room: from the start towards the goal,
// stopping stop metres short of it (no walk when already that near).
func straight(from, goal [2]float64, stop float64) [][2]float64 {
	d := math.Hypot(goal[0]-from[0], goal[1]-from[1])
	if d <= stop {
		return [][2]float64{from}
	}
	k := (d - stop) / d
	return [][2]float64{from, {from[0] + k*(goal[0]-from[0]), from[1] + k*(goal[1]-from[1])}}
}

// pointAlong is the point s metres along the path (its end past it).
func pointAlong(path [][2]float64, s float64) [2]float64 {
	for i := 1; i < len(path); i++ {
		a, b := path[i-1], path[i]
		l := math.Hypot(b[0]-a[0], b[1]-a[1])
		if s <= l && l > 0 {
			t := s / l
			return [2]float64{a[0] + t*(b[0]-a[0]), a[1] + t*(b[1]-a[1])}
		}
		s -= l
	}
	return path[len(path)-1]
}
