// Package rubric loads a world judge's rubric: the prompt a world answers,
// its biomes, the items of each test with their weights and halves, the
// forbidden items, the quote rules, the pixel thresholds and the gates
// (suites/worldbench/island/rubric.yaml; the format is in docs/judge.md).
// Load reports every problem with its file and line.
package rubric

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"go.yaml.in/yaml/v3"

	"github.com/worldprobe/worldprobe/internal/task"
)

// FileName is the rubric file inside a rubric folder.
const FileName = "rubric.yaml"

// Halves an item may be judged by.
const (
	// HalfCode is the code half: a verified quote from the world's source.
	HalfCode = "code"
	// HalfSight is the sight half: a blind-confirmed frame or a pixel measure.
	HalfSight = "sight"
	// HalfCodeMotion is the code half of an entity's motion (WC004).
	HalfCodeMotion = "code_motion"
	// HalfSightMotion is the sight half of an entity's motion: a burst whose
	// pixels changed (WC004, weather, water and terrain only).
	HalfSightMotion = "sight_motion"
)

var knownHalves = map[string]bool{HalfCode: true, HalfSight: true, HalfCodeMotion: true, HalfSightMotion: true}

// Rubric is one rubric file, loaded and validated.
type Rubric struct {
	Name        string  `yaml:"name"`
	Prompt      Prompt  `yaml:"prompt"`
	TotalPoints float64 `yaml:"total_points"`
	Biomes      []Biome `yaml:"biomes"`
	Tests       []Test  `yaml:"tests"`
	Quote       Quote   `yaml:"quote"`
	Pixels      Pixels  `yaml:"pixels"`
	Gates       []Gate  `yaml:"gates"`
	// Dir is the rubric's folder; Path its file.
	Dir  string `yaml:"-"`
	Path string `yaml:"-"`
}

// Prompt is the world description every model received.
type Prompt struct {
	// File is the prompt's text, relative to the rubric's folder (it may
	// lie outside the repository, read in place).
	File    string `yaml:"file"`
	Summary string `yaml:"summary"`
}

// Biome is one region the world must build.
type Biome struct {
	ID    string `yaml:"id"`
	Label string `yaml:"label"`
	Line  int    `yaml:"-"`
}

// Test is one test of the ladder (WC001–WC005).
type Test struct {
	ID        string               `yaml:"id"`
	Title     string               `yaml:"title"`
	Points    float64              `yaml:"points"`
	Parts     []Part               `yaml:"parts"`
	PerBiome  yaml.Node            `yaml:"per_biome"`
	Items     []Item               `yaml:"items"`
	Defects   []Defect             `yaml:"defects"`
	Forbidden []Forbidden          `yaml:"forbidden"`
	Relations map[string]Relations `yaml:"relations"`
	Scope     map[string][]string  `yaml:"scope_aliases"`
	Line      int                  `yaml:"-"`
}

// Part is a separately scored part of a test (WC001's source judge and
// visual bug-hunt).
type Part struct {
	ID     string  `yaml:"id"`
	Points float64 `yaml:"points"`
	Rule   string  `yaml:"rule"`
}

// Item is one thing a test looks for.
type Item struct {
	ID    string `yaml:"id"`
	Label string `yaml:"label"`
	// Biome is set for per-biome items (WC003, WC004).
	Biome string `yaml:"biome"`
	// Points is a fixed worth (WC001, WC005); Weight a share of its biome's
	// points (WC003, WC004: points = per_biome · weight / Σ weights).
	Points float64 `yaml:"points"`
	Weight float64 `yaml:"weight"`
	// Halves are the witnesses the item is judged by.
	Halves []string `yaml:"halves"`
	// WC004 entities: kind, expected motion axis, whether it must move.
	Kind   string `yaml:"kind"`
	Axis   string `yaml:"axis"`
	Motion bool   `yaml:"motion"`
	// WC005: which clock it follows, how its sight half is judged (pixel,
	// vlm or none) and the pixel measure when it is one.
	Clock   string `yaml:"clock"`
	Sight   string `yaml:"sight"`
	Measure string `yaml:"measure"`
	Line    int    `yaml:"-"`
}

// Defect is a rendering defect the visual bug-hunt looks for (WC001).
type Defect struct {
	ID      string `yaml:"id"`
	PerView bool   `yaml:"per_view"`
	Label   string `yaml:"label"`
}

// Forbidden is an item a world must not show.
type Forbidden struct {
	ID      string  `yaml:"id"`
	Biome   string  `yaml:"biome"`
	Label   string  `yaml:"label"`
	Penalty float64 `yaml:"penalty"`
	Line    int     `yaml:"-"`
}

// Relations are one biome's placement rules (WC002).
type Relations struct {
	MustConnect    []string `yaml:"must_connect"`
	MustConnectAny []string `yaml:"must_connect_any"`
	MustNotConnect []string `yaml:"must_not_connect"`
	HigherThan     []string `yaml:"higher_than"`
}

// Quote holds the quote check's constants.
type Quote struct {
	MinChars       int     `yaml:"min_chars"`
	MinMatchShare  float64 `yaml:"min_match_share"`
	MinPrefixShare float64 `yaml:"min_prefix_share"`
}

// Pixels holds the pixel measures' constants.
type Pixels struct {
	Viewport        []int   `yaml:"viewport"`
	LitLuma         LitLuma `yaml:"lit_luma"`
	DayNightGap     float64 `yaml:"day_night_gap"`
	ChangeThreshold int     `yaml:"change_threshold"`
	MotionMin       float64 `yaml:"motion_min"`
	FrameDiff       struct {
		CropLeft    float64 `yaml:"crop_left"`
		LightChange float64 `yaml:"light_change"`
	} `yaml:"frame_diff"`
	Chroma struct {
		CropLeft    float64 `yaml:"crop_left"`
		Resize      []int   `yaml:"resize"`
		MinRGBSum   int     `yaml:"min_rgb_sum"`
		DuskShift   float64 `yaml:"dusk_shift"`
		SeasonShift float64 `yaml:"season_shift"`
	} `yaml:"chroma"`
	Bursts Bursts               `yaml:"bursts"`
	Orbits map[string][]float64 `yaml:"orbits"`
}

// LitLuma is the time-of-day brightness measure's crop, size and void cut.
type LitLuma struct {
	CropLeft float64 `yaml:"crop_left"`
	Resize   []int   `yaml:"resize"`
	VoidMax  int     `yaml:"void_max"`
}

// Bursts are the still-camera motion bursts.
type Bursts struct {
	NearFrames   int     `yaml:"near_frames"`
	FarFrames    int     `yaml:"far_frames"`
	GapSeconds   float64 `yaml:"gap_seconds"`
	ZoomOutSteps int     `yaml:"zoom_out_steps"`
}

// Gate is a cross-test rule.
type Gate struct {
	ID       string `yaml:"id"`
	Rule     string `yaml:"rule"`
	When     string `yaml:"when"`
	Test     string `yaml:"test"`
	Biome    string `yaml:"biome"`
	MinViews int    `yaml:"min_views"`
	Line     int    `yaml:"-"`
}

// The line-recording decoders: each decodes its plain form and keeps the
// node's line for messages.
func (b *Biome) UnmarshalYAML(n *yaml.Node) error {
	type plain Biome
	b.Line = n.Line
	return n.Decode((*plain)(b))
}

// UnmarshalYAML decodes a test and keeps its line.
func (t *Test) UnmarshalYAML(n *yaml.Node) error {
	type plain Test
	t.Line = n.Line
	return n.Decode((*plain)(t))
}

// UnmarshalYAML decodes an item and keeps its line.
func (i *Item) UnmarshalYAML(n *yaml.Node) error {
	type plain Item
	i.Line = n.Line
	return n.Decode((*plain)(i))
}

// UnmarshalYAML decodes a forbidden item and keeps its line.
func (f *Forbidden) UnmarshalYAML(n *yaml.Node) error {
	type plain Forbidden
	f.Line = n.Line
	return n.Decode((*plain)(f))
}

// UnmarshalYAML decodes a gate and keeps its line.
func (g *Gate) UnmarshalYAML(n *yaml.Node) error {
	type plain Gate
	g.Line = n.Line
	return n.Decode((*plain)(g))
}

// Load reads dir/rubric.yaml (or the file dir names) and validates it.
// The error lists every problem found, each as FILE:LINE: message.
func Load(dir string) (*Rubric, error) {
	path := dir
	if st, err := os.Stat(dir); err == nil && st.IsDir() {
		path = filepath.Join(dir, FileName)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the rubric: %w", err)
	}
	return Parse(path, data)
}

// Parse decodes and validates a rubric; path names it in messages and
// anchors the prompt file.
func Parse(path string, data []byte) (*Rubric, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var r Rubric
	if err := dec.Decode(&r); err != nil {
		// Syntax and type errors name their line as every other problem.
		return nil, task.YAMLError(path, err)
	}
	r.Path, r.Dir = path, filepath.Dir(path)
	if errs := r.validate(); len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return &r, nil
}

// PerBiomePoints is a per-biome test's points per biome, or 0 when the test
// is not split by biome as a number (WC002 gives a map: covered, placed).
func (t *Test) PerBiomePoints() float64 {
	var v float64
	if t.PerBiome.Kind == yaml.ScalarNode && t.PerBiome.Decode(&v) == nil {
		return v
	}
	return 0
}

// Test returns the test with the given id, or nil.
func (r *Rubric) Test(id string) *Test {
	for i := range r.Tests {
		if r.Tests[i].ID == id {
			return &r.Tests[i]
		}
	}
	return nil
}

// ItemPoints is what an item is worth: its points, or for a weighted
// per-biome item its biome's points shared by weight, rounded to 2 decimals
// as WorldBench does (p = round(u · w, 2), u = per_biome / Σ w).
func (r *Rubric) ItemPoints(t *Test, it Item) float64 {
	if it.Points > 0 || it.Biome == "" {
		return it.Points
	}
	sum := 0.0
	for _, o := range t.Items {
		if o.Biome == it.Biome {
			sum += o.Weight
		}
	}
	if sum == 0 {
		return 0
	}
	return math.Round(t.PerBiomePoints()/sum*it.Weight*100) / 100
}

func (r *Rubric) validate() []error {
	var errs []error
	at := func(line int, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s:%d: %s", r.Path, line, fmt.Sprintf(format, args...)))
	}
	if r.Name == "" {
		at(1, "name is missing")
	}
	biomes := map[string]bool{}
	for _, b := range r.Biomes {
		switch {
		case b.ID == "" || b.Label == "":
			at(b.Line, "a biome needs an id and a label")
		case biomes[b.ID]:
			at(b.Line, "biome %q is listed twice", b.ID)
		}
		biomes[b.ID] = true
	}
	if len(r.Biomes) == 0 {
		at(1, "no biomes")
	}
	tests, sum := map[string]bool{}, 0.0
	for ti := range r.Tests {
		t := &r.Tests[ti]
		if t.ID == "" || tests[t.ID] {
			at(t.Line, "test id %q is empty or repeated", t.ID)
		}
		tests[t.ID] = true
		if t.Points <= 0 {
			at(t.Line, "test %s: points must be positive", t.ID)
		}
		sum += t.Points
		r.validateItems(t, biomes, at)
		for _, f := range t.Forbidden {
			if f.ID == "" {
				at(f.Line, "test %s: a forbidden item needs an id", t.ID)
			}
			if f.Biome != "" && !biomes[f.Biome] {
				at(f.Line, "test %s: forbidden %s names unknown biome %q", t.ID, f.ID, f.Biome)
			}
			if f.Penalty < 0 {
				at(f.Line, "test %s: forbidden %s: penalty must not be negative", t.ID, f.ID)
			}
		}
		for b, rel := range t.Relations {
			if !biomes[b] {
				at(t.Line, "test %s: relations of unknown biome %q", t.ID, b)
			}
			for _, list := range [][]string{rel.MustConnect, rel.MustConnectAny, rel.MustNotConnect, rel.HigherThan} {
				for _, o := range list {
					if !biomes[o] || o == b {
						at(t.Line, "test %s: biome %s relates to %q, which is not another biome", t.ID, b, o)
					}
				}
			}
		}
		for b := range t.Scope {
			if !biomes[b] {
				at(t.Line, "test %s: scope aliases of unknown biome %q", t.ID, b)
			}
		}
		if len(t.Parts) > 0 {
			ps := 0.0
			for _, p := range t.Parts {
				ps += p.Points
			}
			if !near(ps, t.Points) {
				at(t.Line, "test %s: its parts add up to %g, not its %g points", t.ID, ps, t.Points)
			}
		}
	}
	if !near(sum, r.TotalPoints) {
		at(1, "total_points is %g but the tests add up to %g", r.TotalPoints, sum)
	}
	q := r.Quote
	if q.MinChars < 1 || !share(q.MinMatchShare) || !share(q.MinPrefixShare) {
		at(1, "quote: min_chars must be ≥ 1 and the shares in (0, 1]")
	}
	p := r.Pixels
	if len(p.Viewport) != 2 || p.Viewport[0] < 16 || p.Viewport[1] < 16 {
		at(1, "pixels.viewport must be [width, height], each ≥ 16")
	}
	if len(p.LitLuma.Resize) != 2 || p.LitLuma.Resize[0] < 1 || p.LitLuma.Resize[1] < 1 || p.LitLuma.CropLeft < 0 || p.LitLuma.CropLeft >= 1 {
		at(1, "pixels.lit_luma needs crop_left in [0, 1) and resize [w, h]")
	}
	if len(p.Chroma.Resize) != 2 || p.Chroma.CropLeft < 0 || p.Chroma.CropLeft >= 1 || p.FrameDiff.CropLeft < 0 || p.FrameDiff.CropLeft >= 1 {
		at(1, "pixels.chroma and pixels.frame_diff need crop_left in [0, 1) (and chroma a resize [w, h])")
	}
	if p.ChangeThreshold < 0 || p.ChangeThreshold > 255 || p.DayNightGap <= 0 || p.MotionMin <= 0 {
		at(1, "pixels: change_threshold in [0, 255], day_night_gap and motion_min positive")
	}
	b := p.Bursts
	if b.NearFrames < 2 || b.FarFrames < 2 || b.GapSeconds <= 0 {
		at(1, "pixels.bursts: at least 2 frames each and a positive gap")
	}
	gates := map[string]bool{}
	for _, g := range r.Gates {
		if g.ID == "" || gates[g.ID] {
			at(g.Line, "gate id %q is empty or repeated", g.ID)
		}
		gates[g.ID] = true
		if g.Test != "" && !tests[g.Test] {
			at(g.Line, "gate %s names unknown test %q", g.ID, g.Test)
		}
		if g.Biome != "" && !biomes[g.Biome] {
			at(g.Line, "gate %s names unknown biome %q", g.ID, g.Biome)
		}
	}
	for _, g := range r.Gates {
		if g.When != "" && !gates[g.When] {
			at(g.Line, "gate %s: when names unknown gate %q", g.ID, g.When)
		}
	}
	return errs
}

func (r *Rubric) validateItems(t *Test, biomes map[string]bool, at func(int, string, ...any)) {
	seen := map[string]bool{}
	points, perBiome := 0.0, map[string]bool{}
	for _, it := range t.Items {
		key := it.Biome + "/" + it.ID
		if it.ID == "" || seen[key] {
			at(it.Line, "test %s: item id %q is empty or repeated", t.ID, key)
		}
		seen[key] = true
		if it.Biome != "" && !biomes[it.Biome] {
			at(it.Line, "test %s: item %s names unknown biome %q", t.ID, it.ID, it.Biome)
		}
		if (it.Points > 0) == (it.Weight > 0) {
			at(it.Line, "test %s: item %s needs either points or a weight (both positive, not both)", t.ID, it.ID)
		}
		if it.Weight > 0 && it.Biome == "" {
			at(it.Line, "test %s: item %s has a weight but no biome", t.ID, it.ID)
		}
		if len(it.Halves) == 0 {
			at(it.Line, "test %s: item %s has no halves", t.ID, it.ID)
		}
		for _, h := range it.Halves {
			if !knownHalves[h] {
				at(it.Line, "test %s: item %s: unknown half %q (code, sight, code_motion, sight_motion)", t.ID, it.ID, h)
			}
		}
		if it.Sight == "pixel" && it.Measure == "" {
			at(it.Line, "test %s: item %s is judged by pixels but names no measure", t.ID, it.ID)
		}
		points += it.Points
		if it.Biome != "" {
			perBiome[it.Biome] = true
		}
	}
	if pb := t.PerBiomePoints(); pb > 0 {
		if !near(pb*float64(len(biomes)), t.Points) {
			at(t.Line, "test %s: %g per biome × %d biomes is not its %g points", t.ID, pb, len(biomes), t.Points)
		}
		for b := range biomes {
			if len(t.Items) > 0 && !perBiome[b] {
				at(t.Line, "test %s: biome %s has no items", t.ID, b)
			}
		}
	} else if points > 0 {
		want := t.Points
		for _, p := range t.Parts {
			if p.ID == "source_judge" {
				want = p.Points
			}
		}
		if !near(points, want) {
			at(t.Line, "test %s: its items add up to %g points, not %g", t.ID, points, want)
		}
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
func share(v float64) bool   { return v > 0 && v <= 1 }
