package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/result"
)

func trials(dir string) []*result.Trial {
	return []*result.Trial{
		{Task: "simulation/bouncing-ball", Category: "simulation", Difficulty: "D2", Model: "oracle", Candidate: "solution", Outcome: "ok", Pass: true, VCov: 1, ACov: 1, SCov: 1, TCov: 1},
		{Task: "simulation/bouncing-ball", Category: "simulation", Difficulty: "D2", Model: "fixtures", Candidate: "energy-gain", Outcome: "ok", VCov: 0.5, ACov: 1, SCov: 0.5, TCov: 0.25, Attribution: "physics_violation",
			Screenshot: filepath.Join(dir, "trials", "x", "screenshot.png"),
			Assertions: []result.Assertion{{Probe: "apex", Level: "invariant", Status: "fail", Message: "after.y = 5.3, want <= 5.01 <script>"}}},
	}
}

func TestTable(t *testing.T) {
	var b bytes.Buffer
	Table(&b, trials(""))
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	require.Len(t, lines, 3)
	require.Equal(t, "model            trials   V-Cov   A-Cov   S-Cov   T-Cov  pass@1 crashes   simulation", lines[0])
	require.Equal(t, "oracle                1  100.0%  100.0%  100.0%  100.0%  100.0%       0       100.0%", lines[1])
	require.Equal(t, "fixtures              1   50.0%  100.0%   50.0%   25.0%    0.0%       0        50.0%", lines[2])
	b.Reset()
	Failures(&b, trials(""))
	require.Equal(t, "simulation/bouncing-ball  fixtures/energy-gain: physics_violation\n    fail   invariant/apex: after.y = 5.3, want <= 5.01 <script>\n", b.String())
}

func TestCoreVersusRobustColumns(t *testing.T) {
	ts := []*result.Trial{
		{Task: "simulation/ball", Category: "simulation", Difficulty: "D2", Model: "m", Outcome: "ok", Pass: true, VCov: 1, ACov: 1, SCov: 1, TCov: 1},
		{Task: "simulation/ball-v1", Variant: "v1", VariantOf: "simulation/ball", Category: "simulation", Difficulty: "D2", Model: "m", Outcome: "ok", VCov: 0.75, ACov: 1, SCov: 0.5, TCov: 1},
	}
	var b bytes.Buffer
	Table(&b, ts)
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	require.Equal(t, "model            trials   V-Cov   A-Cov   S-Cov   T-Cov  pass@1 crashes   simulation    core  robust    drop", lines[0])
	require.Equal(t, "m                     2   87.5%  100.0%   75.0%  100.0%   50.0%       0        87.5%  100.0%   75.0%   25.0%", lines[1])
	dir := t.TempDir()
	path := filepath.Join(dir, "report.html")
	require.NoError(t, WriteHTML(path, Page{Title: "run", Generated: "2026-01-01", Trials: ts}))
	html, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Contains(t, string(html), `<h3 id="robust">Core vs. Robust</h3>`)
	require.Contains(t, string(html), `<th class="num">Core V-Cov</th><th class="num">Robust V-Cov</th><th class="num">drop</th>`)
	require.Contains(t, string(html), `<td>m</td><td class="num">100.0%</td><td class="num">75.0%</td><td class="num">25.0 pts</td>`)
}

// A partial report says so at the top; a whole one does not.
func TestHTMLPartial(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "report.html")
	require.NoError(t, WriteHTML(path, Page{Title: "run", Generated: "2026-01-01", Trials: trials(dir),
		Partial: "the run was interrupted with 2 of 5 planned trials finished <b>"}))
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Contains(t, string(b), `<p class="warn">Partial report: the run was interrupted with 2 of 5 planned trials finished &lt;b&gt;</p>`)
	require.NoError(t, WriteHTML(path, Page{Title: "run", Generated: "2026-01-01", Trials: trials(dir)}))
	b, err = os.ReadFile(path)
	require.NoError(t, err)
	require.NotContains(t, string(b), "Partial report")
}
