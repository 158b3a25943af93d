package taskcheck

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/worldprobe/worldprobe/internal/result"
	"github.com/worldprobe/worldprobe/internal/task"
	"github.com/worldprobe/worldprobe/internal/trial"
	"github.com/worldprobe/worldprobe/internal/worldjudge"
	"github.com/worldprobe/worldprobe/internal/worldjudge/rubric"
)

// WorldReferenceRuns is how many times a world-judged task's reference
// (and each alternate) is judged: twice shows the judgement is
// deterministic (identical verdicts and state hashes) at a fraction of
// the cost of ReferenceRuns captures.
const WorldReferenceRuns = 2

// WorldCheck is what the world judge made of a world-judged task's
// reference, judged offline: its capture's status, how many frames it
// saved, the coverage it collected and the score so far (every model
// half unjudged).
type WorldCheck struct {
	Status   string            `json:"status"`
	Frames   int               `json:"frames"`
	Coverage string            `json:"coverage"`
	Score    result.WorldScore `json:"score"`
}

// MutationNotApplicable says why a world-judged task gets no mutants.
const MutationNotApplicable = "mutation testing does not apply to a world-judged task (no contract to harden); 'worldprobe judge mutate' tests the judge on removed features"

// checkWorld checks a task judged against a rubric (task.yaml judge:):
// lint (the brief, the reference, the fixtures), the rubric loads, the
// reference and every alternate judged offline by the world judge
// WorldReferenceRuns times must complete with frames and coverage and
// identical verdicts and state hashes, and each fixture must fail where
// its expect.yaml says (its fails: name the rubric's tests, WC001 …). A
// world judge cannot fail a reference on points: offline most halves are
// unjudged, and the score is reported, not required.
func checkWorld(ctx context.Context, j *trial.Runner, t *task.Task, work string, opts Options, rep *Report) (*Report, error) {
	file := filepath.Join(t.Dir, task.TaskFile)
	r, err := rubric.Load(t.RubricDir())
	if err != nil {
		rep.Lint = append(rep.Lint, fmt.Sprintf("%s: judge: rubric %s: %v", file, t.Judge.Rubric, err))
		return rep, nil
	}
	for _, id := range fixtureTests(t, r) {
		rep.Lint = append(rep.Lint, id)
	}
	if opts.Mutants {
		rep.Partial = MutationNotApplicable
	}
	if len(rep.Lint) > 0 {
		return rep, nil
	}
	if j.World == nil {
		return nil, fmt.Errorf("task %s is judged against a rubric (%s judge:) and the checker has no world judge", t.ID, file)
	}
	ref := judgeWorld(ctx, j, t, "solution", t.SolutionPath(), filepath.Join(work, "reference"), opts.progress(t, "reference run"))
	if ref.err != nil {
		return nil, ref.err
	}
	rep.Reference, rep.ReferenceOK, rep.Stable, rep.ReferenceMsgs, rep.World = ref.first, ref.ok, ref.stable, ref.problems, ref.world
	if opts.OnlyMutants {
		return rep, nil
	}
	alts, err := t.Alternates()
	if err != nil {
		rep.Lint = append(rep.Lint, err.Error())
	}
	for _, a := range alts {
		r := judgeWorld(ctx, j, t, a.Style, a.Page, filepath.Join(work, "alternates", a.Style), opts.progress(t, "alternate "+a.Style+" run"))
		if r.err != nil {
			return nil, r.err
		}
		rep.Alternates = append(rep.Alternates, AlternateResult{Style: a.Style, OK: r.ok && r.stable, Problems: r.problems, Trial: r.first})
	}
	if _, err := judgeFixtures(ctx, j, t, nil, nil, work, rep, opts); err != nil {
		return nil, err
	}
	return rep, nil
}

// fixtureTests lints the fixtures' expect.yaml against the rubric: each
// test a fixture's fails: names must be one of the rubric's.
func fixtureTests(t *task.Task, r *rubric.Rubric) []string {
	fixtures, _ := t.Fixtures() // their errors are task.Lint's
	var out []string
	for _, f := range fixtures {
		for _, p := range f.Expect.Fails {
			if r.Test(p) == nil {
				var ids []string
				for _, tt := range r.Tests {
					ids = append(ids, tt.ID)
				}
				out = append(out, fmt.Sprintf("%s: fails names %s, which is not a test of the rubric %s (%s)",
					filepath.Join(f.Dir, task.ExpectFile), p, r.Name, strings.Join(ids, ", ")))
			}
		}
	}
	return out
}

type worldSolution struct {
	solutionCheck
	world *WorldCheck
}

// judgeWorld judges a world WorldReferenceRuns times through the runner's
// world judge.
func judgeWorld(ctx context.Context, j *trial.Runner, t *task.Task, name, page, dir string, progress func(done, total int)) worldSolution {
	out := worldSolution{solutionCheck: solutionCheck{ok: true, stable: true, problems: []string{}}}
	if _, err := os.Stat(page); err != nil {
		out.ok = false
		out.problems = append(out.problems, "no page: "+err.Error())
		return out
	}
	for i := 0; i < WorldReferenceRuns; i++ {
		runDir := filepath.Join(dir, fmt.Sprint(i))
		tr, err := j.Run(ctx, trial.Input{Key: fmt.Sprintf("%s-%d", name, i), Task: t, Page: page,
			Model: "oracle", Candidate: name, Sample: i, Dir: runDir})
		if err != nil {
			out.err = err
			return out
		}
		progress(i+1, WorldReferenceRuns)
		if out.compareRun(i, tr, fmt.Sprintf("saw the world differently than run 1 (%s and %s differ)",
			filepath.Join(runDir, worldjudge.JSONFile), filepath.Join(dir, "0", worldjudge.JSONFile))) {
			return out
		}
		w, problems, err := worldOf(tr, runDir)
		if err != nil {
			out.err = err
			return out
		}
		if i == 0 {
			out.world = w
		}
		for _, p := range problems {
			out.ok = false
			out.problems = append(out.problems, fmt.Sprintf("run %d: %s", i+1, p))
		}
		if !out.ok {
			return out
		}
	}
	return out
}

// worldOf reads a world-judged trial: its judgement must be complete,
// with frames and coverage.
func worldOf(tr *result.Trial, dir string) (*WorldCheck, []string, error) {
	if tr.World == nil {
		return nil, []string{"the world judge gave no judgement"}, nil
	}
	w := &WorldCheck{Status: tr.World.Status, Score: tr.World.WorldScore}
	var problems []string
	if tr.World.Status != worldjudge.Complete {
		problems = append(problems, fmt.Sprintf("the world judge's capture is %s: %s", tr.World.Status, tr.World.Reason))
	}
	for _, a := range tr.Artifacts {
		if strings.HasPrefix(a, "frames/") && strings.HasSuffix(a, ".png") {
			w.Frames++
		}
	}
	if w.Frames == 0 {
		problems = append(problems, "the world judge saved no frame")
	}
	b, err := os.ReadFile(filepath.Join(dir, worldjudge.JSONFile))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return w, append(problems, "the world judge wrote no "+worldjudge.JSONFile), nil
		}
		return nil, nil, fmt.Errorf("reading the world judgement: %w", err)
	}
	var rep struct {
		Coverage *struct {
			Functions    int `json:"functions"`
			FunctionsRun int `json:"functions_run"`
			CodeLines    int `json:"code_lines"`
			LinesRun     int `json:"lines_run"`
		} `json:"coverage"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		return nil, nil, fmt.Errorf("reading %s: %w", filepath.Join(dir, worldjudge.JSONFile), err)
	}
	switch c := rep.Coverage; {
	case c == nil:
		problems = append(problems, "the world judge collected no coverage")
	case c.FunctionsRun == 0:
		problems = append(problems, fmt.Sprintf("no function of the world ran (0 of %d)", c.Functions))
	default:
		w.Coverage = fmt.Sprintf("%d/%d functions, %d/%d code lines ran", c.FunctionsRun, c.Functions, c.LinesRun, c.CodeLines)
	}
	return w, problems, nil
}
