package probe

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"

	"github.com/worldprobe/worldprobe/internal/worldjudge/quote"
	"github.com/worldprobe/worldprobe/internal/worldjudge/rubric"
)

// WorldBench's motion rules on the code side (WC004's C_L and C_M,
// WC005's code verdict C), applied after a quote is checked (Verify):
// the axis the code probe says the quoted code moves a thing along must
// agree with the expected one, a motion quote must read a clock or update
// something over time (the timeUpdate pattern), and a motion quote that
// is the look quote is refused — in WC005 unless the line constructs
// nothing and provably runs every frame.

// Refusals by the motion rules.
const (
	// RefusedNoTimeUpdate: the motion quote reads no clock and updates
	// nothing over time (WorldBench's no_time_update).
	RefusedNoTimeUpdate = "no_time_update"
	// RefusedWrongAxis: the code probe says the quoted code moves the
	// thing along another axis than the expected one (wrong_axis).
	RefusedWrongAxis = "wrong_axis"
	// RefusedStarsNotMoon, RefusedNotAMoon: WC005's moon quote builds
	// stars or a dome, or nothing named a moon.
	RefusedStarsNotMoon = "stars_are_not_moon"
	RefusedNotAMoon     = "not_a_moon_mesh"
	// RefusedNotStarOrDome: a quote offered as WC005's forbidden stars or
	// sky dome that builds neither (no leak).
	RefusedNotStarOrDome = "not_star_or_dome"
)

// WC005's item patterns (its grade.py, as the shared corpus records
// them): a moon quote must name a moon, and a stars-or-dome leak must
// name stars, a starfield, a sky dome or box, or an atmosphere.
var (
	Moon       = regexp.MustCompile(`(?i)\bmoon\b|moonMesh|moonGeo|moonMat|createMoon|addMoon`)
	StarOrDome = regexp.MustCompile(`(?i)starfield|stardust|twinkl|\bstars\b|starMesh|starPoints|starGeo|starMat|createStars|addStars|nStars|numStars|skydome|sky.?dome|skybox|skySphere|skyMesh|atmosphere.?dome|\batmosphere\b|\bdome\b|new\s+(?:THREE\.)?Sky\b`)
)

// WC005's items the patterns are for (rubric ids, WorldBench's).
const (
	MoonItem      = "moon"
	StarsOrDomeID = "stars_or_atmosphere_dome"
)

// Time-update patterns: a motion quote (comments removed, CodeOnly) must
// match its test's pattern. These are WorldBench's patterns in full (its
// WC004 and WC005 grade.py, recorded in the shared corpus's gates.json);
// the reference page lists only some of their alternatives. RE2 runs
// them unchanged; its \b is ASCII where Python's is Unicode.
var (
	WC004TimeUpdate = regexp.MustCompile(`(?i)\b(?:dt|delta|clock\.getDelta|\btime\b|\bnow\b|performance\.now|requestAnimationFrame|animate\b|updateSystem|updateWeather|forEach\s*\(|position\.(?:x|y|z)\s*[+\-]?=|\.position\.(?:x|y|z)\s*=|attributes\.position|(?:pos|positions)\[.*?\]\s*[+\-]=|\.P\[|velocit|instanceMatrix\.needsUpdate|commit\s*\()`)
	WC005TimeUpdate = regexp.MustCompile(`(?i)\b(?:dt|delta|clock\.getDelta|\btime\b|\bnow\b|performance\.now|requestAnimationFrame|animate\b|updateSun|updateSeasons|updateWeather|DAY_LEN|SEASON_LEN|seasonProgress|seasonTime|position\.(?:x|y|z)\s*[+\-]?=|\.position\.(?:x|y|z)\s*=|\.position\.set\s*\(|\.position\.copy\s*\(|\.visible\s*=|multiplyScalar|%\s*4|%\s*1|attributes\.position|(?:pos|positions)\[.*?\]\s*[+\-]=|\.P\[|velocit|instanceMatrix\.needsUpdate|commit\s*\(|\.intensity\s*=)`)
	// Constructs: a line that makes a new object (WC005's same-line rule
	// refuses it as the motion quote).
	Constructs = regexp.MustCompile(`\bnew\s+(?:THREE\.)?[A-Z]\w*\s*\(`)
)

// MotionRules are one test's code-side motion rules.
type MotionRules struct {
	Axes       rubric.AxisRules
	TimeUpdate *regexp.Regexp
	// SameLine: a motion quote that is the look quote may stand when it
	// constructs nothing and runs every frame (WC005); else it is refused.
	SameLine bool
}

// Motion are the tests whose code halves follow the motion rules, by
// test id. A test not listed keeps the plain rule: a motion quote that is
// the look quote is refused.
var Motion = map[string]MotionRules{
	"WC004": {Axes: rubric.WC004Axes, TimeUpdate: WC004TimeUpdate},
	"WC005": {Axes: rubric.WC005Axes, TimeUpdate: WC005TimeUpdate, SameLine: true},
}

// CodeOnly is WorldBench's code_only: lines that are empty or begin
// (after trimming) with //, /* or * are dropped, the others cut at their
// first // and trimmed, joined by line breaks.
func CodeOnly(q string) string {
	var out []string
	for _, l := range quote.SplitLines(q) {
		l = strings.TrimFunc(l, quote.IsSpace)
		if l == "" || strings.HasPrefix(l, "//") || strings.HasPrefix(l, "/*") || strings.HasPrefix(l, "*") {
			continue
		}
		if i := strings.Index(l, "//"); i >= 0 {
			l = strings.TrimFunc(l[:i], quote.IsSpace)
		}
		if l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// CodeHash is WorldBench's evidence hash: the first 16 hex digits of the
// SHA-256 of CodeOnly(q) with every run of white space collapsed to one
// space. One code cannot earn twice in a biome (WC004) or in WC005.
func CodeHash(q string) string {
	sum := sha256.Sum256([]byte(collapse(CodeOnly(q))))
	return hex.EncodeToString(sum[:8])
}

// collapse turns every run of white space into one space and trims.
func collapse(s string) string {
	return strings.Join(strings.FieldsFunc(s, quote.IsSpace), " ")
}

// ApplyMotion applies a test's motion rules to a finding's checked quotes
// (it does nothing for a test without them but refuse a motion quote that
// is the look quote). A quote already refused for anything but not_run is
// left as it is; a quote refused only because it never ran is still
// checked, so a WorldBench-only reading (mutate's columns) sees the
// refusal WorldBench would make.
func (c *Checker) ApplyMotion(test string, it Ask, f *Finding) {
	if f == nil || !f.Found || f.Unjudged != "" {
		return
	}
	if test == "WC005" && f.Look != nil && checked(f.Look) {
		code := CodeOnly(f.Look.Quote)
		switch {
		case it.Forbidden && it.ID == StarsOrDomeID && !StarOrDome.MatchString(code):
			refuse(f.Look, RefusedNotStarOrDome, "the quote builds no stars, starfield, sky dome or atmosphere (no match of WC005's star-or-dome pattern)")
		case !it.Forbidden && it.ID == MoonItem && !Moon.MatchString(code) && StarOrDome.MatchString(code):
			refuse(f.Look, RefusedStarsNotMoon, "the moon quote builds stars or a sky dome, not a moon")
		case !it.Forbidden && it.ID == MoonItem && !Moon.MatchString(code):
			refuse(f.Look, RefusedNotAMoon, "the moon quote names no moon (no match of WC005's moon pattern)")
		}
	}
	if it.Forbidden {
		// A leak needs source text that ran, not a motion or an axis.
		return
	}
	rules, ok := Motion[test]
	if f.Motion != nil && checked(f.Motion) && f.Look != nil && quote.Normalize(f.Motion.Quote) == quote.Normalize(f.Look.Quote) {
		switch {
		case !ok || !rules.SameLine:
			refuse(f.Motion, RefusedSameAsLook, "the motion quote is the look quote: it shows the thing is made, not that it changes")
		case Constructs.MatchString(CodeOnly(f.Motion.Quote)):
			refuse(f.Motion, RefusedSameAsLook, "the motion quote is the look quote and constructs an object (new …), so it does not update one every frame")
		default:
			if loop, why := c.RunsEveryFrame(f.Motion.Quote); loop == "" {
				refuse(f.Motion, RefusedSameAsLook, "the motion quote is the look quote and is not provably in the frame loop: "+why)
			} else {
				f.Motion.Detail = "the motion quote is the look quote, allowed: it constructs nothing and runs every frame (" + loop + ")"
			}
		}
	}
	if !ok {
		return
	}
	axis := ""
	if f.Axis != nil {
		axis = *f.Axis
	}
	mismatch := func() string {
		said := "gave no axis for the quoted code"
		if f.Axis != nil {
			said = fmt.Sprintf("says the quoted code moves it %q", *f.Axis)
		}
		return fmt.Sprintf("axis mismatch: the code probe %s (%s), expected %s", said, rules.Axes.Norm(axis), rules.Axes.Norm(it.Axis))
	}
	if !it.Motion {
		// A still entity: its look quote's axis, only when the probe gave one.
		if f.Look != nil && checked(f.Look) && f.Axis != nil && !rules.Axes.OK(it.Axis, axis) {
			refuse(f.Look, RefusedWrongAxis, mismatch())
		}
		return
	}
	if f.Motion == nil || !checked(f.Motion) {
		return
	}
	if code := CodeOnly(f.Motion.Quote); !rules.TimeUpdate.MatchString(code) {
		refuse(f.Motion, RefusedNoTimeUpdate, "the motion quote reads no clock and updates nothing over time (no match of "+test+"'s timeUpdate pattern)")
		return
	}
	if !rules.Axes.OK(it.Axis, axis) {
		refuse(f.Motion, RefusedWrongAxis, mismatch())
	}
}

// checked: a quote that passed, or that is source text refused only
// because it never ran.
func checked(ev *Evidence) bool {
	return ev.OK || (ev.Verdict.Verified && ev.Refused == RefusedNotRun)
}

// refuse marks a quote refused by a motion rule, saying why.
func refuse(ev *Evidence, why, detail string) {
	ev.OK, ev.Refused, ev.Detail = false, why, detail
}
