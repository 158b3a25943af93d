package gen

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/worldprobe/worldprobe/internal/task"
)

func starter(t *testing.T) []*task.Task {
	t.Helper()
	tasks, err := task.LoadSuite(filepath.Join("..", "..", "suites", "starter"))
	require.NoError(t, err)
	require.Len(t, tasks, 40)
	return tasks
}

// contractTexts are the texts of a contract.yaml a prompt must not hold:
// every probe's name that is an identifier (not one English word such as
// "orbit"), every assertion (CEL), and every line of 20 characters or more
// as written (comments included). Messages and descriptions alone are left
// out: they restate the brief's requirements by design ("only the mesh of
// the active level is visible").
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
	require.NotEmpty(t, c.Probes, path)
	asserts := 0
	for _, p := range c.Probes {
		names = append(names, p.Name)
		for _, s := range p.Steps {
			if v, ok := s["assert"].(string); ok {
				texts = append(texts, v)
				asserts++
			}
		}
	}
	require.NotZero(t, asserts, path)
	for _, line := range strings.Split(string(b), "\n") {
		if l := strings.TrimSpace(line); len(l) >= 20 {
			texts = append(texts, l)
		}
	}
	return names, texts
}

// fileLines are the lines of 20 characters or more, holding a letter, of
// every file under dir.
func fileLines(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
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
	})
	require.NoError(t, err)
	return out
}

// TestPromptsLeakNothing: over every task of the starter suite, the prompt
// (the instruction and the task's prompt) holds no probe name, assertion
// or line of the contract, and no line of the reference solution, the
// alternates or the fixtures.
func TestPromptsLeakNothing(t *testing.T) {
	checked := 0
	for _, tk := range starter(t) {
		p, err := PromptOf(tk)
		require.NoError(t, err)
		require.Equal(t, Instructions, p.System)
		want, err := tk.Prompt()
		require.NoError(t, err)
		require.Equal(t, want, p.User, "%s: the user turn is exactly what 'task prompt' prints", tk.ID)
		text := p.System + "\n" + p.User

		names, texts := contractTexts(t, tk.ContractPath())
		for _, n := range names {
			if !strings.ContainsAny(n, "_-") {
				continue // one English word ("orbit", "keyframes") that the brief may use as well
			}
			require.False(t, regexp.MustCompile(`\b`+regexp.QuoteMeta(n)+`\b`).MatchString(text), "%s: the prompt names probe %q:\n%s", tk.ID, n, p.User)
			checked++
		}
		for _, s := range texts {
			require.False(t, strings.Contains(text, s), "%s: the prompt holds text of contract.yaml: %q", tk.ID, s)
			checked++
		}
		// Text the scaffold already shows the model (a solution shares most
		// of it, a line of its own or part of one).
		scaffold := ""
		if tk.Scaffold != "" {
			b, err := os.ReadFile(tk.ScaffoldPath())
			require.NoError(t, err)
			scaffold = string(b)
		}
		for _, dir := range []string{task.SolutionDir, "solutions", task.CandidatesDir} {
			lines := fileLines(t, filepath.Join(tk.Dir, dir))
			require.NotEmpty(t, lines, "%s/%s", tk.ID, dir)
			for _, l := range lines {
				if scaffold != "" && strings.Contains(scaffold, l) {
					continue
				}
				require.False(t, strings.Contains(text, l), "%s: the prompt holds a line of %s/: %q", tk.ID, dir, l)
				checked++
			}
		}
	}
	require.Greater(t, checked, 10000)
}

func TestPromptDigest(t *testing.T) {
	p := Prompt{System: "a", User: "b"}
	require.Equal(t, "59b271ae1bbcb1d31d41929817f4b16fb439eb4f31520b5ad1d5ce98920a7138", p.Digest(), "sha256 of system, NUL, user")
	require.NotEqual(t, p.Digest(), Prompt{System: "ab"}.Digest())
}
