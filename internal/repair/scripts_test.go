package repair

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/pagescript"
)

func TestScriptErrorsPlaceTheErrorInThePage(t *testing.T) {
	broken := `<!DOCTYPE html>
<html><head>
<script type="importmap">
  { "imports": { "three": "https://unpkg.com/three@0.160.0/build/three.module.js", } }
</script>
<script src="https://unpkg.com/three@0.160.0/build/three.min.js"></script>
<script type="x-shader/x-vertex">void main() { gl_Position = vec4(0.0); }</script>
</head><body>
<script>const ok = 1;</script>
<script type="module">
  import * as THREE from "three";
  const scene = new THREE.Scene();
  function loop() {
    renderer.render(scene, camera;
  }
</script>
<script>  let a = ;</script>
</body></html>
`
	require.Equal(t, []Finding{
		{Kind: KindImportMapError, Text: "the import map is not valid JSON: invalid character '}' looking for beginning of object key string", Line: 4, Column: 84},
		{Kind: KindSyntaxError, Text: "expected , or ) instead of ; in arguments (in a module script)", Line: 14, Column: 34},
		{Kind: KindSyntaxError, Text: "unexpected ; in expression", Line: 17, Column: 19},
	}, ScriptErrors(broken))
	kinds := []string{}
	for _, s := range pagescript.Inline([]byte(broken)) {
		kinds = append(kinds, s.Kind())
	}
	require.Equal(t, []string{"importmap", "", "classic", "module", "classic"}, kinds, "a script with src= is left out; a shader is not parsed")
}

// TestScriptErrorsFindNothingInWorkingPages: no page of the starter suite
// — references, blind solutions, fixtures, all of which load — gets a
// syntax error from the static parse, so it never sends a model after an
// error that is not there.
func TestScriptErrorsFindNothingInWorkingPages(t *testing.T) {
	root := filepath.Join("..", "..", "suites", "starter")
	pages := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".html") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		pages++
		found := ScriptErrors(string(b))
		if strings.Contains(path, string(filepath.Separator)+"candidates"+string(filepath.Separator)) {
			for _, f := range found {
				require.Equal(t, KindSyntaxError, f.Kind, "%s: %v", path, f)
			}
			return nil // a fixture may be broken on purpose
		}
		require.Empty(t, found, path)
		return nil
	})
	require.NoError(t, err)
	require.Greater(t, pages, 100)
}
