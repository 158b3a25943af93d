package contract

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// ViewPNG is the fake's user view: not a real PNG, but bytes naming the
// drawn frame, so a test sees which frame a look judged. Reading it when
// the current frame was not drawn is the engine's mistake, as for Pixel.
func (p *fakePage) ViewPNG(ctx context.Context) ([]byte, error) {
	if err := p.err("ViewPNG"); err != nil {
		return nil, err
	}
	if err := p.canvas(); err != nil {
		return nil, err
	}
	return []byte(fmt.Sprintf("frame %d", p.drawn)), nil
}

// scriptedLooker answers each look with the verdict named after the
// criterion's first word, recording what it saw.
type scriptedLooker struct {
	seen []string
	err  error
}

func (l *scriptedLooker) Look(ctx context.Context, frame []byte, criterion string) (LookVerdict, error) {
	l.seen = append(l.seen, string(frame)+" | "+criterion)
	if l.err != nil {
		return LookVerdict{}, l.err
	}
	switch strings.Fields(criterion)[0] {
	case "yes":
		return LookVerdict{Judged: true, Pass: true, Reason: "it is there", Model: "test/m"}, nil
	case "no":
		return LookVerdict{Judged: true, Pass: false, Reason: "it is not there", Model: "test/m"}, nil
	}
	return LookVerdict{Reason: "no verdict in the reply", Model: "test/m"}, nil
}

const lookContract = `
version: 1
probes:
  - name: looks
    level: state
    steps:
      - step: 10
      - look: {criterion: yes the ball is red}
      - look: {criterion: no the ball is blue, view: user}
        message: the ball turns blue
      - look: {criterion: maybe a shadow}
      - assert: s.frame == 10
`

func TestLookVerdicts(t *testing.T) {
	l := &scriptedLooker{}
	files := map[string]string{}
	res := run(t, lookContract, &opener{}, Options{Looker: l, Artifact: func(name string, data []byte) error {
		files[name] = string(data)
		return nil
	}})
	var got []string
	for _, v := range res.Verdicts {
		got = append(got, fmt.Sprintf("%s | %s | %s | %s | %s | %s | %s | %d", v.Kind, v.Expr, v.Status, v.Message, v.Reason, v.Image, v.Model, v.Line))
	}
	require.Equal(t, []string{
		"look | yes the ball is red | pass |  | it is there | look-looks-7.png | test/m | 7",
		`look | no the ball is blue | fail | the ball turns blue: the model judged that the view does not show "no the ball is blue": it is not there | it is not there | look-looks-8.png | test/m | 8`,
		"look | maybe a shadow | unjudged | unjudged: no verdict in the reply | no verdict in the reply | look-looks-10.png | test/m | 10",
		" | s.frame == 10 | pass |  |  |  |  | 11",
	}, got)
	// The look needs no settle frame after step: 10, whose last frame is
	// drawn for it; the model sees that frame and the criterion alone.
	require.Equal(t, []string{"frame 10 | yes the ball is red", "frame 10 | no the ball is blue", "frame 10 | maybe a shadow"}, l.seen)
	require.Equal(t, map[string]string{"look-looks-7.png": "frame 10", "look-looks-8.png": "frame 10", "look-looks-10.png": "frame 10"}, files)

	sc := Coverage(res.Verdicts, false)
	require.Equal(t, 1, sc.Unjudged)
	require.Equal(t, Count{Passed: 2, Total: 3}, sc.All)
	require.Equal(t, Count{Passed: 2, Total: 3}, sc.State)
	require.False(t, sc.Pass)
	require.Equal(t, AttrStateMismatch, Attribute(res.Verdicts, false))
}

func TestLookWithoutAModelIsUnjudged(t *testing.T) {
	res := run(t, lookContract, &opener{}, Options{})
	var st []Status
	for _, v := range res.Verdicts {
		st = append(st, v.Status)
		if v.Kind == "look" {
			require.Equal(t, "unjudged: no visual_judge model is configured (give the visual_judge role a model: docs/models.md)", v.Message)
			require.Empty(t, v.Image) // no artifact store
		}
	}
	require.Equal(t, []Status{StatusUnjudged, StatusUnjudged, StatusUnjudged, StatusPass}, st)
	sc := Coverage(res.Verdicts, false)
	require.Equal(t, 3, sc.Unjudged)
	require.Equal(t, Count{Passed: 1, Total: 1}, sc.All)
	require.True(t, sc.Pass) // the judged assertion passed; 3 unjudged said beside it
	require.Equal(t, "", Attribute(res.Verdicts, false))

	// Nothing judged at all: no pass.
	only := []Verdict{{Level: LevelState, Status: StatusUnjudged}}
	require.False(t, Coverage(only, false).Pass)
	require.Equal(t, 1.0, Coverage(only, false).V)
}

func TestLookUnjudgedDoesNotStopAtFirstFailure(t *testing.T) {
	res := run(t, lookContract, &opener{}, Options{StopAtFirstFailure: true})
	require.Equal(t, StatusPass, res.Verdicts[3].Status)
}

func TestLookInSetupAndErrors(t *testing.T) {
	res := run(t, `
version: 1
probes:
  - name: pre
    level: state
    setup:
      - look: {criterion: maybe ready}
    steps:
      - assert: s.frame > 0
`, &opener{}, Options{Looker: &scriptedLooker{}})
	require.Equal(t, []string{"s.frame > 0 | error | setup look at line 6 did not pass: unjudged: no verdict in the reply"}, messages(res))

	// A fatal model error stops the run as infrastructure.
	fatal := errors.New("llm: fatal: bad key")
	_, err := Run(context.Background(), mustParse(t, lookContract), (&opener{}).open, nil, Options{FPS: 60, Looker: &scriptedLooker{err: fatal}})
	require.ErrorIs(t, err, fatal)
	require.True(t, IsInfra(err))
	require.Equal(t, `probe looks: look "yes the ball is red": judging look "yes the ball is red": llm: fatal: bad key`, err.Error())
}

func TestLookParseErrors(t *testing.T) {
	_, err := Parse("contract.yaml", []byte(strings.TrimLeft(`
version: 1
probes:
  - name: p
    level: state
    steps:
      - look: {view: user}
      - look: {criterion: "  "}
      - look: {criterion: a cube, view: left-eye}
      - look: {criterion: a cube, colour: red}
      - look: {criterion: a cube}
        attribution: wrong
`, "\n")))
	require.EqualError(t, err, strings.Join([]string{
		"contract.yaml:6: probe p: steps: look: criterion is required (what the frame must show, in words)",
		"contract.yaml:7: probe p: steps: look: criterion is empty",
		`contract.yaml:8: probe p: steps: look: view "left-eye": want user (the user's view; no other view is rendered yet)`,
		`contract.yaml:9: probe p: steps: look: unknown field "colour" (want one of criterion, view)`,
		`contract.yaml:11: probe p: steps: look: attribution hint "wrong" (want one of state_mismatch, physics_violation, broken_interaction)`,
	}, "\n"))
}

func TestLookImageName(t *testing.T) {
	require.Equal(t, "look-grab_right_-12.png", LookImageName("grab[right]", 12))
	require.Equal(t, "look-a.b-c_d-3.png", LookImageName("a.b-c_d", 3))
}
