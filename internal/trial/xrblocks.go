package trial

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/worldprobe/worldprobe/internal/contract"
	"github.com/worldprobe/worldprobe/internal/target"
	"github.com/worldprobe/worldprobe/internal/xr"
)

// The XR Blocks backend (task.yaml xrBackend: xrblocks) drives an XR Blocks
// app's own simulator through the harness object its prelude installs
// (internal/xr/xrblocks.js, window[xr.XRBlocksGlobal]). The page's XR
// methods (page.go) ask onXRBlocks first and, on such a page, call the
// harness object instead of IWER's device.

// xrBlocksName names the backend in messages.
const xrBlocksName = "the XR Blocks backend"

// onXRBlocks reports whether the page runs with the XR Blocks backend:
// its task says so (only then does the prelude install that backend).
func (p *page) onXRBlocks() bool { return p.backend == xr.BackendXRBlocks }

// xrbStatus is the harness object's status().
type xrbStatus struct {
	State   string `json:"state"`
	Error   string `json:"error"`
	Control bool   `json:"control"`
}

// xrbReady makes sure XR Blocks is ready to be driven: window.xbReady has
// resolved and EmbodiedControl is loaded. Loading it is awaited in real
// time with the virtual clock stopped, so it lands before the same frame
// on any machine. An app whose xbReady has not resolved yet (it needs
// frames) or rejected is an error: the first an infrastructure one (the
// contract must step frames first), the second the page's failure.
func (p *page) xrbReady(ctx context.Context) error {
	var st xrbStatus
	if err := p.s.Eval(ctx, 0, `window.`+xr.XRBlocksGlobal+`.init()`, &st); err != nil {
		return mapErr(err)
	}
	switch {
	case st.Control:
		return nil
	case st.State == "pending":
		return contract.Infra(fmt.Errorf("%s: XR Blocks is not ready at frame %d (window.xbReady has not resolved): step frames before the first XR step", xrBlocksName, p.s.Frame()))
	case st.State == "absent":
		return contract.Infra(fmt.Errorf("%s: %s", xrBlocksName, st.Error))
	}
	return fmt.Errorf("%s: XR Blocks failed to start: %s", xrBlocksName, st.Error)
}

// xrbCall calls method of the harness object with args; it returns {v} or
// {err} as xrValue's bodies do. Any call may move the user or a hand, so
// the cached capture of the current frame is dropped, as IWER's input
// paths drop it.
func (p *page) xrbCall(ctx context.Context, method string, args []any, out any) error {
	if err := p.xrbReady(ctx); err != nil {
		return err
	}
	p.pixels = nil
	b, err := json.Marshal(args)
	if err != nil {
		return err
	}
	var r struct {
		Err string          `json:"err"`
		V   json.RawMessage `json:"v"`
	}
	if err := p.s.Eval(ctx, 0, `(() => { const h = window.`+xr.XRBlocksGlobal+`; return h.`+method+`.apply(h, `+string(b)+`); })()`, &r); err != nil {
		return mapErr(err)
	}
	if r.Err != "" {
		return fmt.Errorf("%s: %w", r.Err, target.ErrNotFound)
	}
	if out == nil || len(r.V) == 0 {
		return nil
	}
	if err := json.Unmarshal(r.V, out); err != nil {
		return fmt.Errorf("decoding %s's answer to %s: %w", xrBlocksName, method, err)
	}
	return nil
}

// xrbCannot is the error of an action the XR Blocks backend cannot
// perform: an infrastructure error naming the backend and the action.
func xrbCannot(action, why string) error {
	return contract.Infra(errors.New(xrBlocksName + " cannot " + action + ": " + why))
}
