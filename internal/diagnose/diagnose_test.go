package diagnose

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/browser"
	"github.com/worldprobe/worldprobe/internal/repair"
	"github.com/worldprobe/worldprobe/internal/resolve"
	"github.com/worldprobe/worldprobe/internal/task"
	"github.com/worldprobe/worldprobe/internal/testenv"
	"github.com/worldprobe/worldprobe/internal/trial"
)

var (
	startOnce sync.Once
	br        *browser.Browser
	res       *resolve.Resolver
	startErr  error
)

// chromium is the test binary's one browser, started by the first test
// that needs it (the leak test does not).
func chromium(t *testing.T) (*browser.Browser, *resolve.Resolver) {
	t.Helper()
	startOnce.Do(func() { br, res, startErr = testenv.Start(2) })
	require.NoError(t, startErr)
	return br, res
}

func TestMain(m *testing.M) {
	code := m.Run()
	if br != nil {
		br.Close()
	}
	os.Exit(code)
}

func mover(t *testing.T) *task.Task {
	t.Helper()
	tk, err := task.Load(filepath.Join("testdata", "suite", "simulation", "mover"))
	require.NoError(t, err)
	return tk
}

func solution(t *testing.T, tk *task.Task) string {
	t.Helper()
	b, err := os.ReadFile(tk.SolutionPath())
	require.NoError(t, err)
	return string(b)
}

// A page that throws at load: the exception, where and when, once.
func TestErrorsOfAPageThatThrowsAtLoad(t *testing.T) {
	b, r := chromium(t)
	tk := mover(t)
	page := strings.Replace(solution(t, tk), "new THREE.BoxGeometry(", "new THREE.BoxGeometery(", 1)
	f, err := (&Errors{Browser: b, Resolver: r}).Diagnose(context.Background(), tk, page)
	require.NoError(t, err)
	require.Equal(t, "The page's scripts were parsed, then the page was loaded in Chromium (with WebGL) and run for 300 frames at 60 frames per second.", f.Checked)
	require.Equal(t, []repair.Finding{{Kind: KindException, Text: "Uncaught TypeError: THREE.BoxGeometery is not a constructor", Line: 7, Column: 28,
		When: "while the page loaded", Count: 1}}, f.Items)
}

// Every kind of error at once, each kept once with its count: a syntax
// error (the parse's, not the browser's again), an exception thrown every
// frame, console.error, a refused request.
func TestErrorsOfAPageWithManyErrors(t *testing.T) {
	b, r := chromium(t)
	tk := mover(t)
	page := strings.Replace(solution(t, tk), "</body>", `<script>
let frames = 0;
function tick() {
  requestAnimationFrame(tick);
  frames++;
  if (frames > 3) { console.error("tick", frames > 3); missing.value = frames; }
}
requestAnimationFrame(tick);
new Image().src = "https://example.com/sprite.png";
</script>
<script>const broken = {;</script></body>`, 1)
	f, err := (&Errors{Browser: b, Resolver: r}).Diagnose(context.Background(), tk, page)
	require.NoError(t, err)
	require.Equal(t, []repair.Finding{
		{Kind: repair.KindSyntaxError, Text: "expected Identifier, String, Numeric, or [ instead of ; in object literal", Line: 22, Column: 25},
		{Kind: KindException, Text: "Uncaught ReferenceError: missing is not defined", Line: 17, Column: 56, When: "while the page ran", Count: 199, AtLeast: true},
		{Kind: KindConsoleError, Text: "tick true", When: "while the page ran", Count: 297},
		{Kind: KindLoadFailure, Text: "the image request for https://example.com/sprite.png was refused: network access is disabled", Count: 1},
	}, f.Items, "the runtime keeps 200 exceptions: the syntax error's and 199 of the 297 thrown")
}

// A page that hangs while the machine is overloaded: when a blank page
// cannot run promptly either, the missed deadline is the machine's
// (ErrOverloaded) and no finding reaches the model; when a blank page runs
// promptly, the hang is the page's own and is reported.
func TestErrorsOfAHangUnderOverload(t *testing.T) {
	b, r := chromium(t)
	tk := mover(t)
	tk.Timeout = task.Duration(time.Second)
	page := strings.Replace(solution(t, tk), "</body>",
		"<script>let n = 0; (function f() { if (++n === 40) { for (;;) {} } requestAnimationFrame(f); })();</script></body>", 1)
	loads := 0
	m := trial.Machine{Retries: -1, Load: func() float64 { loads++; return 13 },
		Healthy: func(context.Context, time.Duration) bool { return false }}
	f, err := (&Errors{Browser: b, Resolver: r, Machine: m}).Diagnose(context.Background(), tk, page)
	require.ErrorIs(t, err, ErrOverloaded)
	require.EqualError(t, err, "machine_overloaded: the machine was too overloaded to check the page: it missed its 1s deadline 1 times with 13.0 load per core, and a blank page did not run within 10s either")
	require.Nil(t, f, "nothing goes to the model")
	require.Equal(t, 1, loads)

	var asked time.Duration
	m.Healthy = func(_ context.Context, within time.Duration) bool { asked = within; return true }
	f, err = (&Errors{Browser: b, Resolver: r, Machine: m}).Diagnose(context.Background(), tk, page)
	require.NoError(t, err)
	require.Equal(t, trial.HealthWithin, asked)
	require.Len(t, f.Items, 1, "%v", f.Items)
	require.Equal(t, KindHang, f.Items[0].Kind)
	require.Contains(t, f.Items[0].Text, "1s")
}

// A page that works raises nothing: nothing is sent.
func TestErrorsOfAWorkingPage(t *testing.T) {
	b, r := chromium(t)
	tk := mover(t)
	f, err := (&Errors{Browser: b, Resolver: r}).Diagnose(context.Background(), tk, solution(t, tk))
	require.NoError(t, err)
	require.True(t, f.Clean(), "%v", f.Items)
}

// The feedback of a page that never moves: the failed check's message:,
// the count of failed checks without one, nothing of the contract else;
// the reference passes every check.
func TestFeedbackOfAPageThatFails(t *testing.T) {
	b, r := chromium(t)
	tk := mover(t)
	fb := &Feedback{Runner: &trial.Runner{Browser: b, Resolver: r, SkipDraw: true}}
	frozen := strings.Replace(solution(t, tk), "box.position.x = ((now || t0) - t0) / 1000;", "box.position.x = 0;", 1)
	f, err := fb.Diagnose(context.Background(), tk, frozen)
	require.NoError(t, err)
	require.Equal(t, "The page was loaded in Chromium (with WebGL) and tested against the checks of its task.", f.Checked)
	require.Equal(t, []repair.Finding{
		{Kind: KindFailedCheck, Text: "the box moves along x at 1 m/s", Count: 1},
		{Kind: KindFailedCheck, Text: "1 more checks that have no description did not pass"},
	}, f.Items)

	f, err = fb.Diagnose(context.Background(), tk, solution(t, tk))
	require.NoError(t, err)
	require.True(t, f.Clean(), "%v", f.Items)

	broken := strings.Replace(solution(t, tk), "new THREE.BoxGeometry(", "new THREE.BoxGeometery(", 1)
	f, err = fb.Diagnose(context.Background(), tk, broken)
	require.NoError(t, err)
	require.Equal(t, []repair.Finding{{Kind: KindLoadCheck, Text: "js_exception: Uncaught TypeError: THREE.BoxGeometery is not a constructor"}}, f.Items)
}
