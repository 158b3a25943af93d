package mutate

import "github.com/worldprobe/worldprobe/internal/pagescript"

// findScripts returns the inline JavaScript <script> elements of page
// (classic and module), in document order. Scripts with src= and scripts
// of other types (importmap, application/json, shaders, …) are left out.
func findScripts(page []byte) []pagescript.Script {
	var out []pagescript.Script
	for _, s := range pagescript.Inline(page) {
		if s.JavaScript() {
			out = append(out, s)
		}
	}
	return out
}
