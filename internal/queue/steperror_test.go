package queue

import (
	"errors"
	"testing"

	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/llm"
)

// A given-up job's recorded error says what stopped it: a provider's
// refusal for good and a budget keep their class through River's text;
// anything else (a task changed, a model another worker names otherwise,
// attempts spent on infrastructure) is neither.
func TestStepErrorClasses(t *testing.T) {
	row := func(state rivertype.JobState, errs ...string) *rivertype.JobRow {
		j := &rivertype.JobRow{ID: 7, Kind: kindGenerate, State: state, Attempt: len(errs)}
		for _, e := range errs {
			j.Errors = append(j.Errors, rivertype.AttemptError{Error: e})
		}
		return j
	}
	for _, c := range []struct {
		row          *rivertype.JobRow
		fatal, spent bool
		text         string
	}{
		{row(rivertype.JobStateCancelled, "JobCancelError: [model-fatal] generating a: llm: fatal: 401"), true, false,
			"step given up: generate job 7 cancelled after 1 attempts: generating a: llm: fatal: 401"},
		{row(rivertype.JobStateCancelled, "JobCancelError: [budget] generating a: llm: run budget exceeded"), false, true,
			"step given up: generate job 7 cancelled after 1 attempts: generating a: llm: run budget exceeded"},
		{row(rivertype.JobStateCancelled, "JobCancelError: task a changed since the job was enqueued"), false, false,
			"step given up: generate job 7 cancelled after 1 attempts: task a changed since the job was enqueued"},
		{row(rivertype.JobStateDiscarded, "x", "y", "--model m on this worker: no key\n"), false, false,
			"step given up: generate job 7 discarded after 3 attempts: --model m on this worker: no key"},
		{row(rivertype.JobStateDiscarded), false, false, "step given up: generate job 7 discarded after 0 attempts: no error recorded"},
	} {
		err := error(stepError(c.row))
		require.Equal(t, c.text, err.Error())
		require.ErrorIs(t, err, errStepGivenUp)
		require.Equal(t, c.fatal, llm.IsFatal(err), c.text)
		require.Equal(t, c.spent, errors.Is(err, llm.ErrBudgetExceeded), c.text)
	}
}
