package capture

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/chromedp/cdproto/input"

	"github.com/worldprobe/worldprobe/internal/llm"
	"github.com/worldprobe/worldprobe/internal/pixel"
	"github.com/worldprobe/worldprobe/internal/target"
	"github.com/worldprobe/worldprobe/internal/worldjudge/measure"
	"github.com/worldprobe/worldprobe/internal/worldjudge/rubric"
)

// Navigator limits (WorldBench's): steps per episode, the width frames
// are sent at, the UI lines shown, the zoom clamp.
const (
	NavigatorSteps = 8
	NavigatorWidth = 640
	navUILines     = 50
	navZoomClamp   = 8
)

// NavigatorInstruction is the navigator's system prompt.
const NavigatorInstruction = `You steer the camera of a 3D voxel island in a web page to find one region and frame it. You see only the newest picture of the screen. Call exactly one tool per turn:
- ui(): list the page's clickable elements as uid=N "text";
- click(uid): click one of them (legend entries often fly the camera to a region);
- orbit(dx, dy): drag on the scene to turn the camera (pixels; 300 is about a quarter turn);
- pan(dx, dy): drag on the scene with the right button to slide the camera sideways (pixels);
- zoom(steps): scroll; negative steps zoom in, positive zoom out (at most 8);
- save(shows_region, confidence, note): keep the current picture when it shows the region; this ends the search;
- give_up(reason): end the search when you cannot find it.
Be brief. Prefer the page's own legend when it has one.`

// Episode is one navigator search for a biome.
type Episode struct {
	Biome string `json:"biome"`
	// Status is found or uncertain (saved; the frame still needs blind
	// identification), not_found (gave up or ran out of steps) or error
	// (the model failed; Reason says how).
	Status     string    `json:"status"`
	Reason     string    `json:"reason,omitempty"`
	Confidence float64   `json:"confidence,omitempty"`
	Note       string    `json:"note,omitempty"`
	View       string    `json:"view,omitempty"`
	Steps      []NavStep `json:"steps"`
}

// NavStep is one tool call and what it did.
type NavStep struct {
	Tool   string          `json:"tool"`
	Args   json.RawMessage `json:"args,omitempty"`
	Result string          `json:"result"`
}

var navTools = []llm.Tool{
	{Name: "ui", Description: "List the page's clickable elements.", Parameters: json.RawMessage(`{"type":"object","properties":{}}`)},
	{Name: "click", Description: "Click the element with this uid.", Parameters: json.RawMessage(`{"type":"object","properties":{"uid":{"type":"integer"}},"required":["uid"]}`)},
	{Name: "orbit", Description: "Drag on the scene by (dx, dy) pixels.", Parameters: json.RawMessage(`{"type":"object","properties":{"dx":{"type":"number"},"dy":{"type":"number"}},"required":["dx","dy"]}`)},
	{Name: "pan", Description: "Drag on the scene with the right button by (dx, dy) pixels.", Parameters: json.RawMessage(`{"type":"object","properties":{"dx":{"type":"number"},"dy":{"type":"number"}},"required":["dx","dy"]}`)},
	{Name: "zoom", Description: "Scroll by steps (negative: in).", Parameters: json.RawMessage(`{"type":"object","properties":{"steps":{"type":"integer"}},"required":["steps"]}`)},
	{Name: "save", Description: "Keep the current picture.", Parameters: json.RawMessage(`{"type":"object","properties":{"shows_region":{"type":"boolean"},"confidence":{"type":"number"},"note":{"type":"string"}},"required":["shows_region","confidence"]}`)},
	{Name: "give_up", Description: "End the search.", Parameters: json.RawMessage(`{"type":"object","properties":{"reason":{"type":"string"}},"required":["reason"]}`)},
}

// navigate runs one episode per biome the legend did not frame: a fresh
// conversation, at most NavigatorSteps tool calls, only the newest frame
// kept as an image (older ones become "[old frame dropped]"). A saved
// frame is taken again with the HUD hidden as biome_<id>; its "found" is
// not trusted — blind identification decides. Each saved view gets its
// motion bursts (burstSet) there and then, as WorldBench's capture does.
func (k *capturer) navigate(ctx context.Context) error {
	framed := map[string]bool{}
	if k.c.Legend != nil {
		for _, b := range k.c.Legend.Framed {
			framed[b] = true
		}
	}
	for _, b := range k.o.Biomes {
		if framed[b.ID] {
			continue
		}
		ep, err := k.episode(ctx, b)
		if err != nil {
			return err
		}
		k.c.Navigation = append(k.c.Navigation, ep)
	}
	return nil
}

func (k *capturer) episode(ctx context.Context, b rubric.Biome) (Episode, error) {
	ep := Episode{Biome: b.ID, Status: "not_found", Steps: []NavStep{}}
	img, err := k.navFrame(ctx)
	if err != nil {
		return ep, err
	}
	zero := 0.0
	msgs := []llm.Message{llm.SystemText(NavigatorInstruction),
		llm.UserParts(llm.Text(fmt.Sprintf("Find and frame the region %q (%s). The screen now:", b.Label, b.ID)), llm.Image("image/jpeg", img))}
	var uids []string
	for step := 0; step < NavigatorSteps; step++ {
		resp, err := k.o.Navigator.Chat(ctx, llm.Request{Messages: msgs, Tools: navTools, ToolChoice: llm.ToolChoiceRequired, Temperature: &zero})
		if err != nil {
			if ctx.Err() != nil {
				return ep, ctx.Err()
			}
			ep.Status, ep.Reason = "error", "the model call failed: "+err.Error()
			return ep, nil
		}
		if len(resp.ToolCalls) == 0 {
			ep.Status, ep.Reason = "error", "the model called no tool: "+strings.TrimSpace(resp.Text)
			return ep, nil
		}
		call := resp.ToolCalls[0] // one call per turn; extra calls are dropped
		msgs = append(msgs, llm.AssistantText(resp.Text, call))
		st := NavStep{Tool: call.Name, Args: call.Arguments}
		var args struct {
			UID        *int    `json:"uid"`
			DX         float64 `json:"dx"`
			DY         float64 `json:"dy"`
			Steps      int     `json:"steps"`
			Shows      *bool   `json:"shows_region"`
			Confidence float64 `json:"confidence"`
			Note       string  `json:"note"`
			Reason     string  `json:"reason"`
		}
		if len(call.Arguments) > 0 && json.Unmarshal(call.Arguments, &args) != nil {
			st.Result = "ERROR: the arguments are not a JSON object"
		}
		newFrame := false
		switch {
		case st.Result != "":
		case call.Name == "ui":
			uids, err = k.uiList(ctx)
			if err != nil {
				return ep, err
			}
			st.Result = strings.Join(uids, "\n")
			if st.Result == "" {
				st.Result = "(no clickable element)"
			}
		case call.Name == "click":
			if args.UID == nil || *args.UID < 0 || *args.UID >= len(uids) {
				st.Result = "ERROR: unknown uid (call ui() first)"
				break
			}
			if err := k.s.Click(ctx, target.Target{Selector: fmt.Sprintf(`[data-wj-legend="%d"]`, *args.UID)}, 1); err != nil {
				if pageGone(err) {
					return ep, pageErr{err}
				}
				st.Result = "ERROR: " + err.Error()
				break
			}
			st.Result, newFrame = "clicked", true
			if _, err := k.advance(ctx, max(1, int(math.Round(LegendSettleSeconds*k.o.FPS))), false); err != nil {
				return ep, pageErr{err}
			}
		case call.Name == "orbit" || call.Name == "pan":
			button, did := input.MouseButtonLeft, "orbited"
			if call.Name == "pan" {
				button, did = input.MouseButtonRight, "panned"
			}
			r, err := k.s.Canvas(ctx)
			if err != nil {
				return ep, pageErr{err}
			}
			cx, cy := r.Width/2, r.Height/2
			to := []float64{min(max(cx+args.DX, 0), r.Width-1), min(max(cy+args.DY, 0), r.Height-1)}
			if err := k.s.DragButton(ctx, target.Target{At: []float64{cx, cy}}, target.Target{At: to}, 10, 1, button); err != nil {
				if pageGone(err) {
					return ep, pageErr{err}
				}
				st.Result = "ERROR: " + err.Error()
				break
			}
			st.Result, newFrame = did, true
		case call.Name == "zoom":
			r, err := k.s.Canvas(ctx)
			if err != nil {
				return ep, pageErr{err}
			}
			n := min(max(args.Steps, -navZoomClamp), navZoomClamp)
			for i := 0; i < abs(n); i++ {
				if err := k.s.Wheel(ctx, target.Target{At: []float64{r.Width / 2, r.Height / 2}}, 0, float64(120*sign(n))); err != nil {
					return ep, pageErr{err}
				}
			}
			if _, err := k.advance(ctx, max(1, int(math.Round(k.o.FPS/2))), false); err != nil {
				return ep, pageErr{err}
			}
			st.Result, newFrame = fmt.Sprintf("zoomed %d steps", n), true
		case call.Name == "save":
			ep.Steps = append(ep.Steps, NavStep{Tool: st.Tool, Args: st.Args, Result: "saved"})
			ep.Confidence, ep.Note = args.Confidence, args.Note
			ep.Status = "uncertain"
			if args.Shows != nil && *args.Shows && args.Confidence >= 0.5 {
				ep.Status = "found"
			}
			if err := k.hud(ctx, false); err != nil {
				return ep, pageErr{err}
			}
			// The saved view is retaken with the HUD hidden as the first
			// frame of the biome's motion bursts (the page's camera held
			// still, then its own wheel zoom-out).
			ep.View = "biome_" + b.ID
			if _, err := k.burstSet(ctx, []subject{{biome: b.ID}}); err != nil {
				return ep, err
			}
			if err := k.hud(ctx, true); err != nil {
				return ep, pageErr{err}
			}
			return ep, nil
		case call.Name == "give_up":
			ep.Steps = append(ep.Steps, NavStep{Tool: st.Tool, Args: st.Args, Result: "gave up"})
			ep.Reason = "gave up: " + args.Reason
			return ep, nil
		default:
			st.Result = "ERROR: unknown tool " + call.Name
		}
		ep.Steps = append(ep.Steps, st)
		msgs = append(msgs, llm.ToolResult(call.ID, st.Result))
		if newFrame {
			img, err := k.navFrame(ctx)
			if err != nil {
				return ep, err
			}
			msgs = append(dropFrames(msgs), llm.UserParts(llm.Text("The screen now:"), llm.Image("image/jpeg", img)))
		}
	}
	ep.Reason = fmt.Sprintf("no save within %d steps", NavigatorSteps)
	return ep, nil
}

// dropFrames replaces every image of the conversation by the text
// "[old frame dropped]": only the newest frame stays in context.
func dropFrames(msgs []llm.Message) []llm.Message {
	out := make([]llm.Message, len(msgs))
	for i, m := range msgs {
		parts := make([]llm.Part, len(m.Parts))
		for j, p := range m.Parts {
			if p.Kind == llm.PartImage {
				p = llm.Text("[old frame dropped]")
			}
			parts[j] = p
		}
		m.Parts = parts
		out[i] = m
	}
	return out
}

// uiList tags the page's clickable elements and lists them as
// uid=N "text" (at most navUILines).
func (k *capturer) uiList(ctx context.Context) ([]string, error) {
	texts, err := k.uiTexts(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for i, t := range texts {
		if i == navUILines {
			break
		}
		out = append(out, fmt.Sprintf("uid=%d %q", i, t))
	}
	return out, nil
}

// navFrame draws the current frame (UI shown) and returns it as a JPEG
// NavigatorWidth wide; it is not saved.
func (k *capturer) navFrame(ctx context.Context) ([]byte, error) {
	if _, err := k.advance(ctx, 1, true); err != nil {
		return nil, pageErr{err}
	}
	px, err := k.s.CanvasPixels(ctx)
	if err != nil {
		return nil, pageErr{err}
	}
	img, err := pixel.DecodePNG(px.PNG)
	if err != nil {
		return nil, infraErr{fmt.Errorf("the navigator's screenshot: %w", err)}
	}
	b, err := measure.JPEG(img, NavigatorWidth, 80)
	if err != nil {
		return nil, infraErr{err}
	}
	return b, nil
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

func sign(n int) int {
	if n < 0 {
		return -1
	}
	return 1
}
