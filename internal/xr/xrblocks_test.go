package xr

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The XR Blocks backend's prelude is its own script (no IWER); an unknown
// backend, or an IWER profile other than the Quest 3 it stands for, is an
// error.
func TestPreludeBackends(t *testing.T) {
	p, err := Prelude(shared.Resolver, Options{Backend: BackendXRBlocks})
	require.NoError(t, err)
	require.Equal(t, xrblocksJS, p)
	require.True(t, strings.Contains(p, "'"+XRBlocksGlobal+"'"), "the prelude installs window.%s", XRBlocksGlobal)
	require.False(t, strings.Contains(p, "IWER.XRDevice"), "no IWER on the XR Blocks backend")

	p, err = Prelude(shared.Resolver, Options{Backend: BackendXRBlocks, Profile: "metaQuest3"})
	require.NoError(t, err)
	require.Equal(t, xrblocksJS, p)

	_, err = Prelude(shared.Resolver, Options{Backend: BackendXRBlocks, Profile: "metaQuest2"})
	require.EqualError(t, err, `xr: the xrblocks backend simulates XR Blocks' own device: profile "metaQuest2" is IWER's (use metaQuest3 or none)`)

	_, err = Prelude(shared.Resolver, Options{Backend: "unity"})
	require.EqualError(t, err, `xr: unknown backend "unity" (one of [iwer xrblocks])`)

	p, err = Prelude(shared.Resolver, Options{Backend: BackendIWER})
	require.NoError(t, err)
	require.True(t, strings.Contains(p, "IWER.XRDevice"))
}

// The import map entries the XR Blocks prelude adds for XR Blocks' UI
// backend name files that are vendored at exactly the version written
// (none substituted), and they cover every bare import of that module
// graph (static and dynamic, from @pmndrs/uikit down): upgrading
// @pmndrs/uikit in web/package.json to a version with a new dependency
// fails here rather than as a page that waits out its idle allowance.
func TestXRBlocksPreludeMapsTheUIGraph(t *testing.T) {
	entry := regexp.MustCompile(`'?([@\w./-]+?)'?: NPM \+ '([^']+)'`)
	ui := map[string]string{}
	for _, m := range entry.FindAllStringSubmatch(xrblocksJS, -1) {
		ui[m[1]] = "https://cdn.jsdelivr.net/npm/" + m[2]
	}
	require.Len(t, ui, 10, "the prelude's UI entries: %v", ui)
	file := func(u string) string {
		t.Helper()
		r, ok, err := shared.Resolver.Resolve(u)
		require.True(t, ok, u)
		require.NoError(t, err, u)
		require.False(t, r.Substituted, "%s is served from %s %s", u, r.Package, r.Served)
		require.Contains(t, u, "@"+r.Served+"/", "%s is served at version %s", u, r.Served)
		return r.File
	}
	// Comments (block comments, and lines that are a // comment) name
	// imports too (zod's core: import "zod/compile"), so they go first.
	comments := regexp.MustCompile(`(?s:/\*.*?\*/)|(?m:^[ \t]*//[^\n]*)`)
	imports := regexp.MustCompile(`(?:\bimport|\bexport)\s*(?:[\w*{}\s,$]*?\bfrom\s*)?['"]([^'"\n]+)['"]|\bimport\(\s*['"]([^'"\n]+)['"]\s*\)`)
	covered := func(spec string) bool {
		if spec == "three" || strings.HasPrefix(spec, "three/") { // the app's three, or the prelude's three/
			return true
		}
		_, ok := ui[spec]
		return ok
	}
	seen := map[string]bool{}
	bare := map[string]bool{}
	var uncovered []string
	var walk func(f string)
	walk = func(f string) {
		if seen[f] {
			return
		}
		seen[f] = true
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, m := range imports.FindAllStringSubmatch(comments.ReplaceAllString(string(src), ""), -1) {
			spec := m[1] + m[2]
			if !strings.HasPrefix(spec, ".") {
				bare[spec] = true
			}
			switch {
			case strings.HasPrefix(spec, "."):
				walk(filepath.Join(filepath.Dir(f), spec))
			case !covered(spec):
				uncovered = append(uncovered, spec+" (from "+filepath.Base(f)+")")
			case ui[spec] != "":
				walk(file(ui[spec]))
			}
		}
	}
	walk(file(ui["@pmndrs/uikit"]))
	require.Empty(t, uncovered, "bare imports of the UI graph the prelude does not map")
	require.Greater(t, len(seen), 100, "the walk read the graph")
	var specs []string
	for s := range bare {
		specs = append(specs, s)
	}
	sort.Strings(specs)
	require.Equal(t, []string{"@pmndrs/msdfonts/inter", "@pmndrs/uikit-pub-sub", "@preact/signals-core", "@zappar/msdf-generator",
		"comlink", "three", "three/examples/jsm/loaders/SVGLoader.js", "three/src/math/MathUtils.js", "yoga-layout/load", "zod"}, specs)
	for _, u := range ui {
		file(u)
	}
}
