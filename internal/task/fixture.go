package task

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/worldprobe/worldprobe/internal/contract"
	"github.com/worldprobe/worldprobe/internal/result"
)

// Fixture is a known-flawed candidate page with its expected outcome.
type Fixture struct {
	// Name is the candidate's folder name.
	Name string
	// Dir is candidates/<name>.
	Dir string
	// Page is candidates/<name>/index.html.
	Page   string
	Expect Expect
}

// Expect is a fixture's expect.yaml.
type Expect struct {
	// Reason says what is wrong with the candidate.
	Reason string `yaml:"reason" json:"reason"`
	// Fails lists probes that must have at least one assertion that does not pass.
	Fails []string `yaml:"fails,omitempty" json:"fails,omitempty"`
	// Outcome is ok or crash; empty reads as ok.
	Outcome string `yaml:"outcome,omitempty" json:"outcome,omitempty"`
	// CrashKind is the expected crash kind when Outcome is crash.
	CrashKind string `yaml:"crash_kind,omitempty" json:"crash_kind,omitempty"`
	// Attribution, when set, is the trial's expected attribution.
	Attribution string `yaml:"attribution,omitempty" json:"attribution,omitempty"`
}

// Outcomes of a fixture.
const (
	OutcomeOK    = result.OutcomeOK
	OutcomeCrash = result.OutcomeCrash
)

// CrashKinds lists the crash kinds an expect.yaml may name: every kind a
// page can be given (result.CrashKinds).
func CrashKinds() []string { return result.CrashKinds() }

// Fixtures reads every candidates/<name>/ of the task, sorted by name. A
// task without candidates has none. All problems are returned together.
func (t *Task) Fixtures() ([]Fixture, error) {
	root := filepath.Join(t.Dir, CandidatesDir)
	entries, err := os.ReadDir(root)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Fixture
	var errs []error
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		f, err := loadFixture(filepath.Join(root, e.Name()))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, errors.Join(errs...)
}

func loadFixture(dir string) (Fixture, error) {
	f := Fixture{Name: filepath.Base(dir), Dir: dir, Page: filepath.Join(dir, PageFile)}
	var errs []error
	if _, err := os.Stat(f.Page); err != nil {
		errs = append(errs, posErr(f.Page, 0, "candidate %s has no %s", f.Name, PageFile))
	}
	file := filepath.Join(dir, ExpectFile)
	data, err := os.ReadFile(file)
	if err != nil {
		return f, errors.Join(append(errs, posErr(file, 0, "candidate %s: %v", f.Name, errors.Unwrap(err)))...)
	}
	e, err := ParseExpect(file, data)
	if err != nil {
		errs = append(errs, err)
	}
	f.Expect = e
	return f, errors.Join(errs...)
}

// ParseExpect decodes and validates an expect.yaml; file names it in errors.
func ParseExpect(file string, data []byte) (Expect, error) {
	var e Expect
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&e); err != nil {
		return e, YAMLError(file, err)
	}
	var root yaml.Node
	_ = yaml.Unmarshal(data, &root)
	var top *yaml.Node
	if len(root.Content) > 0 {
		top = root.Content[0]
	}
	var errs []error
	bad := func(key string, format string, args ...any) {
		errs = append(errs, posErr(file, nodeLine(top, key), format, args...))
	}
	if strings.TrimSpace(e.Reason) == "" {
		bad("reason", "missing reason: say what is wrong with this candidate")
	}
	if e.Outcome == "" {
		e.Outcome = OutcomeOK
	}
	switch e.Outcome {
	case OutcomeOK:
		if e.CrashKind != "" {
			bad("crash_kind", "crash_kind is for outcome: crash only")
		}
		if len(e.Fails) == 0 {
			bad("fails", "a candidate with outcome ok must list the probes it fails")
		}
		if e.Attribution == contract.AttrCrash {
			bad("attribution", "attribution crash needs outcome: crash")
		}
	case OutcomeCrash:
		if !contains(CrashKinds(), e.CrashKind) {
			key := "crash_kind"
			if e.CrashKind == "" {
				key = "outcome"
			}
			bad(key, "outcome crash needs crash_kind, one of %s", strings.Join(CrashKinds(), ", "))
		}
		if len(e.Fails) > 0 {
			bad("fails", "a crash fails every probe: leave fails out")
		}
		if e.Attribution != "" && e.Attribution != contract.AttrCrash {
			bad("attribution", "a crash is attributed to crash, not %s", e.Attribution)
		}
	default:
		bad("outcome", "unknown outcome %q (want ok or crash)", e.Outcome)
	}
	if e.Attribution != "" && !contains(contract.Attributions(), e.Attribution) {
		bad("attribution", "unknown attribution %q (want one of %s)", e.Attribution, strings.Join(contract.Attributions(), ", "))
	}
	seen := map[string]bool{}
	for _, p := range e.Fails {
		if seen[p] {
			bad("fails", "probe %s listed twice", p)
		}
		seen[p] = true
	}
	return e, errors.Join(errs...)
}

// String renders a fixture for logs.
func (f Fixture) String() string { return fmt.Sprintf("%s (%s)", f.Name, f.Expect.Reason) }
