package session

import (
	"context"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/debugger"
	"github.com/chromedp/cdproto/profiler"
)

// CoverageScript is one script's V8 precise block coverage (Config.Coverage):
// where it starts in the resource it came from (an inline script's line and
// column in its HTML file, 0-based, as the debugger reports them) and its
// functions' ranges, whose offsets are UTF-16 code units of the script.
type CoverageScript struct {
	ScriptID    string                       `json:"script_id"`
	URL         string                       `json:"url"`
	StartLine   int                          `json:"start_line"`
	StartColumn int                          `json:"start_column"`
	Functions   []*profiler.FunctionCoverage `json:"functions"`
}

// scriptPositions remembers where each parsed script starts.
type scriptPositions struct {
	mu  sync.Mutex
	pos map[cdp.ScriptID][2]int
}

func (p *scriptPositions) parsed(ev *debugger.EventScriptParsed) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.pos == nil {
		p.pos = map[cdp.ScriptID][2]int{}
	}
	p.pos[ev.ScriptID] = [2]int{int(ev.StartLine), int(ev.StartColumn)}
}

func (p *scriptPositions) of(id cdp.ScriptID) ([2]int, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	v, ok := p.pos[id]
	return v, ok
}

// startCoverage turns on V8's precise block coverage with call counts
// before a document loads, so its top-level code is counted too. Starting
// it again (a reload) resets the counters: take the coverage first.
func (s *Session) startCoverage(ctx context.Context) error {
	if _, err := call(ctx, s, "enabling the profiler", profiler.Enable, cdp.Empty{}); err != nil {
		return err
	}
	yes := true
	_, err := call(ctx, s, "starting precise coverage", profiler.StartPreciseCoverage, profiler.StartPreciseCoverageParams{CallCount: &yes, Detailed: &yes})
	return err
}

// TakeCoverage returns the block coverage counted since the document
// loaded (or since the last TakeCoverage, which resets the counters), for
// every script V8 still knows of the page and the runtime alike; callers
// keep the scripts they want by URL. It needs Config.Coverage.
func (s *Session) TakeCoverage(ctx context.Context) ([]CoverageScript, error) {
	defer s.charge("coverage")()
	// The debugger reports every live script again when enabled, with its
	// position in its resource; it is switched off again at once (see
	// watchCompilation for why it stays off).
	if _, err := call(ctx, s, "starting the debugger", debugger.Enable, debugger.EnableParams{}); err != nil {
		return nil, err
	}
	if _, err := call(ctx, s, "starting the debugger", debugger.SetSkipAllPauses, debugger.SetSkipAllPausesParams{Skip: true}); err != nil {
		return nil, err
	}
	res, err := call(ctx, s, "taking the coverage", profiler.TakePreciseCoverage, cdp.Empty{})
	if _, derr := call(ctx, s, "stopping the debugger", debugger.Disable, cdp.Empty{}); err == nil {
		err = derr
	}
	if err != nil {
		return nil, err
	}
	out := make([]CoverageScript, 0, len(res.Result))
	for _, sc := range res.Result {
		c := CoverageScript{ScriptID: string(sc.ScriptID), URL: sc.URL, Functions: sc.Functions}
		if p, ok := s.covPos.of(sc.ScriptID); ok {
			c.StartLine, c.StartColumn = p[0], p[1]
		} else {
			c.StartLine = -1
		}
		out = append(out, c)
	}
	return out, nil
}

// EntryURL is the URL the page's HTML file is served at.
func (s *Session) EntryURL() string { return s.entry }
