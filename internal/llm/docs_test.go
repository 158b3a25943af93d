package llm

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDocsExamplesAreValid parses every YAML example of docs/models.md
// and resolves every role, so the docs cannot drift from the code.
func TestDocsExamplesAreValid(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "models.md"))
	require.NoError(t, err)
	blocks := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllSubmatch(doc, -1)
	require.Equal(t, 6, len(blocks), "YAML examples in docs/models.md")
	for i, b := range blocks {
		cfg, err := ParseConfig(b[1])
		require.NoError(t, err, "block %d:\n%s", i+1, b[1])
		for _, role := range Roles() {
			_, err := cfg.Resolve(role)
			require.NoError(t, err, "block %d, role %s", i+1, role)
		}
	}
}
