package resolve

import (
	"slices"
	"strings"
	"testing"
)

func mustVersion(t *testing.T, s string) version {
	t.Helper()
	v, ok := parseVersion(s)
	if !ok {
		t.Fatalf("parseVersion(%q) failed", s)
	}
	return v
}

func TestParseVersion(t *testing.T) {
	for s, want := range map[string]string{
		"0.160.0": "0.160.0", "v1.2.3": "1.2.3", "1.2.3-beta.1": "1.2.3-beta.1", "1.2.3+build": "1.2.3", "=2.0.0": "2.0.0",
	} {
		if got := mustVersion(t, s).String(); got != want {
			t.Errorf("parseVersion(%q) = %s, want %s", s, got, want)
		}
	}
	for _, s := range []string{"", "0.160", "r128", "latest", "1.2.3.4", "a.b.c", "1.-2.3"} {
		if _, ok := parseVersion(s); ok {
			t.Errorf("parseVersion(%q) succeeded", s)
		}
	}
}

func TestRanges(t *testing.T) {
	type c struct {
		rng  string
		v    string
		want bool
	}
	for _, tc := range []c{
		{"0.160", "0.160.0", true}, {"0.160", "0.160.9", true}, {"0.160", "0.161.0", false},
		{"^0.160.0", "0.160.5", true}, {"^0.160.0", "0.161.0", false}, {"^0.160", "0.160.1", true},
		{"^1.2.3", "1.9.0", true}, {"^1.2.3", "2.0.0", false}, {"^1.2.3", "1.2.2", false},
		{"^0.0.3", "0.0.3", true}, {"^0.0.3", "0.0.4", false},
		{"~0.170.0", "0.170.4", true}, {"~0.170.0", "0.171.0", false}, {"~1", "1.9.9", true},
		{">=0.150 <0.161", "0.160.0", true}, {">=0.150 <0.161", "0.161.0", false}, {">= 0.150", "0.187.0", true},
		{">0.150", "0.150.9", false}, {">0.150", "0.151.0", true}, {"<=0.150", "0.150.9", true}, {"<=0.150", "0.151.0", false},
		{"0.128.0 - 0.134", "0.134.5", true}, {"0.128.0 - 0.134", "0.135.0", false},
		{"0.128.0 || 0.160.x", "0.160.0", true}, {"0.128.0 || 0.160.x", "0.147.0", false},
		{"*", "9.9.9", true}, {"", "0.1.0", true}, {"latest", "0.1.0", true}, {"0.x", "0.187.0", true}, {"1.x", "0.187.0", false},
		{"3", "3.15.0", true}, {"3", "4.0.0", false},
	} {
		r, err := parseRange(tc.rng)
		if err != nil {
			t.Errorf("parseRange(%q): %v", tc.rng, err)
			continue
		}
		if got := r.match(mustVersion(t, tc.v)); got != tc.want {
			t.Errorf("%q matches %s = %v, want %v", tc.rng, tc.v, got, tc.want)
		}
	}
	for _, bad := range []string{"banana", "^x.y", ">=abc"} {
		if _, err := parseRange(bad); err == nil {
			t.Errorf("parseRange(%q) succeeded", bad)
		}
	}
	r, _ := parseRange("^0.151.0")
	if lb, ok := r.lowerBound(); !ok || lb.String() != "0.151.0" {
		t.Errorf("lowerBound(^0.151.0) = %v, %v", lb, ok)
	}
}

func TestNearer(t *testing.T) {
	anchor := mustVersion(t, "0.150.0")
	order := []string{"0.187.0", "0.128.0", "0.160.0", "0.149.0", "1.150.0", "0.147.0"}
	vs := make([]version, len(order))
	for i, s := range order {
		vs[i] = mustVersion(t, s)
	}
	slices.SortFunc(vs, func(a, b version) int {
		if nearer(a, b, anchor) {
			return -1
		}
		if nearer(b, a, anchor) {
			return 1
		}
		return 0
	})
	var got []string
	for _, v := range vs {
		got = append(got, v.String())
	}
	want := []string{"0.149.0", "0.147.0", "0.160.0", "0.128.0", "0.187.0", "1.150.0"}
	if !slices.Equal(got, want) {
		t.Errorf("order by nearness to 0.150.0 = %v, want %v", got, want)
	}
	// Ties go to the older version.
	if !nearer(mustVersion(t, "0.160.0"), mustVersion(t, "0.166.0"), mustVersion(t, "0.163.0")) {
		t.Error("tie not broken towards the older version")
	}
}

func TestAnalyzeAndReplace(t *testing.T) {
	src := `// import x from 'in-a-comment';
import 'side-effect';
import def, { a as b } from "three";
import * as ns from './relative.js';
export * from 'three/addons/controls/OrbitControls.js';
export { x as default } from '@scope/pkg/sub';
const re = /import\('not-a-call'\)/g;
const s = "import('in-a-string')";
const tpl = ` + "`import('${'in a template'}')`" + `;
const ratio = 4 / 2 / 1; // division, not a regexp
async function f() { return import('lazy-pkg'); }
const notStatic = import(someVariable);
export default 42;
`
	a := analyze([]byte(src))
	if a.err != nil {
		t.Fatal(a.err)
	}
	var got []string
	for _, s := range a.specs {
		got = append(got, s.value)
		if src[s.start] != s.quote || src[s.end-1] != s.quote {
			t.Errorf("spec %q: bad range %d-%d", s.value, s.start, s.end)
		}
	}
	want := []string{"side-effect", "three", "./relative.js", "three/addons/controls/OrbitControls.js", "@scope/pkg/sub", "lazy-pkg"}
	if !slices.Equal(got, want) {
		t.Errorf("specs = %q, want %q", got, want)
	}
	if !a.isModule || !a.hasDefault {
		t.Errorf("isModule = %v, hasDefault = %v", a.isModule, a.hasDefault)
	}
	out := string(replaceSpecs([]byte(src), a.specs, func(s string) string {
		if isBare(s) {
			return "https://cdn.example/" + s
		}
		return ""
	}))
	for _, line := range []string{
		"import 'https://cdn.example/side-effect';\n",
		"import def, { a as b } from \"https://cdn.example/three\";\n",
		"import * as ns from './relative.js';\n",
		"export * from 'https://cdn.example/three/addons/controls/OrbitControls.js';\n",
		"return import('https://cdn.example/lazy-pkg');",
		"// import x from 'in-a-comment';\n",
		"/import\\('not-a-call'\\)/g",
		`"import('in-a-string')"`,
	} {
		if !strings.Contains(out, line) {
			t.Errorf("output lacks %q:\n%s", line, out)
		}
	}
	if replaceSpecs([]byte(src), a.specs, func(string) string { return "" }) != nil {
		t.Error("replaceSpecs with no replacements should return nil")
	}
}

func TestAnalyzeParseError(t *testing.T) {
	if a := analyze([]byte("import { from 'x'")); a.err == nil {
		t.Error("no parse error for broken source")
	}
}

func TestAnalyzeCommonJS(t *testing.T) {
	src := `(function (global, factory) {
	typeof exports === 'object' ? factory(exports) : factory(global.LIB = {});
}(this, function (exports) {
	exports.Alpha = 1;
	Object.defineProperty(exports, 'Beta', { value: 2 });
	Object.defineProperty(exports, '__esModule', { value: true });
	module.exports.Gamma = 3;
	exports.default = 4;
}));
module.exports = { Delta: 1, 'Epsilon': 2, [computed]: 3 };
`
	a := analyze([]byte(src))
	if a.err != nil {
		t.Fatal(a.err)
	}
	if a.isModule {
		t.Error("CommonJS source taken for a module")
	}
	want := []string{"Alpha", "Beta", "Gamma", "Delta", "Epsilon"}
	got := slices.Clone(a.cjsNames)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("cjsNames = %v, want %v", got, want)
	}
	w := string(wrapCommonJS([]byte(src), "lib/x.js", a.cjsNames))
	for _, s := range []string{"export default ", "__n0 as ", "}).call(globalThis, module, exports, require, process);"} {
		if !strings.Contains(w, s) {
			t.Errorf("wrapped module lacks %q", s)
		}
	}
}

func TestIsBareAndSplit(t *testing.T) {
	for s, want := range map[string]bool{
		"three": true, "three/addons/x.js": true, "@scope/pkg": true, "./x.js": false, "../x.js": false, "/x.js": false,
		"https://esm.sh/three": false, "node:fs": false, "data:text/javascript,1": false, "": false,
	} {
		if got := isBare(s); got != want {
			t.Errorf("isBare(%q) = %v", s, got)
		}
	}
	for s, want := range map[string][3]string{
		"three":                     {"three", "", ""},
		"three/addons/a.js":         {"three", "", "addons/a.js"},
		"@scope/pkg/sub/x.js":       {"@scope/pkg", "", "sub/x.js"},
		"three@0.160.0/build/x.js":  {"three", "0.160.0", "build/x.js"},
		"@dimforge/rapier3d@0.11.2": {"@dimforge/rapier3d", "0.11.2", ""},
		"@scope":                    {"@scope", "", ""},
	} {
		n, v, sub := splitBare(s)
		if [3]string{n, v, sub} != want {
			t.Errorf("splitBare(%q) = %q %q %q, want %q", s, n, v, sub, want)
		}
	}
}

func TestCleanRel(t *testing.T) {
	for in, want := range map[string]string{
		"": "", "build/three.js": "build/three.js", "./build//three.js": "build/three.js", "build/": "build/", "/a/./b": "a/b",
	} {
		got, err := cleanRel(in)
		if err != nil || got != want {
			t.Errorf("cleanRel(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"..", "../x", "a/../../x", "a/..", "a\\b", "a\x00b"} {
		if _, err := cleanRel(bad); err == nil {
			t.Errorf("cleanRel(%q) accepted", bad)
		}
	}
}

func TestResolveExports(t *testing.T) {
	ex := []kv{
		{".", []kv{{"types", "./index.d.ts"}, {"require", "./cjs/index.js"}, {"import", "./esm/index.js"}}},
		{"./addons", "./examples/jsm/Addons.js"},
		{"./addons/*", "./examples/jsm/*"},
		{"./dist/*", []kv{{"node", "./node/*.js"}, {"default", "./dist/*.js"}}},
		{"./legacy/", "./old/"},
		{"./private/*", nil},
	}
	for sub, want := range map[string]string{
		".":                          "./esm/index.js",
		"./addons":                   "./examples/jsm/Addons.js",
		"./addons/controls/Orbit.js": "./examples/jsm/controls/Orbit.js",
		"./dist/gsap":                "./dist/gsap.js",
		"./legacy/a/b.js":            "./old/a/b.js",
		"./private/x":                "",
		"./nothing":                  "",
	} {
		got, ok := resolveExports(ex, sub)
		if got != want || ok != (want != "") {
			t.Errorf("resolveExports(%q) = %q, %v; want %q", sub, got, ok, want)
		}
	}
	// A bare string or condition object is the "." export.
	if got, _ := resolveExports("./main.js", "."); got != "./main.js" {
		t.Errorf("string exports: %q", got)
	}
	if got, _ := resolveExports([]kv{{"browser", "./b.js"}, {"import", "./i.js"}}, "."); got != "./b.js" {
		t.Errorf("condition exports: %q", got)
	}
}

func TestEmbeddedConfig(t *testing.T) {
	c, err := loadConfig()
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"unpkg.com", "cdn.jsdelivr.net", "cdnjs.cloudflare.com", "esm.sh", "cdn.skypack.dev", "ga.jspm.io", "threejs.org"} {
		if c.byHost[h] == nil {
			t.Errorf("cdn.yaml has no host %s", h)
		}
	}
	if c.byCDNJS["three.js"] != "three" || c.byRepo["mrdoob/three.js"] != "three" {
		t.Error("cdn.yaml lacks three's cdnjs or GitHub name")
	}
}

func TestConfigValidation(t *testing.T) {
	for name, doc := range map[string]string{
		"unknown field":     "hosts: []\nbogus: 1\n",
		"bad regexp":        "hosts:\n  - names: [a]\n    routes:\n      - pattern: '('\n        package: x\n",
		"unknown group":     "hosts:\n  - names: [a]\n    routes:\n      - pattern: '^/(?P<what>.*)$'\n        package: x\n",
		"no name group":     "hosts:\n  - names: [a]\n    routes:\n      - pattern: '^/(?P<path>.*)$'\n",
		"spec and ver":      "hosts:\n  - names: [a]\n    routes:\n      - pattern: '^/(?P<spec>.*)@(?P<ver>.*)$'\n",
		"bad mode":          "hosts:\n  - names: [a]\n    routes:\n      - pattern: '^/(?P<spec>.*)$'\n        mode: fast\n",
		"esm, no canonical": "hosts:\n  - names: [a]\n    routes:\n      - pattern: '^/(?P<spec>.*)$'\n        mode: esm\n",
		"duplicate host":    "hosts:\n  - names: [a]\n    routes: [{pattern: '^/(?P<spec>.*)$'}]\n  - names: [a]\n    routes: [{pattern: '^/(?P<spec>.*)$'}]\n",
		"bad entry field":   "hosts:\n  - names: [a]\n    routes: [{pattern: '^/(?P<spec>.*)$', entry: [types]}]\n",
		"bad tag":           "hosts: []\npackages:\n  x:\n    tags: {r1: banana}\n",
		"bad alias":         "hosts: []\npackages:\n  x:\n    path_aliases: {a: b/}\n",
		"duplicate cdnjs":   "hosts: []\npackages:\n  x: {cdnjs: n}\n  y: {cdnjs: n}\n",
	} {
		if _, err := parseConfig([]byte(doc)); err == nil {
			t.Errorf("%s: parseConfig accepted %q", name, doc)
		}
	}
}
