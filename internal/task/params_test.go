package task

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRenderBrief(t *testing.T) {
	out, err := RenderBrief("g = {{params.gravity}} m/s², e = {{ params.restitution }}, again {{params.gravity}}.", map[string]float64{"gravity": 9.81, "restitution": 0.8})
	require.NoError(t, err)
	require.Equal(t, "g = 9.81 m/s², e = 0.8, again 9.81.", out)
	_, err = RenderBrief("{{params.wind}} and {{params.gravity}}", map[string]float64{"gravity": 1})
	require.EqualError(t, err, "the brief names undeclared parameters: wind")
	require.Equal(t, []string{"gravity", "restitution"}, Placeholders("{{params.gravity}} {{params.restitution}} {{params.gravity}}"))
	require.Equal(t, "12", FormatParam(12))
	require.Equal(t, "0.35", FormatParam(0.35))
}

func TestTaskPromptRendersDefaults(t *testing.T) {
	tk, err := Load(ballDir)
	require.NoError(t, err)
	p, err := tk.Prompt()
	require.NoError(t, err)
	require.Contains(t, p, "Gravity is 9.81 m/s² and the\n  restitution 0.8.\n- Expose")
	require.NotContains(t, p, "{{")
	require.NotContains(t, p, "{#", "requirement ids never reach a prompt")
	require.Contains(t, p, "## State interface")
}

func TestPageParams(t *testing.T) {
	html := []byte("<head><script type=\"application/json\" id=\"task-params\">\n {\"gravity\": 9.81, \"count\": 12}\n</script><script>const P = 1;</script></head>")
	got, err := PageParams(html)
	require.NoError(t, err)
	require.Equal(t, map[string]float64{"gravity": 9.81, "count": 12}, got)
	out, err := SetPageParams(html, map[string]float64{"gravity": 12.5, "count": 20})
	require.NoError(t, err)
	require.Equal(t, "<head><script type=\"application/json\" id=\"task-params\">{\"count\": 20, \"gravity\": 12.5}</script><script>const P = 1;</script></head>", string(out))
	_, err = PageParams([]byte("<script>x</script>"))
	require.ErrorIs(t, err, ErrNoParamsBlock)
	_, err = PageParams([]byte(`<script type="application/json" id="task-params">{"a": "x"}</script>`))
	require.ErrorContains(t, err, "not a JSON object of numbers")
}

func TestLintParams(t *testing.T) {
	dir := copyDir(t, ballDir)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "brief.md"), []byte("Expose ball.position, ball.bounces, paused and mode. g = {{params.gravity}}, wind {{params.wind}}.\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "solution", "index.html"), []byte(`<script type="application/json" id="task-params">{"gravity": 9.8, "mass": 2}</script>`), 0o644))
	tk, err := Load(dir)
	require.NoError(t, err)
	var got []string
	for _, f := range lintParams(tk, mustRead(t, tk.BriefPath())) {
		got = append(got, strings.TrimPrefix(filepath.ToSlash(f.File), filepath.ToSlash(dir)+"/")+": "+f.Message)
	}
	require.Equal(t, []string{
		"brief.md: the brief writes {{params.wind}}, but task.yaml declares no parameter wind",
		"brief.md: the brief never states parameter restitution: write its value as {{params.restitution}}",
		"solution/index.html: the task-params block sets gravity = 9.8, but task.yaml says 9.81",
		"solution/index.html: the task-params block lacks parameter restitution",
		"solution/index.html: the task-params block sets mass, which task.yaml does not declare",
	}, got)
}

func mustRead(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	return string(b)
}
