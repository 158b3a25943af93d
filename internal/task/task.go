package task

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/worldprobe/worldprobe/internal/contract"
	"github.com/worldprobe/worldprobe/internal/xr"
)

// File names inside a task folder.
const (
	TaskFile      = "task.yaml"
	BriefFile     = "brief.md"
	ContractFile  = "contract.yaml"
	SolutionDir   = "solution"
	CandidatesDir = "candidates"
	ExpectFile    = "expect.yaml"
	PageFile      = "index.html"
)

// Categories lists the task categories.
func Categories() []string {
	return []string{"simulation", "rendering", "application", "xr", "world"}
}

// Difficulties lists the difficulty grades, easiest first.
func Difficulties() []string { return []string{"D1", "D2", "D3", "D4", "D5", "D6"} }

// Defaults for fields task.yaml may omit.
const (
	DefaultFPS     = 60
	DefaultSeed    = 1
	DefaultFrames  = 900
	DefaultTimeout = 30 * time.Second
	DefaultWidth   = 1280
	DefaultHeight  = 800
)

// defaultHumanHours are the hours DefaultHumanHours gives each difficulty.
var defaultHumanHours = map[string]float64{"D1": 1, "D2": 1.5, "D3": 2, "D4": 3, "D5": 4, "D6": 4.5}

// DefaultHumanHours is the estimate of human hours for a task whose
// task.yaml has no human_hours, by difficulty: D1 1 h, D2 1.5 h, D3 2 h,
// D4 3 h, D5 4 h, D6 4.5 h — the starter suite's median estimate per grade
// (1, 1.5, 1.75, 2.75, 4 and 4.5 h) rounded up to the half hour
// (TestDefaultHumanHoursAreStarterMedians keeps them so).
// An unknown difficulty has none (0).
func DefaultHumanHours(difficulty string) float64 { return defaultHumanHours[difficulty] }

// EstimatedHumanHours is the task's human_hours, or its difficulty's
// default when it has none.
func (t *Task) EstimatedHumanHours() float64 {
	if t.HumanHours > 0 {
		return t.HumanHours
	}
	return DefaultHumanHours(t.Difficulty)
}

// Task is a task.yaml, validated, with the folder it was read from.
type Task struct {
	// ID is "<category>/<slug>", the task's folder below the suite.
	ID         string `yaml:"id" json:"id"`
	Title      string `yaml:"title" json:"title"`
	Category   string `yaml:"category" json:"category"`
	Subdomain  string `yaml:"subdomain,omitempty" json:"subdomain,omitempty"`
	Difficulty string `yaml:"difficulty" json:"difficulty"`
	// HumanHours estimates how long a skilled developer would take to
	// write the page: H_human of RoA and TEM (docs/metrics.md). Absent
	// (0), EstimatedHumanHours uses the difficulty's default.
	HumanHours float64 `yaml:"human_hours,omitempty" json:"human_hours,omitempty"`
	// Viewport is the page's size in CSS pixels.
	Viewport Viewport `yaml:"viewport" json:"viewport"`
	// FPS is the virtual frame rate probes run at unless they set their own.
	FPS float64 `yaml:"fps" json:"fps"`
	// Seed seeds the page's randomness.
	Seed uint32 `yaml:"seed" json:"seed"`
	// Frames is the frame budget: the most frames one probe may step in all.
	Frames int `yaml:"frames" json:"frames"`
	// Timeout is how long the page may keep control in one call before it
	// counts as unresponsive.
	Timeout Duration `yaml:"timeout" json:"timeout"`
	// XR, when set, names the emulated XR headset every page of the task
	// runs with (one of xr.Profiles, e.g. "metaQuest3"): installed before
	// the page's scripts, immersive sessions granted with no click, XR
	// frames on the virtual clock (docs/xr.md).
	XR string `yaml:"xr,omitempty" json:"xr,omitempty"`
	// XRBackend says how the headset is emulated (one of xr.Backends):
	// "iwer" (the default) for any WebXR page, "xrblocks" for an app
	// written with XR Blocks, driven in XR Blocks' own simulator
	// (docs/xr.md). It needs xr:.
	XRBackend string `yaml:"xrBackend,omitempty" json:"xr_backend,omitempty"`
	// Room, with XR, stands the headset in a room its session detects
	// (planes, meshes, hit tests): one of xr.Rooms (the captures @iwer/sem
	// ships, e.g. "living_room") or the path of a room JSON file in the
	// task folder (docs/xr.md, "Rooms").
	Room string `yaml:"room,omitempty" json:"room,omitempty"`
	// Scaffold, when set, is the page the task starts from, relative to
	// the task folder (conventionally scaffold/index.html): an existing
	// app with one capability removed or one defect. The prompt holds its
	// source and every file beside it; the answer is the whole changed
	// page. Probes may be labelled fail_to_pass or pass_to_pass against it
	// (docs/tasks.md, "Scaffolded tasks").
	Scaffold string `yaml:"scaffold,omitempty" json:"scaffold,omitempty"`
	// State is the state interface the page must expose as window.__3D_STATE__.
	// A task judged by the world judge (Judge) has none.
	State []StateField `yaml:"state" json:"state"`
	// Judge, when set, judges the task's pages with the world judge
	// against a rubric instead of a contract (judge.go): the task has no
	// state interface and no contract.yaml.
	Judge *JudgeSpec `yaml:"judge,omitempty" json:"judge,omitempty"`
	// Params are the task's parameters, by name.
	Params map[string]Param `yaml:"params,omitempty" json:"params,omitempty"`
	// Controls are the inputs the brief gives the user, each one contract
	// input step (key, click, wheel, drag, move, type), e.g.
	// {key: {press: " "}} or {click: {object: ball}}. 'task check' draws
	// seeded input sequences from them to explore beyond the contract when
	// it judges whether a mutant is equivalent.
	Controls []map[string]any `yaml:"controls,omitempty" json:"controls,omitempty"`
	// VariantOf is set on a Robust variant (written by `worldprobe suite
	// perturb`): the id of the Core task it was drawn from.
	VariantOf string `yaml:"variant_of,omitempty" json:"variant_of,omitempty"`
	// Variant numbers a Robust variant, from 1.
	Variant int `yaml:"variant,omitempty" json:"variant,omitempty"`

	// Dir is the task folder.
	Dir string `yaml:"-" json:"-"`
}

// Viewport is a size in CSS pixels.
type Viewport struct {
	Width  int `yaml:"width" json:"width"`
	Height int `yaml:"height" json:"height"`
}

// StateField declares one path of the state interface.
type StateField struct {
	// Path is dotted, e.g. "ball.position".
	Path string `yaml:"path" json:"path"`
	// Type is one of contract.Types().
	Type        string `yaml:"type" json:"type"`
	Unit        string `yaml:"unit,omitempty" json:"unit,omitempty"`
	Description string `yaml:"description,omitempty" json:"description,omitempty"`
	// Values are the allowed strings of an enum.
	Values []string `yaml:"values,omitempty" json:"values,omitempty"`
	// Nullable allows null besides a value of Type ("nothing held").
	Nullable bool `yaml:"nullable,omitempty" json:"nullable,omitempty"`
}

// Param is a numeric task parameter: the Core task uses Default, Robust
// variants draw from [Min, Max].
type Param struct {
	Default     float64  `yaml:"default" json:"default"`
	Min         *float64 `yaml:"min,omitempty" json:"min,omitempty"`
	Max         *float64 `yaml:"max,omitempty" json:"max,omitempty"`
	Unit        string   `yaml:"unit,omitempty" json:"unit,omitempty"`
	Description string   `yaml:"description,omitempty" json:"description,omitempty"`
	// Integer marks a count: its default, bounds and drawn values are whole numbers.
	Integer bool `yaml:"integer,omitempty" json:"integer,omitempty"`
}

// Duration is a time.Duration written as a Go duration string ("30s", "1m30s").
type Duration time.Duration

// UnmarshalYAML reads a duration string.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: want a duration such as 30s", n.Line)
	}
	v, err := time.ParseDuration(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %q is not a duration (write e.g. 30s or 1m30s)", n.Line, n.Value)
	}
	*d = Duration(v)
	return nil
}

// MarshalYAML writes the duration string.
func (d Duration) MarshalYAML() (any, error) { return time.Duration(d).String(), nil }

// MarshalText writes the duration string (JSON and other encoders).
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// UnmarshalText reads a duration string.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return err
	}
	*d = Duration(v)
	return nil
}

// ContractPath is the task's contract.yaml.
func (t *Task) ContractPath() string { return filepath.Join(t.Dir, ContractFile) }

// SolutionPath is the reference solution's page.
func (t *Task) SolutionPath() string { return filepath.Join(t.Dir, SolutionDir, PageFile) }

// BriefPath is the task's brief.md.
func (t *Task) BriefPath() string { return filepath.Join(t.Dir, BriefFile) }

// ScaffoldPath is the scaffold page, "" for a task without one.
func (t *Task) ScaffoldPath() string {
	if t.Scaffold == "" {
		return ""
	}
	return filepath.Join(t.Dir, filepath.FromSlash(t.Scaffold))
}

// Slug is the last part of the id.
func (t *Task) Slug() string { return t.ID[strings.LastIndexByte(t.ID, '/')+1:] }

// Interface returns the state interface as the contract package's
// interface probe checks it.
func (t *Task) Interface() []contract.Field {
	out := make([]contract.Field, len(t.State))
	for i, f := range t.State {
		out[i] = contract.Field{Path: f.Path, Type: f.Type, Values: f.Values, Nullable: f.Nullable}
	}
	return out
}

// ParamNames returns the parameter names, sorted.
func (t *Task) ParamNames() []string {
	names := make([]string, 0, len(t.Params))
	for n := range t.Params {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// DefaultParams maps each parameter to its default, as the CEL variable params.
func (t *Task) DefaultParams() map[string]any {
	out := make(map[string]any, len(t.Params))
	for n, p := range t.Params {
		out[n] = p.Default
	}
	return out
}

// Load reads and validates dir/task.yaml. All problems are returned
// together, each as "task.yaml:LINE: message".
func Load(dir string) (*Task, error) {
	file := filepath.Join(dir, TaskFile)
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	t, err := Parse(file, data)
	if err != nil {
		return nil, err
	}
	t.Dir = dir
	slug := filepath.Base(abs)
	category := filepath.Base(filepath.Dir(abs))
	var errs []error
	if want := category + "/" + slug; t.ID != want {
		errs = append(errs, posErr(file, lineOf(data, "id"), "id %q does not match its folder: want %q (<category>/<slug>)", t.ID, want))
	}
	if !slugRE.MatchString(slug) {
		errs = append(errs, posErr(file, 0, "folder name %q is not a slug (lower-case letters, digits and single dashes)", slug))
	}
	if t.Judge != nil {
		if _, err := os.Stat(filepath.Join(t.RubricDir(), RubricFile)); err != nil {
			errs = append(errs, posErr(file, nodeLineOf(data, "judge", "rubric"), "judge: rubric %q: no %s in %s", t.Judge.Rubric, RubricFile, t.RubricDir()))
		}
	}
	if xr.RoomFile(t.Room) && xr.CheckRoom(t.Room) == "" {
		if _, err := os.Stat(filepath.Join(dir, t.Room)); err != nil {
			errs = append(errs, posErr(file, lineOf(data, "room"), "room %q: no such file in the task folder", t.Room))
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return t, nil
}

// room checks task.yaml's room: it needs xr:, and names one of xr.Rooms
// or a .json file inside the task folder.
func (v *validator) room(t *Task) {
	if !v.has("xr") {
		v.errorf(at("room"), "room: a room needs a headset: set xr: too")
	} else if msg := xr.CheckRoom(t.Room); msg != "" {
		v.errorf(at("room"), "room: %s", msg)
	}
}

// RoomSource is the task's room as xr.Options.Room takes it: a capture's
// name, or its room file's path; "" when the task sets no room.
func (t *Task) RoomSource() string {
	if xr.RoomFile(t.Room) {
		return filepath.Join(t.Dir, t.Room)
	}
	return t.Room
}

// Parse decodes and validates a task.yaml without looking at its folder
// (the id is checked against the category only). file names it in errors.
func Parse(file string, data []byte) (*Task, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, YAMLError(file, err)
	}
	if len(root.Content) == 0 {
		return nil, posErr(file, 0, "empty file")
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var t Task
	if err := dec.Decode(&t); err != nil {
		return nil, YAMLError(file, err)
	}
	v := validator{file: file, root: root.Content[0]}
	v.task(&t)
	if len(v.errs) > 0 {
		return nil, errors.Join(v.errs...)
	}
	return &t, nil
}

var (
	slugRE  = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	pathRE  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$`)
	identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// validator checks a decoded task, placing each problem at its line.
type validator struct {
	file string
	root *yaml.Node
	errs []error
}

func (v *validator) errorf(keys []any, format string, args ...any) {
	v.errs = append(v.errs, posErr(v.file, nodeLine(v.root, keys...), format, args...))
}

func (v *validator) has(key string) bool { return lookup(v.root, key) != nil }

func (v *validator) task(t *Task) {
	required := []string{"id", "title", "category", "difficulty", "state"}
	if v.has("judge") {
		required = required[:4] // a world-judged task has no state interface
		v.judge(t)
	}
	for _, k := range required {
		if !v.has(k) {
			v.errorf(nil, "missing %s", k)
		}
	}
	if t.Title != "" && strings.TrimSpace(t.Title) == "" {
		v.errorf(at("title"), "title is blank")
	}
	if v.has("category") && !contains(Categories(), t.Category) {
		v.errorf(at("category"), "unknown category %q (want one of %s)", t.Category, strings.Join(Categories(), ", "))
	}
	if v.has("id") {
		cat, slug, ok := strings.Cut(t.ID, "/")
		switch {
		case !ok || !slugRE.MatchString(slug) || strings.Contains(slug, "/"):
			v.errorf(at("id"), "id %q: want <category>/<slug>, the slug in lower-case letters, digits and dashes", t.ID)
		case v.has("category") && cat != t.Category:
			v.errorf(at("id"), "id %q is not in category %q", t.ID, t.Category)
		}
	}
	if v.has("difficulty") && !contains(Difficulties(), t.Difficulty) {
		v.errorf(at("difficulty"), "unknown difficulty %q (want D1 … D6)", t.Difficulty)
	}
	if v.has("human_hours") && t.HumanHours <= 0 {
		v.errorf(at("human_hours"), "human_hours must be > 0 (leave it out to use the difficulty's default, %s h for %s)",
			ftoa(DefaultHumanHours(t.Difficulty)), t.Difficulty)
	}
	if v.has("viewport") {
		if t.Viewport.Width <= 0 || t.Viewport.Height <= 0 || t.Viewport.Width > 8192 || t.Viewport.Height > 8192 {
			v.errorf(at("viewport"), "viewport: want width and height between 1 and 8192")
		}
	} else {
		t.Viewport = Viewport{Width: DefaultWidth, Height: DefaultHeight}
	}
	if v.has("fps") {
		if t.FPS <= 0 || t.FPS > 1000 {
			v.errorf(at("fps"), "fps must be > 0 and <= 1000")
		}
	} else {
		t.FPS = DefaultFPS
	}
	if !v.has("seed") {
		t.Seed = DefaultSeed
	}
	if v.has("frames") {
		if t.Frames <= 0 {
			v.errorf(at("frames"), "frames (the frame budget) must be > 0")
		}
	} else {
		t.Frames = DefaultFrames
	}
	if v.has("timeout") {
		if t.Timeout <= 0 {
			v.errorf(at("timeout"), "timeout must be > 0")
		}
	} else {
		t.Timeout = Duration(DefaultTimeout)
	}
	if v.has("xr") && !slices.Contains(xr.Profiles, t.XR) {
		v.errorf(at("xr"), "xr: no such headset %q (one of %s)", t.XR, strings.Join(xr.Profiles, ", "))
	}
	if v.has("xrBackend") && (!slices.Contains(xr.Backends, t.XRBackend) || t.XR == "") {
		v.errorf(at("xrBackend"), "xrBackend: %q needs xr: and is one of %s", t.XRBackend, strings.Join(xr.Backends, ", "))
	} else if t.XRBackend == xr.BackendXRBlocks && t.XR != "metaQuest3" {
		v.errorf(at("xrBackend"), "xrBackend: xrblocks simulates XR Blocks' own device: want xr: metaQuest3")
	}
	if v.has("room") {
		v.room(t)
		if t.XRBackend == xr.BackendXRBlocks {
			v.errorf(at("room"), "room: needs the IWER backend (@iwer/sem); XR Blocks' simulator has rooms of its own")
		}
	}
	if v.has("scaffold") {
		v.scaffold(t.Scaffold)
	}
	v.state(t.State)
	v.params(t)
}

// scaffold checks the scaffold's path: relative, inside the task folder,
// an HTML page.
func (v *validator) scaffold(p string) {
	clean := path.Clean(filepath.ToSlash(p))
	switch {
	case strings.TrimSpace(p) == "":
		v.errorf(at("scaffold"), "scaffold: want the scaffold page's path in the task folder, e.g. scaffold/index.html")
	case path.IsAbs(clean) || filepath.IsAbs(p) || clean == ".." || strings.HasPrefix(clean, "../"):
		v.errorf(at("scaffold"), "scaffold %q: want a path inside the task folder, e.g. scaffold/index.html", p)
	case !strings.Contains(clean, "/"):
		v.errorf(at("scaffold"), "scaffold %q: put the scaffold in a folder of its own (e.g. scaffold/index.html): every file beside it goes into the prompt", p)
	case path.Ext(clean) != ".html":
		v.errorf(at("scaffold"), "scaffold %q: want an .html page", p)
	}
}

func (v *validator) state(fields []StateField) {
	if v.has("state") && len(fields) == 0 {
		v.errorf(at("state"), "state: declare at least one path")
	}
	seen := map[string]int{}
	for i, f := range fields {
		where := at("state", i)
		switch {
		case f.Path == "":
			v.errorf(where, "state[%d]: missing path", i)
			continue
		case !pathRE.MatchString(f.Path):
			v.errorf(at("state", i, "path"), "state path %q: want dotted names (letters, digits, _), e.g. ball.position", f.Path)
		}
		if j, dup := seen[f.Path]; dup {
			v.errorf(at("state", i, "path"), "state path %q declared twice (also state[%d])", f.Path, j)
		}
		seen[f.Path] = i
		switch {
		case f.Type == "":
			v.errorf(where, "state %s: missing type (%s)", f.Path, strings.Join(contract.Types(), ", "))
		case !contains(contract.Types(), f.Type):
			v.errorf(at("state", i, "type"), "state %s: unknown type %q (want one of %s)", f.Path, f.Type, strings.Join(contract.Types(), ", "))
		case f.Type == "enum" && len(f.Values) == 0:
			v.errorf(at("state", i, "type"), "state %s: an enum needs values", f.Path)
		case f.Type != "enum" && len(f.Values) > 0:
			v.errorf(at("state", i, "values"), "state %s: values are for enums only", f.Path)
		}
		vals := map[string]bool{}
		for _, val := range f.Values {
			if vals[val] {
				v.errorf(at("state", i, "values"), "state %s: value %q listed twice", f.Path, val)
			}
			vals[val] = true
		}
	}
	// A declared path below another needs the other to be an object.
	for i, f := range fields {
		for _, g := range fields {
			if strings.HasPrefix(f.Path, g.Path+".") && g.Type != "object" {
				v.errorf(at("state", i, "path"), "state %s is below %s, which is a %s, not an object", f.Path, g.Path, g.Type)
			}
		}
	}
}

func (v *validator) params(t *Task) {
	for _, name := range t.ParamNames() {
		p := t.Params[name]
		where := at("params", name)
		if !identRE.MatchString(name) {
			v.errorf(where, "param name %q: use letters, digits and _ (it is read as params.%s)", name, name)
		}
		if lookup(v.root, "params", name, "default") == nil {
			v.errorf(where, "param %s: missing default", name)
		}
		if p.Min != nil && p.Max != nil && *p.Min > *p.Max {
			v.errorf(where, "param %s: min %s is above max %s", name, ftoa(*p.Min), ftoa(*p.Max))
			continue
		}
		if p.Integer {
			for _, f := range []*float64{&p.Default, p.Min, p.Max} {
				if f != nil && *f != math.Trunc(*f) {
					v.errorf(where, "param %s is an integer, but %s is not a whole number", name, ftoa(*f))
				}
			}
		}
		if p.Min != nil && p.Default < *p.Min || p.Max != nil && p.Default > *p.Max {
			v.errorf(at("params", name, "default"), "param %s: default %s is outside [%s, %s]", name, ftoa(p.Default), bound(p.Min, "-∞"), bound(p.Max, "∞"))
		}
	}
}

func bound(f *float64, none string) string {
	if f == nil {
		return none
	}
	return ftoa(*f)
}

func ftoa(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

func at(keys ...any) []any { return keys }

// lookup finds the value node at a path of mapping keys (string) and
// sequence indexes (int).
func lookup(n *yaml.Node, keys ...any) *yaml.Node {
	for _, k := range keys {
		if n == nil {
			return nil
		}
		switch k := k.(type) {
		case string:
			if n.Kind != yaml.MappingNode {
				return nil
			}
			var next *yaml.Node
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == k {
					next = n.Content[i+1]
				}
			}
			n = next
		case int:
			if n.Kind != yaml.SequenceNode || k >= len(n.Content) {
				return nil
			}
			n = n.Content[k]
		}
	}
	return n
}

// nodeLine is the line of the deepest node found along keys.
func nodeLine(root *yaml.Node, keys ...any) int {
	line := 0
	if root != nil {
		line = root.Line
	}
	for i := range keys {
		if n := lookup(root, keys[:i+1]...); n != nil {
			line = n.Line
		} else {
			break
		}
	}
	return line
}

// lineOf is the line of a top-level key in a YAML document.
func lineOf(data []byte, key string) int {
	var root yaml.Node
	if yaml.Unmarshal(data, &root) != nil || len(root.Content) == 0 {
		return 0
	}
	return nodeLine(root.Content[0], key)
}

// PosError is a problem at a line of a file.
type PosError = contract.PosError

func posErr(file string, line int, format string, args ...any) error {
	return &PosError{File: file, Line: line, Msg: fmt.Sprintf(format, args...)}
}

var (
	lineRE     = regexp.MustCompile(`^line (\d+): (.*)$`)
	unknownRE  = regexp.MustCompile(`^field (\S+) not found in type \S+$`)
	unmarshalR = regexp.MustCompile("^cannot unmarshal !!(\\w+) `(.*)` into (.+)$")
)

// goTypeWords names Go types the way a task author thinks of them.
var goTypeWords = map[string]string{
	"float64": "a number", "int": "a whole number", "uint32": "a whole number >= 0",
	"string": "a string", "bool": "true or false",
}

// YAMLError turns a yaml.v3 decoding error (syntax or type) into
// FILE:LINE messages, one per problem, joined.
func YAMLError(file string, err error) error {
	var te *yaml.TypeError
	var lines []string
	if errors.As(err, &te) {
		lines = te.Errors
	} else {
		lines = []string{strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	var errs []error
	for _, l := range lines {
		line := 0
		if m := lineRE.FindStringSubmatch(l); m != nil {
			line, _ = strconv.Atoi(m[1])
			l = m[2]
		}
		if m := unknownRE.FindStringSubmatch(l); m != nil {
			l = fmt.Sprintf("unknown field %q", m[1])
		} else if m := unmarshalR.FindStringSubmatch(l); m != nil {
			want := goTypeWords[m[3]]
			if want == "" {
				want = describeGoType(m[3])
			}
			l = fmt.Sprintf("%q is not %s", m[2], want)
		}
		errs = append(errs, posErr(file, line, "%s", l))
	}
	return errors.Join(errs...)
}

func describeGoType(t string) string {
	switch {
	case strings.HasPrefix(t, "[]"):
		return "a list"
	case strings.HasPrefix(t, "map["), strings.HasPrefix(t, "task."):
		return "a mapping"
	}
	return t
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
