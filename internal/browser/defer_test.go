package browser

import (
	"strings"
	"testing"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// TestTasksAfterInputAreNotDeferred: a task the page posts while handling
// a click runs before the next real animation frame. With Blink's
// DeferRendererTasksAfterInput on (the subtest "old flags"), the same task
// waits until that frame has been presented, and the harness's turn
// between stepped frames waited with it, idle, after nearly every input.
func TestTasksAfterInputAreNotDeferred(t *testing.T) {
	const page = `data:text/html,<body style="margin:0"><div style="width:400px;height:400px"></div><script>
window.order = [];
addEventListener('mousedown', () => {
  const ch = new MessageChannel();
  ch.port1.onmessage = () => order.push('task');
  ch.port2.postMessage(0);
  requestAnimationFrame(() => order.push('frame'));
});
</script>`
	oldFeatures := strings.Replace(Flags(1280, 800)["disable-features"].(string), ","+noDeferAfterInput, "", 1)
	for _, tc := range []struct {
		name  string
		extra map[string]any
		want  string
	}{
		{"worldprobe's flags", nil, "task"},
		{"old flags", map[string]any{"disable-features": oldFeatures}, "frame"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, p := openWithFlags(t, tc.extra, page)
			pc := p.Context()
			var firsts []string
			for i := 0; i < 5; i++ {
				// No frame pending when the click comes: the page has drawn.
				_, err := chromedp.Run(pc, chromedp.Evaluate[any](`order.length = 0; new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))`, chromedp.EvalAwaitPromise))
				require.NoError(t, err)
				for _, typ := range []input.DispatchMouseEventType{input.DispatchMouseEventTypeMousePressed, input.DispatchMouseEventTypeMouseReleased} {
					_, err = chromedp.Call(pc, input.DispatchMouseEvent, input.DispatchMouseEventParams{Type: typ, X: 100, Y: 100, Button: input.MouseButtonLeft, ClickCount: 1})
					require.NoError(t, err)
				}
				order, err := chromedp.Run(pc, chromedp.Poll[[]string](`order.length >= 2 && order`))
				require.NoError(t, err)
				firsts = append(firsts, order[0])
			}
			// Every click, not most: the order is the scheduler's policy,
			// not a race (the frame is up to 16.7 ms away, the task none).
			require.Equal(t, []string{tc.want, tc.want, tc.want, tc.want, tc.want}, firsts)
		})
	}
}
