package plot

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test ./internal/plot -update to create it")
	require.Equal(t, string(want), got, name)
}

func TestTicks(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		n      int
		want   []float64
		dec    int
	}{
		{0, 1, 5, []float64{0, 0.2, 0.4, 0.6, 0.8, 1}, 1},
		{0, 0.07, 5, []float64{0, 0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07}, 2},
		{0, 0.09, 5, []float64{0, 0.02, 0.04, 0.06, 0.08, 0.1}, 2},
		{-4.9, 5.2, 5, []float64{-6, -4, -2, 0, 2, 4, 6}, 0},
		// A flat range is widened by a tenth of its value, at least 0.5.
		{3, 3, 5, []float64{2.4, 2.6, 2.8, 3, 3.2, 3.4, 3.6}, 1},
		{40, 40, 5, []float64{36, 38, 40, 42, 44}, 0},
		{0, 0, 4, []float64{-0.6, -0.4, -0.2, 0, 0.2, 0.4, 0.6}, 1},
		{12, 480, 6, []float64{0, 100, 200, 300, 400, 500}, 0},
	} {
		got, dec := Ticks(c.lo, c.hi, c.n)
		require.Equal(t, c.want, got, "%v–%v", c.lo, c.hi)
		require.Equal(t, c.dec, dec, "%v–%v", c.lo, c.hi)
	}
}

func TestTrimFloat(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 1: "1", 0.5: "0.5", 4.905: "4.905", 1.0 / 3: "0.333333", 123456.7: "123457", -2.25: "-2.25", 3e-7: "3e-07"} {
		require.Equal(t, want, trimFloat(v, 6), "%v", v)
	}
}

func TestBarsGolden(t *testing.T) {
	svg := Bars("V-Cov by category", []BarGroup{
		{Label: "application", Bars: []Bar{{Label: "oracle", Value: 1, Text: "100.0%"}, {Label: "fixtures", Value: 0.725, Text: "72.5%", Series: 1}}},
		{Label: "simulation", Bars: []Bar{{Label: "oracle", Value: 1.2, Text: "100.0%"}, {Label: "fixtures", Value: -1, Text: "0.0%", Series: 1}}},
	})
	golden(t, "bars.svg", string(svg))
	// A value out of 0–1 is clamped: the bar of 1.2 is as wide as the one of 1.
	require.Equal(t, 2, strings.Count(string(svg), `width="370.0" height="12"`))
	require.Contains(t, string(svg), `width="0.0" height="12"`)
}

func TestScatterGolden(t *testing.T) {
	pct := func(v float64) string { return trimFloat(100*v, 3) + "%" }
	svg := Scatter{Title: "cost vs. V-Cov", X: Axis{Label: "USD per page", Zero: true}, Y: Axis{Label: "V-Cov", Fixed: true, Min: 0, Max: 1, Format: pct},
		Points: []Point{{Label: "gpt", X: 0.02, Y: 0.5}, {Label: "claude", X: 0.05, Y: 0.83, Series: 1, Title: "claude: 0.05 USD, 83%"}}}.SVG()
	golden(t, "scatter.svg", string(svg))
}

func TestLinesGolden(t *testing.T) {
	svg := Lines{Title: "ball.position[1] over frames", X: Axis{Label: "frame"}, Y: Axis{Label: "ball.position[1]"},
		Series: []Series{
			{Label: "this page", Points: []XY{{0, 5}, {10, 4.5}, {20, 3.1}, {30, 0.9}}},
			{Label: "reference", Points: []XY{{0, 5}, {10, 4.6}, {20, 3.4}, {30, 1.3}}, Dashed: true, Series: 7},
		},
		Marks: []Mark{{X: 30, Label: "assertion, line 41"}}, MarkLabel: "assertion"}.SVG()
	golden(t, "lines.svg", string(svg))
	require.Contains(t, string(svg), `stroke-dasharray="6 4"`)
}

// Labels of points close together are drawn apart, and a label that
// would leave the chart goes left of its point.
func TestScatterLabelsKeepApart(t *testing.T) {
	svg := string(Scatter{Title: "t", X: Axis{Label: "x", Fixed: true, Min: 0, Max: 0.02}, Y: Axis{Label: "y", Fixed: true, Min: 0, Max: 1},
		Points: []Point{{Label: "openai-demo-model-a", X: 0.0133, Y: 1}, {Label: "anthropic-demo-model-b", X: 0.0192, Y: 1},
			{Label: "a-very-long-model-name-indeed", X: 0.02, Y: 0.5}}}.SVG())
	// Both at the top: the first right of its point, the second one line
	// lower, where the first label is not.
	require.Contains(t, svg, `<circle cx="347.3" cy="24.0" r="5" fill="#3f6fd1"/><text x="355.3" y="28.0" text-anchor="start">openai-demo-model-a</text>`)
	require.Contains(t, svg, `<circle cx="473.0" cy="24.0" r="5" fill="#3f6fd1"/><text x="481.0" y="42.0" text-anchor="start">anthropic-demo-model-b</text>`)
	// 29 characters would leave the chart on the right.
	require.Contains(t, svg, `<circle cx="490.0" cy="130.0" r="5" fill="#3f6fd1"/><text x="482.0" y="134.0" text-anchor="end">a-very-long-model-name-indeed</text>`)
}

// Labels come from model names and state paths a candidate may choose:
// they are escaped, in text and in titles.
func TestLabelsAreEscaped(t *testing.T) {
	evil := `<script>alert(1)</script>"><img src=x onerror=alert(1)>`
	svgs := []string{
		string(Bars(evil, []BarGroup{{Label: evil, Bars: []Bar{{Label: evil, Value: 0.5, Text: evil}}}})),
		string(Scatter{Title: evil, X: Axis{Label: evil}, Y: Axis{Label: evil}, Points: []Point{{Label: evil, X: 1, Y: 1, Title: evil}}}.SVG()),
		string(Lines{Title: evil, X: Axis{Label: evil}, Y: Axis{Label: evil}, Series: []Series{{Label: evil, Points: []XY{{0, 1}}}},
			Marks: []Mark{{X: 0, Label: evil}}, MarkLabel: evil}.SVG()),
	}
	for _, svg := range svgs {
		require.NotContains(t, svg, "<script")
		require.NotContains(t, svg, "<img")
		require.Contains(t, svg, "&lt;script&gt;alert(1)&lt;/script&gt;&#34;&gt;&lt;img src=x onerror=alert(1)&gt;")
	}
}
