package probe

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/worldjudge/quote"
	"github.com/worldprobe/worldprobe/internal/worldjudge/rubric"
)

func TestTimeUpdate(t *testing.T) {
	for _, c := range []struct {
		code     string
		wc4, wc5 bool
		why      string
	}{
		{"rain.position.y -= dt * 9.8;", true, true, "dt"},
		{"const d = clock.getDelta();", true, true, "clock.getDelta"},
		{"mist.material.opacity = 0.5 + 0.5 * Math.sin(time);", true, true, "time"},
		{"const t = performance.now() / 1000;", true, true, "performance.now"},
		{"particles.forEach(p => { p.y += p.v; });", true, false, "forEach( is WC004's only"},
		{"updateSystem(rain);", true, false, "updateSystem is WC004's only"},
		{"cloud.position.x += 0.01;", true, true, "position.x +="},
		{"leaf.position.y = 3;", true, true, ".position.y ="},
		{"geo.attributes.position.needsUpdate = true;", true, true, "attributes.position"},
		{"pos[i * 3 + 1] -= 0.2;", true, true, "pos[..] -="},
		{"drop.velocity.y -= g;", true, true, "velocit"},
		{"mesh.instanceMatrix.needsUpdate = true;", true, true, "instanceMatrix.needsUpdate"},
		{"flakes.P[i] = y;", true, true, ".P["},
		{"const deltaX = 3;", true, true, "delta is a prefix: WorldBench's \\b(?:delta… has no closing \\b"},
		{"updateWeather(w);", true, true, "updateWeather"},
		{"trunk.position.set(c.x, c.h + 1, c.z);", false, true, ".position.set( is WC005's only"},
		{"sunLight.intensity = 0.04 + daylight * 3.1;", false, true, ".intensity = is WC005's only"},
		{"sky.visible = isDay;", false, true, ".visible ="},
		{"const season = Math.floor(t / SEASON_LEN) % 4;", false, true, "SEASON_LEN, % 4"},
		{"sun.position.copy(dir).multiplyScalar(80);", false, true, ".position.copy("},
		{"const rain = new THREE.Points(rainGeo, rainMat);", false, false, "a construction"},
		{"scene.add(rain);", false, false, ""},
		{"const timer = 0;", false, false, "time needs a word boundary after it"},
		{"const undated = 1;", false, false, "dt needs a word boundary before it"},
		{"el.textContent = 'Day';", false, false, "HUD text"},
		{"// rain.position.y -= dt * 9.8;", false, false, "a comment is no code"},
		{"scene.add(rain); // moves by dt", false, false, "a trailing comment is cut"},
	} {
		code := CodeOnly(c.code)
		require.Equal(t, c.wc4, WC004TimeUpdate.MatchString(code), "WC004 %q (%s)", c.code, c.why)
		require.Equal(t, c.wc5, WC005TimeUpdate.MatchString(code), "WC005 %q (%s)", c.code, c.why)
	}
}

// TestCodeHash: WorldBench's evidence hash, the values computed
// independently (Python's hashlib over its code_only and whitespace
// collapse): comments and line breaks do not change it, spacing inside a
// line does (runs collapse to one space, they are not removed).
func TestCodeHash(t *testing.T) {
	for q, want := range map[string]string{
		"rain.position.y -= dt * 9.8;":               "34fd1cf059742ee2",
		"  rain.position.y  -=\tdt * 9.8; // fall\n": "34fd1cf059742ee2",
		"// the rain\nrain.position.y -= dt * 9.8;":  "34fd1cf059742ee2",
		"rain.position.y-=dt*9.8;":                   "43bf08130768e4a4",
		"sun.position.set(Math.cos(a) * R, Math.sin(a) * R, 0);\n/* orbit */\nsunLight.intensity = 0.04 + daylight * 3.1;": "36a1fcb2b15fb8a9",
	} {
		require.Equal(t, want, CodeHash(q), "%q", q)
	}
	require.Equal(t, "sun.position.set(0);\nsunLight.intensity = 1;", CodeOnly("sun.position.set(0); // noon\n\n/* the light\n * follows */\nsunLight.intensity = 1;"))
}

const loopPage = `<!DOCTYPE html><html><body>
<script type="module">
const clock = new THREE.Clock();
const sun = new THREE.Mesh(sunGeo, sunMat);
function updateSun(t) {
  sunLight.intensity = 0.04 + daylight * 3.1;
}
function deep1() { deep2(); }
function deep2() { deep3(); }
function deep3() { deep4(); }
function deep4() { deep5(); }
function deep5() { far.rotation.y += 0.01; }
function init() {
  sky.material.color.set(0x223344); // not in the loop: "}" {
}
const world = {
  step(dt) { water.offset.x += dt * 0.1; },
};
function animate() {
  requestAnimationFrame(animate);
  const t = clock.getElapsedTime();
  updateSun(t);
  world.step(0.05);
  deep1();
  renderer.render(scene, camera);
}
init();
animate();
const s = "requestAnimationFrame(fake)";
renderer.setAnimationLoop((time) => { moon.position.x = Math.cos(time); });
</script>
<script>
const idle = () => { leaf.position.y = 3; };
</script>
</body></html>
`

// TestRunsEveryFrame: WorldBench's frame-loop test on a page of ours:
// code in the callback of requestAnimationFrame (named) or
// setAnimationLoop (inline), in a function or a method it calls, and up
// to 4 calls deep, runs every frame; code outside, 5 calls deep, or in a
// string or another script's function does not.
func TestRunsEveryFrame(t *testing.T) {
	c := NewChecker(loopPage, nil, quote.WorldBench, nil)
	for q, want := range map[string]string{
		"sunLight.intensity = 0.04 + daylight * 3.1;": "updateSun ← animate ← requestAnimationFrame",
		"water.offset.x += dt * 0.1;":                 "step ← animate ← requestAnimationFrame",
		"updateSun(t);  // the sun":                   "animate ← requestAnimationFrame",
		"deep5();":                                    "deep4 ← deep3 ← deep2 ← deep1 ← animate ← requestAnimationFrame",
		"moon.position.x = Math.cos(time);":           "the setAnimationLoop callback",
		"far.rotation.y += 0.01;":                     "",
		"sky.material.color.set(0x223344);":           "",
		"const sun = new THREE.Mesh(sunGeo, sunMat);": "",
		"leaf.position.y = 3;":                        "",
		"snow.position.y -= dt;":                      "",
	} {
		got, why := c.RunsEveryFrame(q)
		require.Equal(t, want, got, "%q: %s", q, why)
		require.Equal(t, want == "", why != "", "%q: %s", q, why)
	}
	_, why := c.RunsEveryFrame("snow.position.y -= dt;")
	require.Equal(t, "its code is not found in the page's inline scripts", why)
	_, why = c.RunsEveryFrame("far.rotation.y += 0.01;")
	require.Equal(t, "it is not inside the frame loop's callback nor in a function it calls (up to 4 calls deep)", why)
	_, why = NewChecker("<script>function f(){ a.b += dt; }\nsetInterval(f, 16);</script>", nil, quote.WorldBench, nil).RunsEveryFrame("a.b += dt;")
	require.Equal(t, "the page's scripts never call requestAnimationFrame or setAnimationLoop", why)
}

// TestSameLineRule: WC005's same-line look + motion quote stands when it
// constructs nothing and runs every frame, and the axis and time-update
// rules still apply to it; WC004 refuses every same-line quote.
func TestSameLineRule(t *testing.T) {
	c := NewChecker(loopPage, nil, quote.WorldBench, nil)
	ctx := context.Background()
	same := func(q, axis string) *Finding {
		look, err := c.Verify(ctx, "look", ByProbe, q)
		require.NoError(t, err)
		mo, err := c.Verify(ctx, "motion", ByProbe, q)
		require.NoError(t, err)
		require.True(t, look.OK && mo.OK, "%q: %+v", q, look)
		return &Finding{Found: true, Look: &look, Motion: &mo, Axis: &axis}
	}
	cycle := Ask{ID: "light_follows_sun", Motion: true, Axis: "cyclic"}
	for _, tc := range []struct {
		test, q, axis   string
		refused, detail string
	}{
		{"WC005", "sunLight.intensity = 0.04 + daylight * 3.1;", "orbit", "",
			"the motion quote is the look quote, allowed: it constructs nothing and runs every frame (updateSun ← animate ← requestAnimationFrame)"},
		{"WC005", "sunLight.intensity = 0.04 + daylight * 3.1;", "falling", RefusedWrongAxis,
			`axis mismatch: the code probe says the quoted code moves it "falling" (falling), expected cyclic`},
		{"WC005", "sky.material.color.set(0x223344);", "cyclic", RefusedSameAsLook,
			"the motion quote is the look quote and is not provably in the frame loop: it is not inside the frame loop's callback nor in a function it calls (up to 4 calls deep)"},
		{"WC005", "const sun = new THREE.Mesh(sunGeo, sunMat);", "cyclic", RefusedSameAsLook,
			"the motion quote is the look quote and constructs an object (new …), so it does not update one every frame"},
		{"WC005", "water.offset.x += dt * 0.1;", "glow", "",
			"the motion quote is the look quote, allowed: it constructs nothing and runs every frame (step ← animate ← requestAnimationFrame)"},
		{"WC005", "renderer.render(scene, camera);", "cyclic", RefusedNoTimeUpdate,
			"the motion quote reads no clock and updates nothing over time (no match of WC005's timeUpdate pattern)"},
		{"WC004", "sunLight.intensity = 0.04 + daylight * 3.1;", "pulsing", RefusedSameAsLook,
			"the motion quote is the look quote: it shows the thing is made, not that it changes"},
	} {
		f := same(tc.q, tc.axis)
		c.ApplyMotion(tc.test, cycle, f)
		require.Equal(t, tc.refused, f.Motion.Refused, "%s %q", tc.test, tc.q)
		require.Equal(t, tc.refused == "", f.Motion.OK, "%s %q", tc.test, tc.q)
		require.Equal(t, tc.detail, f.Motion.Detail, "%s %q", tc.test, tc.q)
		require.True(t, f.Look.OK)
	}
	// A quote refused only because it never ran is still held to the
	// rules (a WorldBench-only reading must see the refusal).
	ev, err := c.Verify(ctx, "motion", ByProbe, "renderer.render(scene, camera);")
	require.NoError(t, err)
	ev.OK, ev.Refused = false, RefusedNotRun
	look, _ := c.Verify(ctx, "look", ByProbe, "const sun = new THREE.Mesh(sunGeo, sunMat);")
	axis := "cyclic"
	f := &Finding{Found: true, Look: &look, Motion: &ev, Axis: &axis}
	c.ApplyMotion("WC005", cycle, f)
	require.Equal(t, RefusedNoTimeUpdate, f.Motion.Refused)
}

// TestMotionRulesMatchTheSharedCorpus: the axes and patterns are
// WorldBench's as the shared corpus records them (read in place; skipped
// without it).
func TestMotionRulesMatchTheSharedCorpus(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "..", "shared", "corpus", "worldbench", "rubric")
	read := func(name string, v any) {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if os.IsNotExist(err) {
			t.Skip("../shared/corpus/worldbench/rubric not present beside the project")
		}
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(b, v))
	}
	var gates struct {
		Shared struct {
			Patterns struct {
				WC004 string `json:"wc004_time_update"`
				WC005 string `json:"wc005_time_update"`
				New   string `json:"wc005_constructs"`
				Moon  string `json:"wc005_moon"`
				Stars string `json:"wc005_star_or_dome"`
				Tint  string `json:"wc005_world_tint"`
				Moves string `json:"wc005_motion_mutation"`
			} `json:"patterns_python_re"`
		} `json:"shared_rules"`
	}
	read("gates.json", &gates)
	require.Equal(t, gates.Shared.Patterns.WC004, WC004TimeUpdate.String())
	require.Equal(t, gates.Shared.Patterns.WC005, WC005TimeUpdate.String())
	require.Equal(t, gates.Shared.Patterns.New, Constructs.String())
	require.Equal(t, gates.Shared.Patterns.Moon, Moon.String())
	require.Equal(t, gates.Shared.Patterns.Stars, StarOrDome.String())
	require.Equal(t, gates.Shared.Patterns.Tint, worldTintRe.String())
	require.Equal(t, gates.Shared.Patterns.Moves, motionMutationRe.String())
	var wc4 struct {
		Valid   []string          `json:"valid_axes"`
		Aliases map[string]string `json:"axis_aliases"`
	}
	read("WC004.json", &wc4)
	require.ElementsMatch(t, wc4.Valid, rubric.WC004Axes.Valid)
	require.Equal(t, wc4.Aliases, rubric.WC004Axes.Aliases)
	var wc5 struct {
		Axis struct {
			Aliases map[string]string `json:"aliases"`
		} `json:"axis"`
	}
	read("WC005.json", &wc5)
	require.Equal(t, wc5.Axis.Aliases, rubric.WC005Axes.Aliases)
}

// TestMoonAndStarRules: WC005's moon quote must name a moon (stars are
// not one), its forbidden stars or sky dome leaks only on code naming
// them, and no forbidden item is held to an axis.
func TestMoonAndStarRules(t *testing.T) {
	page := "<script>\nconst moon = new THREE.Mesh(moonGeo, moonMat);\nconst stars = new THREE.Points(starGeo, starMat);\nconst lamp = new THREE.PointLight(0xffffff, 1);\n</script>\n"
	c := NewChecker(page, nil, quote.WorldBench, nil)
	moon := Ask{ID: MoonItem, Motion: true, Axis: "cyclic"}
	stars := Ask{ID: StarsOrDomeID, Forbidden: true}
	for _, tc := range []struct {
		test    string
		it      Ask
		q       string
		refused string
	}{
		{"WC005", moon, "const moon = new THREE.Mesh(moonGeo, moonMat);", ""},
		{"WC005", moon, "const stars = new THREE.Points(starGeo, starMat);", RefusedStarsNotMoon},
		{"WC005", moon, "const lamp = new THREE.PointLight(0xffffff, 1);", RefusedNotAMoon},
		{"WC005", stars, "const stars = new THREE.Points(starGeo, starMat);", ""},
		{"WC005", stars, "const lamp = new THREE.PointLight(0xffffff, 1);", RefusedNotStarOrDome},
		// Another test's forbidden item said to fall keeps its quote.
		{"WC004", Ask{ID: "palms", Forbidden: true}, "const lamp = new THREE.PointLight(0xffffff, 1);", ""},
		// WC004 has no moon rule.
		{"WC004", Ask{ID: MoonItem}, "const lamp = new THREE.PointLight(0xffffff, 1);", ""},
	} {
		look, err := c.Verify(context.Background(), "look", ByProbe, tc.q)
		require.NoError(t, err)
		axis := "falling"
		if tc.test == "WC005" {
			axis = "cyclic"
		}
		if tc.it.ID == MoonItem && tc.test == "WC004" {
			axis = "n/a"
		}
		f := &Finding{Found: true, Look: &look, Axis: &axis}
		c.ApplyMotion(tc.test, tc.it, f)
		require.Equal(t, tc.refused, f.Look.Refused, "%s %s %q: %s", tc.test, tc.it.ID, tc.q, f.Look.Detail)
		require.Equal(t, tc.refused == "", f.Look.OK)
	}
}
