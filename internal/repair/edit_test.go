package repair

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func reply(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "replies", name))
	require.NoError(t, err)
	return string(b)
}

const page = `<!DOCTYPE html>
<html><body>
<script>
  const speed = 2;
  const box = new THREE.Mesh(new THREE.BoxGeometery(1, 1, 1), material);
  scene.add(box);
  scene.add(box);
</script>
</body></html>
`

func TestParseEditsWithProseAndFences(t *testing.T) {
	edits, bad := ParseEdits(reply(t, "claude_prose_edit.md"))
	require.Empty(t, bad)
	require.Equal(t, []Edit{{
		Search:  "  const box = new THREE.Mesh(new THREE.BoxGeometery(1, 1, 1), material);",
		Replace: "  const box = new THREE.Mesh(new THREE.BoxGeometry(1, 1, 1), material);",
		Line:    4,
	}}, edits)
}

func TestParseEditsSeveralBlocksCRLF(t *testing.T) {
	r := strings.ReplaceAll(reply(t, "gpt_two_edits.md"), "\n", "\r\n")
	edits, bad := ParseEdits(r)
	require.Empty(t, bad)
	require.Equal(t, []Edit{
		{Search: "  const speed = 2;", Replace: "  const speed = 1;", Line: 3},
		{Search: "  scene.add(box);\n  scene.add(box);", Replace: "  scene.add(box);", Line: 13},
	}, edits, "CRLF line ends read as LF; a block's lines are joined with LF")
}

func TestParseEditsProseOnly(t *testing.T) {
	edits, bad := ParseEdits(reply(t, "prose_only.md"))
	require.Empty(t, edits)
	require.Empty(t, bad)
}

func TestParseEditsMalformed(t *testing.T) {
	r := "Here:\n<<<<<<< SEARCH\na\n>>>>>>> REPLACE\n<<<<<<< SEARCH\nb\n=======\nc\n>>>>>>> REPLACE\n<<<<<<< SEARCH\nd\n=======\ne\n"
	edits, bad := ParseEdits(r)
	require.Equal(t, []Edit{{Search: "b", Replace: "c", Line: 5}}, edits)
	require.Equal(t, []Malformed{
		{Line: 2, Reason: "has no ======= line between its SEARCH and REPLACE parts"},
		{Line: 10, Reason: "is cut off: it has no >>>>>>> REPLACE line"},
	}, bad)
	require.Equal(t, "the block at line 10 of your answer is cut off: it has no >>>>>>> REPLACE line", bad[1].String())
}

func TestApplyGood(t *testing.T) {
	edits, _ := ParseEdits(reply(t, "gpt_two_edits.md"))
	a := Apply(page, edits)
	require.Equal(t, []int{1, 2}, a.Accepted)
	require.Empty(t, a.Rejected)
	require.Equal(t, strings.Replace(strings.Replace(page, "speed = 2", "speed = 1", 1), "  scene.add(box);\n  scene.add(box);\n", "  scene.add(box);\n", 1), a.Page)
}

func TestApplyRejects(t *testing.T) {
	cases := []struct {
		name   string
		edits  []Edit
		reason string
	}{
		{"none match", []Edit{{Search: "  const speed = 3;", Replace: "x"}},
			`does not apply: its SEARCH text is not in the page (its line "const speed = 3;" is not in the page: copy the page's lines exactly, without changing them)`},
		{"other indentation", []Edit{{Search: "const speed = 2;\nconst box = new THREE.Mesh(new THREE.BoxGeometery(1, 1, 1), material);", Replace: "x"}},
			`does not apply: its SEARCH text is not in the page (its line "const box = new THREE.Mesh(new THREE.BoxGeometery(1, 1, 1), material);" is at line 5 of the page with other spacing or indentation: copy the page's lines exactly)`},
		{"two match", []Edit{{Search: "  scene.add(box);", Replace: ""}},
			"does not apply: its SEARCH text occurs 2 times in the page (at lines 6 and 7), and it must occur exactly once: add the lines around the place to change until it is unique"},
		{"empty search", []Edit{{Search: "\n", Replace: "  console.log(1);"}},
			"has an empty SEARCH part: SEARCH must hold the exact text to replace (to add lines, put the line before them in SEARCH and repeat it in REPLACE, followed by the new lines)"},
		{"no change", []Edit{{Search: "  const speed = 2;", Replace: "  const speed = 2;"}},
			"changes nothing: its REPLACE part is the same as its SEARCH part"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := Apply(page, c.edits)
			require.Empty(t, a.Accepted)
			require.Equal(t, []Rejection{{Edit: 1, Reason: c.reason}}, a.Rejected)
			require.Equal(t, page, a.Page, "a rejected edit changes nothing")
		})
	}
}

func TestApplyOverlapping(t *testing.T) {
	a := Apply(page, []Edit{
		{Search: "  const speed = 2;\n  const box", Replace: "  const speed = 1;\n  const box"},
		{Search: "const box = new THREE.Mesh(new THREE.BoxGeometery", Replace: "const box = new THREE.Mesh(new THREE.BoxGeometry"},
		{Search: "</body>", Replace: "</body>\n<!-- end -->"},
	})
	require.Equal(t, []int{1, 3}, a.Accepted)
	require.Equal(t, []Rejection{{Edit: 2, Reason: "overlaps edit 1 (both change text at line 5 of the page): give the change as one block"}}, a.Rejected)
	require.Equal(t, strings.Replace(strings.Replace(page, "speed = 2", "speed = 1", 1), "</body>", "</body>\n<!-- end -->", 1), a.Page,
		"the edits that apply are applied, each located in the page as given")
	require.Equal(t, "edit 2 overlaps edit 1 (both change text at line 5 of the page): give the change as one block", a.Rejected[0].String())
}

func TestApplyOverlappingOccurrencesCount(t *testing.T) {
	a := Apply("aaa", []Edit{{Search: "aa", Replace: "b"}})
	require.Equal(t, []Rejection{{Edit: 1, Reason: "does not apply: its SEARCH text occurs 2 times in the page (at lines 1 and 1), and it must occur exactly once: add the lines around the place to change until it is unique"}}, a.Rejected)
}

func TestApplyToACRLFPage(t *testing.T) {
	crlf := strings.ReplaceAll(page, "\n", "\r\n")
	a := Apply(crlf, []Edit{{Search: "  scene.add(box);\n  scene.add(box);", Replace: "  scene.add(box);\n  renderer.render(scene, camera);"}})
	require.Equal(t, []int{1}, a.Accepted)
	require.Equal(t, strings.Replace(crlf, "  scene.add(box);\r\n  scene.add(box);", "  scene.add(box);\r\n  renderer.render(scene, camera);", 1), a.Page,
		"the page keeps its CRLF line ends")
}
