package contract

import "go.yaml.in/yaml/v3"

// TraceStep steps Frames frames and samples the state every Every frames.
type TraceStep struct {
	Name   string
	Frames int
	Every  int
}

func init() {
	registerStep(stepType{
		Kind: StepTrace, Order: 50,
		Example: "`trace: {name: fall, frames: 60, every: 2}`",
		Doc: "steps 60 frames, reading the state before the first frame, after every 2 frames and after the last: " +
			"`trace.fall` is the list of states (31 here; `frames/every + 1` when `every` divides `frames`, one more otherwise). " +
			"`every` defaults to 1.",
		Parse: parseTrace,
	})
}

func parseTrace(p *parser, v *yaml.Node, c stepContext) (Action, bool) {
	what := c.what
	fields := p.mapping(v, what, "name", "frames", "every")
	if fields == nil {
		return nil, false
	}
	t := &TraceStep{Every: 1}
	ok := true
	if f, has := fields["name"]; !has {
		p.errorf(v, "%s: missing name", what)
		ok = false
	} else if name, good := p.str(f.value, what+": name"); good {
		ok = p.newName(f.value, what, name, c.names.traces, false) && ok
		t.Name = name
	} else {
		ok = false
	}
	if f, has := fields["frames"]; !has {
		p.errorf(v, "%s: missing frames", what)
		ok = false
	} else if n, good := p.whole(f.value, what+": frames", 1); good {
		t.Frames = n
	} else {
		ok = false
	}
	if f, has := fields["every"]; has {
		if n, good := p.whole(f.value, what+": every", 1); good {
			t.Every = n
		} else {
			ok = false
		}
	}
	return t, ok
}

// Samples is the number of states a trace records: the state before the
// first frame, after every Every frames, and after the last frame.
func (a *TraceStep) Samples() int {
	n := 1 + a.Frames/a.Every
	if a.Frames%a.Every != 0 {
		n++
	}
	return n
}

// Describe renders "trace NAME".
func (a *TraceStep) Describe() string { return "trace " + a.Name }

// Traits: a trace reads the page and advances the clock.
func (a *TraceStep) Traits() Traits { return Traits{Reads: true, Advances: true} }

// Frames is the frames the trace steps.
func (a *TraceStep) FrameCount(Timing) int { return a.Frames }

// run samples the state before the first frame, every Every frames and
// after the last frame.
func (a *TraceStep) run(x *exec) error {
	sample := func() error {
		st, err := x.page.State(x.ctx)
		if err != nil {
			return err
		}
		x.traces[a.Name] = append(x.traces[a.Name], st)
		x.observe(Observation{Probe: x.probe.Name, Kind: "trace", Name: a.Name, Line: x.step.Line, Frame: x.page.Frame(), State: st})
		return nil
	}
	x.traces[a.Name] = make([]any, 0, a.Samples())
	if err := sample(); err != nil {
		return err
	}
	for done := 0; done < a.Frames; {
		k := min(a.Every, a.Frames-done)
		// Only the last frame can precede a pixel read (the next step's).
		if err := x.advanceDrawn(k, done+k == a.Frames && x.drawNeeded(x.at+1)); err != nil {
			return err
		}
		done += k
		if err := sample(); err != nil {
			return err
		}
	}
	return nil
}
