package diagnose

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/worldprobe/worldprobe/internal/contract"
	"github.com/worldprobe/worldprobe/internal/inspect"
	"github.com/worldprobe/worldprobe/internal/repair"
	"github.com/worldprobe/worldprobe/internal/session"
	"github.com/worldprobe/worldprobe/internal/task"
)

// leakPage is a model's page under repair: none of its lines is in the
// starter suite, so whatever of the suite a prompt holds came from
// elsewhere.
const leakPage = `<!DOCTYPE html>
<html><body>
<script id="zq-main" type="module">
  import * as T from "https://unpkg.com/three@0.160.0/build/three.module.js";
  const zq = new T.WebGLRenderer(); zq.setSize(64, 64);
  let qq = ;
</script>
</body></html>
`

// contractTexts are what a repair prompt must not hold of a contract: its
// probes' names that are identifiers, its assertions, and its lines of 20
// characters or more as written ("message: …" lines included: a message
// goes back without its key). As gen's TestPromptsLeakNothing.
func contractTexts(t *testing.T, path string) (names, texts []string) {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var c struct {
		Probes []struct {
			Name  string
			Steps []map[string]any
		}
	}
	require.NoError(t, yaml.Unmarshal(b, &c), path)
	for _, p := range c.Probes {
		names = append(names, p.Name)
		for _, s := range p.Steps {
			if v, ok := s["assert"].(string); ok {
				texts = append(texts, v)
			}
		}
	}
	for _, line := range strings.Split(string(b), "\n") {
		if l := strings.TrimSpace(line); len(l) >= 20 {
			texts = append(texts, l)
		}
	}
	return names, texts
}

func fileLines(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	require.NoError(t, filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, line := range strings.Split(string(b), "\n") {
			if l := strings.TrimSpace(line); len(l) >= 20 && strings.IndexFunc(l, unicode.IsLetter) >= 0 {
				out = append(out, l)
			}
		}
		return nil
	}))
	return out
}

// failedEverywhere are verdicts of c with every assertion failed, half of
// them as errors, each message as the engine writes it (the message:, then
// the expression and its values), and every declared state field missing.
func failedEverywhere(c *contract.Contract, fields []contract.Field) []contract.Verdict {
	var vs []contract.Verdict
	n := 0
	for _, p := range c.Probes {
		for _, a := range p.Assertions() {
			st := contract.StatusFail
			if n%2 == 1 {
				st = contract.StatusError
			}
			n++
			msg := a.Expr + " is false (s = {…})"
			if a.Message != "" {
				msg = a.Message + ": " + msg
			}
			vs = append(vs, contract.Verdict{Probe: p.Name, Level: p.Level, Status: st, Message: msg, Expr: a.Expr, Line: a.Line})
		}
	}
	for _, f := range fields {
		vs = append(vs, contract.Verdict{Probe: contract.InterfaceProbe, Status: contract.StatusFail,
			Message: fmt.Sprintf("%s is missing from window.__3D_STATE__", f.Path), Expr: f.Path + ": " + f.Type})
	}
	return vs
}

// TestRepairPromptsLeakNothing: over every starter task, the prompts of
// both repair modes — the instruction and a round's prompt, with every
// check of the contract failed (feedback) or with syntax errors and every
// kind of runtime error (errors) — hold no probe name, no assertion, no
// line of contract.yaml, and no line of solution/, solutions/ or
// candidates/.
func TestRepairPromptsLeakNothing(t *testing.T) {
	tasks, err := task.LoadSuite(filepath.Join("..", "..", "suites", "starter"))
	require.NoError(t, err)
	require.Len(t, tasks, 40)
	rep := &inspect.Report{
		Crash:    &inspect.Crash{Kind: inspect.CrashTimeout, Message: "the page did not return control within 5s (hung in frame 40)"},
		Errors:   []session.PageError{{Message: "Uncaught TypeError: zq.render is not a function", URL: session.Origin + "/index.html", Line: 6, Column: 3, Frame: 1}},
		Console:  []session.ConsoleMessage{{Level: "error", Text: "THREE.WebGLRenderer: A WebGL context could not be created.", Frame: 0}},
		WebGL:    &session.GLStatus{Failed: 1, Lost: 1},
		Requests: session.Requests{Blocked: []session.Blocked{{URL: "https://fonts.example.com/a.woff2", Type: "font", Reason: "off the allowed CDNs"}}},
	}
	checked := 0
	for _, tk := range tasks {
		c, err := contract.Load(tk.ContractPath())
		require.NoError(t, err)
		vs := failedEverywhere(c, tk.Interface())
		failure := &contract.PageFailure{Probe: c.Probes[0].Name, Step: "step 1", Message: "the page did not respond by its deadline", Err: session.ErrUnresponsive}
		errs := &repair.Findings{Checked: "The page was run.", Items: append(repair.ScriptErrors(leakPage), FromReport(rep, repair.ScriptErrors(leakPage))...)}
		require.Len(t, errs.Items, 7)
		prompts := []string{
			repair.Instructions(repair.Feedback) + "\n" + repair.RoundPrompt(repair.Feedback, &repair.Findings{Checked: "Tested.", Items: FeedbackFindings(c, vs, "", nil)}, leakPage),
			repair.RoundPrompt(repair.Feedback, &repair.Findings{Checked: "Tested.", Items: FeedbackFindings(c, vs, "", failure)}, leakPage),
			repair.RoundPrompt(repair.Feedback, &repair.Findings{Checked: "Tested.", Items: FeedbackFindings(c, vs, "js_exception: Uncaught ReferenceError: T is not defined", nil)}, leakPage),
			repair.Instructions(repair.Errors) + "\n" + repair.RoundPrompt(repair.Errors, errs, leakPage),
		}
		for _, p := range c.Probes {
			for _, a := range p.Assertions() {
				if a.Message != "" {
					require.Contains(t, prompts[0], a.Message, "%s: the failed check's message goes back", tk.ID)
				}
			}
		}
		names, texts := contractTexts(t, tk.ContractPath())
		var named []*regexp.Regexp
		for _, n := range names {
			if strings.ContainsAny(n, "_-") {
				named = append(named, regexp.MustCompile(`\b`+regexp.QuoteMeta(n)+`\b`))
			}
		}
		lines := map[string][]string{}
		for _, dir := range []string{task.SolutionDir, "solutions", task.CandidatesDir} {
			lines[dir] = fileLines(t, filepath.Join(tk.Dir, dir))
			require.NotEmpty(t, lines[dir], "%s/%s", tk.ID, dir)
		}
		for _, text := range prompts {
			for _, n := range named {
				require.False(t, n.MatchString(text), "%s: a repair prompt names probe %s:\n%s", tk.ID, n, text)
				checked++
			}
			for _, s := range texts {
				require.False(t, strings.Contains(text, s), "%s: a repair prompt holds text of contract.yaml: %q", tk.ID, s)
				checked++
			}
			for _, dir := range []string{task.SolutionDir, "solutions", task.CandidatesDir} {
				for _, l := range lines[dir] {
					require.False(t, strings.Contains(text, l), "%s: a repair prompt holds a line of %s/: %q", tk.ID, dir, l)
					checked++
				}
			}
		}
	}
	require.Greater(t, checked, 40000)
}
