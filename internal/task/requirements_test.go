package task

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseRequirements(t *testing.T) {
	brief := `# Ball

Intro text, not a requirement.
- not under a section either

## Scene

- A floor. {#floor}
- A red ball named ` + "`ball`" + `,
  radius 0.5 m. {#ball}

## Controls

- Space pauses:
  - while paused nothing moves;
  - Space again resumes. {#pause}
- R resets. {#floor}
- No id here.

Closing paragraph.
`
	reqs, problems := ParseRequirements("brief.md", brief)
	require.Equal(t, []Requirement{
		{ID: "floor", Section: "Scene", Text: "A floor.", Line: 8},
		{ID: "ball", Section: "Scene", Text: "A red ball named `ball`, radius 0.5 m.", Line: 9},
		{ID: "pause", Section: "Controls", Text: "Space pauses: - while paused nothing moves; - Space again resumes.", Line: 14},
	}, reqs)
	var msgs []string
	for _, p := range problems {
		msgs = append(msgs, p.String())
	}
	require.Equal(t, []string{
		"brief.md:17: requirement id floor is already used at line 8",
		`brief.md:18: requirement in section "Controls" has no id: end the bullet with {#some-id} (No id here.)`,
	}, msgs)
	require.Equal(t, "- A floor.\n- Space again resumes.\n", StripRequirementIDs("- A floor. {#floor}\n- Space again resumes. {#pause}\n"))
}
