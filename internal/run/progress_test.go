package run

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/result"
)

// The progress line of a trial with unjudged assertions says that its
// verdict is over the judged ones and how many were not judged.
func TestProgressSaysUnjudged(t *testing.T) {
	var buf bytes.Buffer
	p := newProgress(&buf, 2)
	p.done(&result.Trial{Task: "xr/panel", Model: "gpt", Candidate: "page", Outcome: result.OutcomeOK, Pass: true, VCov: 1, Unjudged: 2, DurationMs: 1500})
	p.done(&result.Trial{Task: "xr/panel", Model: "gpt", Candidate: "other", Outcome: result.OutcomeOK, VCov: 0.75, Attribution: "state_mismatch", Unjudged: 1, DurationMs: 2500})
	lines := bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n"))
	require.Len(t, lines, 2)
	require.Regexp(t, `^\[##########\.\.\.\.\.\.\.\.\.\.\] 1/2 xr/panel gpt/page: pass \(judged assertions; 2 unjudged\) \(1\.5s\) eta \d+s$`, string(lines[0]))
	require.Equal(t, "[####################] 2/2 xr/panel gpt/other: fail 75% state_mismatch (judged assertions; 1 unjudged) (2.5s)", string(lines[1]))
}
