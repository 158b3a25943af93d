package cli

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/taskcheck"
	"github.com/worldprobe/worldprobe/internal/testenv"
)

// TestTaskCheckWorldJudgedTask: 'task check' on a world-judged task (the
// tiny isle of testdata/worldsuite) judges its reference twice offline
// through the world judge: complete, with frames and coverage, the same
// state hash both times, the open score reported, and mutation testing
// said not to apply — a clean check. Slow: two captures (the runner path
// of a world-judged trial is in the fast set: TestRunWorldJudgedSuite;
// the checker's refusals: taskcheck's TestWorldTaskProblemsNameTheirFiles).
func TestTaskCheckWorldJudgedTask(t *testing.T) {
	testenv.Slow(t)
	code, stdout, stderr := execute(t, "task", "check", "--json", worldSuite())
	require.Equal(t, ExitOK, code, "stderr: %s\nstdout: %s", stderr, stdout)
	var reps []*taskcheck.Report
	require.NoError(t, json.Unmarshal([]byte(stdout), &reps))
	require.Len(t, reps, 1)
	r := reps[0]
	require.True(t, r.OK())
	require.Empty(t, r.Lint)
	require.True(t, r.ReferenceOK && r.Stable, "%v", r.ReferenceMsgs)
	require.Equal(t, taskcheck.MutationNotApplicable, r.Partial)
	require.Nil(t, r.Mutation)
	require.NotNil(t, r.World)
	require.Equal(t, "complete", r.World.Status)
	require.Equal(t, 16, r.World.Frames)
	require.Equal(t, "3/3 functions, 57/57 code lines ran", r.World.Coverage)
	require.Equal(t, 2.0, r.World.Score.Judged)
	require.Equal(t, 2.0, r.World.Score.Unjudged)
	require.Nil(t, r.World.Score.Earned)
	require.Contains(t, stderr, "world/tiny-isle: reference run 2/2")
}
