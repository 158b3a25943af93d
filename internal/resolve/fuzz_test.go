package resolve

import (
	"path/filepath"
	"strings"
	"testing"
)

// FuzzResolve: no URL a page can write makes the resolver panic or serve a
// file outside the vendored packages (no path traversal through versions,
// package names, file paths or encodings).
func FuzzResolve(f *testing.F) {
	for _, u := range []string{
		"https://unpkg.com/three@0.160.0/build/three.module.js",
		"https://cdn.jsdelivr.net/npm/three@0.128/examples/jsm/controls/OrbitControls.js",
		"https://cdnjs.cloudflare.com/ajax/libs/three.js/r128/three.min.js",
		"https://esm.sh/three@0.170?target=es2022",
		"https://cdn.skypack.dev/three@0.149.0",
		"https://unpkg.com/three@0.160.0/../../../../etc/passwd",
		"https://unpkg.com/three@0.160.0/%2e%2e/%2e%2e/etc/passwd",
		"https://cdn.jsdelivr.net/gh/mrdoob/three.js@r128/build/three.module.js",
		"https://threejs.org/build/three.module.js",
		"https://unpkg.com/@iwer/sem@latest",
	} {
		f.Add(u)
	}
	r, err := New(nodeModules)
	if err != nil {
		f.Skipf("web/node_modules is not installed (run 'make setup'): %v", err)
	}
	root, err := filepath.EvalSymlinks(nodeModules)
	if err != nil {
		f.Fatal(err)
	}
	root, _ = filepath.Abs(root)
	f.Fuzz(func(t *testing.T, raw string) {
		res, ok, err := r.Resolve(raw)
		if !ok || err != nil || res.File == "" {
			return
		}
		file, err := filepath.Abs(res.File)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(file, root+string(filepath.Separator)) {
			t.Fatalf("%q resolved outside the vendored packages: %s", raw, file)
		}
	})
}
