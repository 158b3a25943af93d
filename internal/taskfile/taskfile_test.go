package taskfile

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The rule, case by case, for both kinds of file a task names.
func TestCheck(t *testing.T) {
	for _, ext := range []string{".wav", ".json"} {
		t.Run(ext, func(t *testing.T) {
			accept := []string{"a" + ext, "sounds/a" + ext, "a/b/c" + ext, "A" + upper(ext), "x.y" + ext, "..a" + ext, "a..b" + ext}
			for _, name := range accept {
				require.Empty(t, Check(name, ext), name)
			}
			reject := map[string]string{
				"":                     "must be a plain path inside the task folder",
				".":                    "must be a " + ext + " file",
				"..":                   "must be a plain path inside the task folder",
				"../a" + ext:           "must be a plain path inside the task folder",
				"./a" + ext:            "must be a plain path inside the task folder",
				"a//b" + ext:           "must be a plain path inside the task folder",
				"a/../b" + ext:         "must be a plain path inside the task folder",
				"a/./b" + ext:          "must be a plain path inside the task folder",
				"a" + ext + "/":        "must be a plain path inside the task folder",
				"/tmp/a" + ext:         "must be relative to the task folder",
				`a\b` + ext:            "must use / between folders",
				`..\a` + ext:           "must use / between folders",
				"a.mp3":                "must be a " + ext + " file",
				"a" + ext + ".txt":     "must be a " + ext + " file",
				ext:                    "must be a " + ext + " file",
				"a" + ext[:len(ext)-1]: "must be a " + ext + " file",
			}
			for name, want := range reject {
				require.Equal(t, want, Check(name, ext), "%q", name)
			}
		})
	}
	require.True(t, HasExt("room.JSON", ".json"))
	require.False(t, HasExt("json", ".json"))
	require.False(t, HasExt("living_room", ".json"))
}

func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 32
		}
	}
	return string(b)
}
