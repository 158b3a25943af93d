package resolve

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// The tests below run against the real web/node_modules installed from
// web/package-lock.json (the Makefile runs npm ci before go test). Their
// expected versions follow from that lock file: three 0.128.0, 0.134.0,
// 0.147.0, 0.149.0, 0.160.0, 0.166.1, 0.170.0, 0.184.0 (the un-aliased
// "three" folder) and 0.187.0. Which files each version has is on disk:
// examples/js/ last ships in 0.147.0 here, build/three.min.js in 0.160.0.

const nodeModules = "../../web/node_modules"

var (
	sharedOnce sync.Once
	shared     *Resolver
	sharedErr  error
)

// testResolver returns a Resolver over web/node_modules, or skips the test
// when the packages are not installed.
func testResolver(t *testing.T) *Resolver {
	t.Helper()
	if _, err := os.Stat(filepath.Join(nodeModules, "three", "package.json")); err != nil {
		t.Skipf("web/node_modules is not installed (run `npm ci` in web/ first): %v", err)
	}
	sharedOnce.Do(func() { shared, sharedErr = New(nodeModules) })
	if sharedErr != nil {
		t.Fatalf("New(%s): %v", nodeModules, sharedErr)
	}
	return shared
}

type resolveCase struct {
	url       string
	ok        bool   // want ok
	err       error  // want errors.Is(err, this); nil: want no error
	file      string // want File to end in this (relative to node_modules)
	served    string
	requested string
	sub       bool
	esm       bool
	stub      bool   // want Body to be a re-export stub of Canonical
	body      string // want Body to contain this
	notBody   string // want Body not to contain this
	ctype     string
}

func (c resolveCase) check(t *testing.T, r *Resolver) {
	t.Helper()
	res, ok, err := r.Resolve(c.url)
	if ok != c.ok {
		t.Fatalf("ok = %v, want %v (err %v)", ok, c.ok, err)
	}
	if c.err == nil && err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
	if c.err != nil {
		if !errors.Is(err, c.err) {
			t.Fatalf("err = %v, want %v", err, c.err)
		}
		return
	}
	if !ok {
		return
	}
	want := filepath.FromSlash("/" + c.file)
	if c.file != "" && !strings.HasSuffix(res.File, want) {
		t.Errorf("File = %s, want …%s", res.File, want)
	}
	if !strings.HasPrefix(res.File, r.root+string(filepath.Separator)) {
		t.Errorf("File %s is outside %s", res.File, r.root)
	}
	if c.served != "" && res.Served != c.served {
		t.Errorf("Served = %q, want %q", res.Served, c.served)
	}
	if res.Requested != c.requested {
		t.Errorf("Requested = %q, want %q", res.Requested, c.requested)
	}
	if res.Substituted != c.sub {
		t.Errorf("Substituted = %v, want %v", res.Substituted, c.sub)
	}
	if res.ESM != c.esm {
		t.Errorf("ESM = %v, want %v", res.ESM, c.esm)
	}
	if c.ctype != "" && res.ContentType != c.ctype {
		t.Errorf("ContentType = %q, want %q", res.ContentType, c.ctype)
	}
	if c.stub {
		want := "export * from \"" + res.Canonical + "\";\n"
		if !strings.Contains(string(res.Body), want) {
			t.Errorf("Body = %q, want a stub re-exporting %s", res.Body, res.Canonical)
		}
	}
	if c.body != "" && !strings.Contains(string(res.Body), c.body) {
		b := string(res.Body)
		if len(b) > 600 {
			b = b[:600] + "…"
		}
		t.Errorf("Body does not contain %q; Body = %q", c.body, b)
	}
	if c.notBody != "" && strings.Contains(string(res.Body), c.notBody) {
		t.Errorf("Body contains %q", c.notBody)
	}
	if !c.stub && c.body == "" && res.Body != nil && !c.esm {
		t.Errorf("Body is set for a file served unchanged")
	}
}

func runCases(t *testing.T, cases []resolveCase) {
	r := testResolver(t)
	for _, c := range cases {
		t.Run(c.url, func(t *testing.T) { c.check(t, r) })
	}
}

// The URLs the brief names, exactly.
func TestRealWorldURLs(t *testing.T) {
	runCases(t, []resolveCase{
		{url: "https://cdnjs.cloudflare.com/ajax/libs/three.js/r128/three.min.js", ok: true,
			file: "three-0.128.0/build/three.min.js", served: "0.128.0", requested: "0.128.0", ctype: "text/javascript"},
		{url: "https://cdn.jsdelivr.net/npm/three@0.128.0/examples/js/controls/OrbitControls.js", ok: true,
			file: "three-0.128.0/examples/js/controls/OrbitControls.js", served: "0.128.0", requested: "0.128.0"},
		{url: "https://cdn.jsdelivr.net/npm/three@0.166.1/build/three.module.js", ok: true,
			file: "three-0.166.1/build/three.module.js", served: "0.166.1", requested: "0.166.1"},
		{url: "https://cdn.jsdelivr.net/npm/three@0.166.1/examples/jsm/controls/OrbitControls.js", ok: true,
			file: "three-0.166.1/examples/jsm/controls/OrbitControls.js", served: "0.166.1", requested: "0.166.1"},
		{url: "https://cdn.jsdelivr.net/npm/three@0.160.0/examples/jsm/postprocessing/EffectComposer.js", ok: true,
			file: "three-0.160.0/examples/jsm/postprocessing/EffectComposer.js", served: "0.160.0", requested: "0.160.0"},
		// 0.150.0 is not vendored: 0.149.0 is one minor away, 0.160.0 ten.
		{url: "https://unpkg.com/three@0.150.0/build/three.module.js", ok: true,
			file: "three-0.149.0/build/three.module.js", served: "0.149.0", requested: "0.150.0", sub: true},
		{url: "https://cdn.jsdelivr.net/npm/three/build/three.module.js", ok: true,
			file: "three-0.187.0/build/three.module.js", served: "0.187.0", requested: ""},
	})
}

func TestHosts(t *testing.T) {
	runCases(t, []resolveCase{
		// unpkg
		{url: "https://unpkg.com/three@0.128.0/build/three.min.js", ok: true, file: "three-0.128.0/build/three.min.js", served: "0.128.0", requested: "0.128.0"},
		{url: "https://unpkg.com/three/examples/jsm/controls/OrbitControls.js", ok: true, file: "three-0.187.0/examples/jsm/controls/OrbitControls.js", served: "0.187.0"},
		{url: "https://unpkg.com/three@0.160.0/examples/jsm/controls/OrbitControls", ok: true, file: "three-0.160.0/examples/jsm/controls/OrbitControls.js", requested: "0.160.0"},
		{url: "http://unpkg.com/three@0.134.0/build/three.module.js", ok: true, file: "three-0.134.0/build/three.module.js", requested: "0.134.0"},
		// jsDelivr npm and gh
		{url: "https://cdn.jsdelivr.net/npm/three@0.160.0/build/three.module.js", ok: true, file: "three-0.160.0/build/three.module.js", requested: "0.160.0"},
		{url: "https://fastly.jsdelivr.net/npm/three@0.147.0/examples/js/loaders/GLTFLoader.js", ok: true, file: "three-0.147.0/examples/js/loaders/GLTFLoader.js", requested: "0.147.0"},
		{url: "https://cdn.jsdelivr.net/gh/mrdoob/three.js@r128/examples/js/controls/OrbitControls.js", ok: true, file: "three-0.128.0/examples/js/controls/OrbitControls.js", requested: "0.128.0"},
		{url: "https://cdn.jsdelivr.net/gh/mrdoob/three.js@dev/build/three.module.js", ok: true, file: "three-0.187.0/build/three.module.js", requested: ""},
		{url: "https://cdn.jsdelivr.net/gh/mrdoob/three.js/build/three.module.js", ok: true, file: "three-0.187.0/build/three.module.js", requested: ""},
		{url: "https://cdn.jsdelivr.net/gh/google/xrblocks@build/xrblocks.js", ok: true, file: "xrblocks/build/xrblocks.js", requested: ""},
		{url: "https://cdn.jsdelivr.net/gh/google/xrblocks@build/addons/ui/TextBillboard.js", ok: true, err: ErrNoFile},
		// cdnjs: build files live at the version root
		{url: "https://cdnjs.cloudflare.com/ajax/libs/three.js/r134/three.js", ok: true, file: "three-0.134.0/build/three.js", requested: "0.134.0"},
		{url: "https://cdnjs.cloudflare.com/ajax/libs/three.js/0.160.0/three.module.js", ok: true, file: "three-0.160.0/build/three.module.js", requested: "0.160.0"},
		{url: "https://cdnjs.cloudflare.com/ajax/libs/three.js/0.160.0/three.module.min.js", ok: true, file: "three-0.160.0/build/three.module.min.js", requested: "0.160.0"},
		{url: "https://cdnjs.cloudflare.com/ajax/libs/gsap/3.12.2/gsap.min.js", ok: true, file: "gsap/dist/gsap.min.js", served: "3.15.0", requested: "3.12.2", sub: true},
		{url: "https://cdnjs.cloudflare.com/ajax/libs/gsap/3.15.0/ScrollTrigger.min.js", ok: true, file: "gsap/dist/ScrollTrigger.min.js", requested: "3.15.0"},
		{url: "https://cdnjs.cloudflare.com/ajax/libs/stats.js/r17/Stats.min.js", ok: true, file: "stats.js/build/stats.min.js", served: "1.0.0", requested: "1.0.0"},
		{url: "https://cdnjs.cloudflare.com/ajax/libs/dat-gui/0.7.9/dat.gui.min.js", ok: true, file: "dat.gui/build/dat.gui.min.js", requested: "0.7.9"},
		{url: "https://cdnjs.cloudflare.com/ajax/libs/tween.js/18.6.4/tween.umd.js", ok: true, file: "tween.js-18.6.4/dist/tween.umd.js", requested: "18.6.4"},
		{url: "https://cdnjs.cloudflare.com/ajax/libs/simplex-noise/2.4.0/simplex-noise.min.js", ok: true, file: "simplex-noise-2.4.0/simplex-noise.js", requested: "2.4.0"},
		{url: "https://cdnjs.cloudflare.com/ajax/libs/cannon.js/0.6.2/cannon.min.js", ok: true, file: "cannon/build/cannon.min.js", requested: "0.6.2"},
		{url: "https://cdnjs.cloudflare.com/ajax/libs/lil-gui/0.19.1/lil-gui.umd.min.js", ok: true, file: "lil-gui/dist/lil-gui.umd.min.js", served: "0.21.0", requested: "0.19.1", sub: true},
		{url: "https://cdnjs.cloudflare.com/ajax/libs/react/18.2.0/umd/react.production.min.js", ok: true, err: ErrNotVendored},
		// threejs.org serves the current release
		{url: "https://threejs.org/build/three.module.js", ok: true, file: "three-0.187.0/build/three.module.js", requested: ""},
		{url: "https://threejs.org/examples/jsm/controls/OrbitControls.js", ok: true, file: "three-0.187.0/examples/jsm/controls/OrbitControls.js"},
		{url: "https://threejs.org/examples/js/controls/OrbitControls.js", ok: true, file: "three-0.147.0/examples/js/controls/OrbitControls.js", served: "0.147.0", sub: true},
		{url: "https://threejs.org/examples/textures/crate.gif", ok: true, err: ErrNoFile},
		// raw GitHub
		{url: "https://raw.githubusercontent.com/mrdoob/three.js/r147/examples/js/controls/OrbitControls.js", ok: true, file: "three-0.147.0/examples/js/controls/OrbitControls.js", requested: "0.147.0"},
		{url: "https://raw.githubusercontent.com/someone/else/main/x.js", ok: true, err: ErrNotVendored},
		// other libraries, package roots per host convention
		{url: "https://unpkg.com/cannon-es", ok: true, file: "cannon-es/dist/cannon-es.cjs.js", served: "0.20.0"},
		{url: "https://unpkg.com/cannon-es@0.20.0/dist/cannon-es.js", ok: true, file: "cannon-es/dist/cannon-es.js", requested: "0.20.0"},
		{url: "https://cdn.jsdelivr.net/npm/@dimforge/rapier3d-compat@0.21.0/rapier.es.js", ok: true, err: ErrNoFile},
		{url: "https://cdn.jsdelivr.net/npm/@dimforge/rapier3d-compat@0.21.0/dist/rapier.mjs", ok: true, file: "@dimforge/rapier3d-compat/dist/rapier.mjs", requested: "0.21.0"},
		{url: "https://cdn.jsdelivr.net/npm/lil-gui@0.21", ok: true, file: "lil-gui/dist/lil-gui.umd.js", requested: "0.21"},
		{url: "https://cdn.jsdelivr.net/npm/dat.gui@0.7.9/build/dat.gui.module.js", ok: true, file: "dat.gui/build/dat.gui.module.js", requested: "0.7.9"},
		{url: "https://unpkg.com/dat.gui@0.7.9/build/dat.gui.min.js", ok: true, file: "dat.gui/build/dat.gui.min.js", requested: "0.7.9"},
		{url: "https://unpkg.com/@tweenjs/tween.js@25.0.0/dist/tween.umd.js", ok: true, file: "@tweenjs/tween.js/dist/tween.umd.js", requested: "25.0.0"},
		{url: "https://unpkg.com/@tweenjs/tween.js@18.6.4/dist/tween.umd.js", ok: true, file: "tween.js-18.6.4/dist/tween.umd.js", requested: "18.6.4"},
		{url: "https://unpkg.com/@tweenjs/tween.js@^18/dist/tween.umd.js", ok: true, file: "tween.js-18.6.4/dist/tween.umd.js", served: "18.6.4", requested: "^18"},
		{url: "https://cdn.jsdelivr.net/npm/gsap@3.12/dist/gsap.min.js", ok: true, file: "gsap/dist/gsap.min.js", served: "3.15.0", requested: "3.12", sub: true},
		{url: "https://unpkg.com/stats.js@0.17.0/build/stats.min.js", ok: true, file: "stats.js/build/stats.min.js", served: "1.0.0", requested: "0.17.0", sub: true},
		{url: "https://unpkg.com/iwer/build/iwer.min.js", ok: true, file: "iwer/build/iwer.min.js"},
		{url: "https://unpkg.com/@iwer/sem", ok: true, file: "@iwer/sem/lib/src/index.js"},
		{url: "https://cdn.jsdelivr.net/npm/xrblocks@0.21.1/build/xrblocks.js", ok: true, file: "xrblocks/build/xrblocks.js", requested: "0.21.1"},
		{url: "https://unpkg.com/simplex-noise@2.4.0", ok: true, file: "simplex-noise-2.4.0/simplex-noise.js", requested: "2.4.0"},
		{url: "https://unpkg.com/vue@3", ok: true, err: ErrNotVendored},
		// react is installed (a dependency of @iwer/devui) at 19.x only.
		{url: "https://unpkg.com/react@18/umd/react.production.min.js", ok: true, err: ErrNoFile},
		// non-JavaScript files keep their types
		{url: "https://cdn.jsdelivr.net/npm/three@0.160.0/examples/jsm/libs/draco/draco_decoder.wasm", ok: true, requested: "0.160.0", file: "three-0.160.0/examples/jsm/libs/draco/draco_decoder.wasm", ctype: "application/wasm"},
		{url: "https://unpkg.com/three@0.160.0/examples/fonts/helvetiker_regular.typeface.json", ok: true, file: "three-0.160.0/examples/fonts/helvetiker_regular.typeface.json", requested: "0.160.0", ctype: "application/json"},
		{url: "https://unpkg.com/lil-gui@0.21.0/dist/lil-gui.css", ok: true, file: "lil-gui/dist/lil-gui.css", requested: "0.21.0", ctype: "text/css"},
		// not a CDN URL at all
		{url: "https://example.com/three.module.js", ok: false},
		{url: "https://worldprobe.test/index.html", ok: false},
		{url: "file:///etc/passwd", ok: false},
		{url: "data:text/javascript,export default 1", ok: false},
		{url: "https://unpkg.com/", ok: false},
	})
}

func TestVersionForms(t *testing.T) {
	runCases(t, []resolveCase{
		{url: "https://cdn.jsdelivr.net/npm/three@r160/build/three.module.js", ok: true, file: "three-0.160.0/build/three.module.js", requested: "0.160.0"},
		{url: "https://cdn.jsdelivr.net/npm/three@v0.160.0/build/three.module.js", ok: true, file: "three-0.160.0/build/three.module.js", requested: "0.160.0"},
		{url: "https://cdn.jsdelivr.net/npm/three@0.160/build/three.module.js", ok: true, file: "three-0.160.0/build/three.module.js", served: "0.160.0", requested: "0.160"},
		{url: "https://cdn.jsdelivr.net/npm/three@^0.160.0/build/three.module.js", ok: true, file: "three-0.160.0/build/three.module.js", requested: "^0.160.0"},
		{url: "https://cdn.jsdelivr.net/npm/three@%5E0.166.0/build/three.module.js", ok: true, file: "three-0.166.1/build/three.module.js", requested: "^0.166.0"},
		{url: "https://cdn.jsdelivr.net/npm/three@~0.170.0/build/three.module.js", ok: true, file: "three-0.170.0/build/three.module.js", requested: "~0.170.0"},
		{url: "https://cdn.jsdelivr.net/npm/three@>=0.150 <0.161/build/three.module.js", ok: true, file: "three-0.160.0/build/three.module.js", requested: ">=0.150 <0.161"},
		{url: "https://cdn.jsdelivr.net/npm/three@latest/build/three.module.js", ok: true, file: "three-0.187.0/build/three.module.js", requested: ""},
		{url: "https://cdn.jsdelivr.net/npm/three@0.184/build/three.module.js", ok: true, file: "three/build/three.module.js", served: "0.184.0", requested: "0.184"},
		{url: "https://cdn.jsdelivr.net/npm/three@0.x/build/three.module.js", ok: true, file: "three-0.187.0/build/three.module.js", requested: "0.x"},
		// Range matched by no vendored version: nearest to its lower bound.
		{url: "https://cdn.jsdelivr.net/npm/three@0.151/build/three.module.js", ok: true, file: "three-0.149.0/build/three.module.js", requested: "0.151", sub: true},
		{url: "https://cdn.jsdelivr.net/npm/three@0.155.0/build/three.module.js", ok: true, file: "three-0.160.0/build/three.module.js", requested: "0.155.0", sub: true},
		// 0.163.0 is 3 minors from both 0.160.0 and 0.166.1: a tie goes to
		// the older. 0.164.0 is nearer to 0.166.1.
		{url: "https://cdn.jsdelivr.net/npm/three@0.163.0/build/three.module.js", ok: true, file: "three-0.160.0/build/three.module.js", requested: "0.163.0", sub: true},
		{url: "https://cdn.jsdelivr.net/npm/three@0.164.0/build/three.module.js", ok: true, file: "three-0.166.1/build/three.module.js", requested: "0.164.0", sub: true},
		// Unknown ref or tag: the newest, flagged as substituted.
		{url: "https://cdn.jsdelivr.net/gh/mrdoob/three.js@4f8e5a1/build/three.module.js", ok: true, file: "three-0.187.0/build/three.module.js", requested: "4f8e5a1", sub: true},
	})
}

func TestNearestVersionForMissingFiles(t *testing.T) {
	runCases(t, []resolveCase{
		// examples/js/ is gone after 0.147.0 (here): 0.160.0 → 0.147.0.
		{url: "https://cdn.jsdelivr.net/npm/three@0.160.0/examples/js/controls/OrbitControls.js", ok: true,
			file: "three-0.147.0/examples/js/controls/OrbitControls.js", served: "0.147.0", requested: "0.160.0", sub: true},
		{url: "https://unpkg.com/three/examples/js/controls/OrbitControls.js", ok: true,
			file: "three-0.147.0/examples/js/controls/OrbitControls.js", served: "0.147.0", requested: "", sub: true},
		// build/three.min.js is gone after 0.160.0 (here): 0.170.0 → 0.160.0.
		{url: "https://unpkg.com/three@0.170.0/build/three.min.js", ok: true,
			file: "three-0.160.0/build/three.min.js", served: "0.160.0", requested: "0.170.0", sub: true},
		{url: "https://cdnjs.cloudflare.com/ajax/libs/three.js/r170/three.min.js", ok: true,
			file: "three-0.160.0/build/three.min.js", served: "0.160.0", requested: "0.170.0", sub: true},
		// Only new versions have the file: the nearest newer one.
		{url: "https://unpkg.com/three@0.128.0/build/three.module.min.js", ok: true,
			file: "three-0.160.0/build/three.module.min.js", served: "0.160.0", requested: "0.128.0", sub: true},
		// jsDelivr minifies on request: x.min.js of a version that has x.js
		// is that version's x.js, not another version's x.min.js.
		{url: "https://cdn.jsdelivr.net/npm/three@0.128.0/build/three.module.min.js", ok: true,
			file: "three-0.128.0/build/three.module.js", served: "0.128.0", requested: "0.128.0"},
		{url: "https://cdn.jsdelivr.net/npm/three@0.170.0/build/three.min.js", ok: true,
			file: "three-0.160.0/build/three.min.js", served: "0.160.0", requested: "0.170.0", sub: true},
		// three/addons/… is examples/jsm/…, even before the exports field said so.
		{url: "https://cdn.jsdelivr.net/npm/three@0.134.0/addons/controls/OrbitControls.js", ok: true,
			file: "three-0.134.0/examples/jsm/controls/OrbitControls.js", requested: "0.134.0"},
		// In no version at all.
		{url: "https://unpkg.com/three@0.160.0/examples/jsm/NoSuchThing.js", ok: true, err: ErrNoFile},
		{url: "https://unpkg.com/three@0.160.0/build/", ok: true, err: ErrNoFile},
	})
}

func TestPackageRoots(t *testing.T) {
	runCases(t, []resolveCase{
		// Classic CDNs serve the main file (unpkg: unpkg field first;
		// jsDelivr: jsdelivr field first).
		{url: "https://unpkg.com/three@0.128.0", ok: true, file: "three-0.128.0/build/three.js", requested: "0.128.0"},
		{url: "https://unpkg.com/three@0.160.0", ok: true, file: "three-0.160.0/build/three.js", requested: "0.160.0"},
		{url: "https://unpkg.com/three", ok: true, file: "three-0.187.0/build/three.cjs", requested: ""},
		{url: "https://cdn.jsdelivr.net/npm/three@0.160.0", ok: true, file: "three-0.160.0/build/three.js", requested: "0.160.0"},
		{url: "https://cdn.jsdelivr.net/npm/@preact/signals-core@1.14.5", ok: true, file: "@preact/signals-core/dist/signals-core.js", requested: "1.14.5"},
		{url: "https://unpkg.com/@preact/signals-core@1.14.5", ok: true, file: "@preact/signals-core/dist/signals-core.min.js", requested: "1.14.5"},
		// Module CDNs serve the ES module, through a stub at the root URL.
		{url: "https://esm.sh/three@0.160.0", ok: true, esm: true, stub: true, file: "three-0.160.0/build/three.module.js", requested: "0.160.0"},
		{url: "https://esm.sh/three", ok: true, esm: true, stub: true, file: "three-0.187.0/build/three.module.js", requested: ""},
		{url: "https://cdn.jsdelivr.net/npm/three@0.160/+esm", ok: true, esm: true, stub: true, file: "three-0.160.0/build/three.module.js", requested: "0.160"},
		{url: "https://unpkg.com/three@0.160.0?module", ok: true, esm: true, stub: true, file: "three-0.160.0/build/three.module.js", requested: "0.160.0"},
		{url: "https://cdn.skypack.dev/three@0.134.0", ok: true, esm: true, stub: true, file: "three-0.134.0/build/three.module.js", requested: "0.134.0"},
		{url: "https://jspm.dev/three@0.166.1", ok: true, esm: true, stub: true, file: "three-0.166.1/build/three.module.js", requested: "0.166.1"},
		{url: "https://esm.run/three@0.170.0", ok: true, esm: true, stub: true, file: "three-0.170.0/build/three.module.js", requested: "0.170.0"},
		{url: "https://esm.sh/cannon-es@0.20.0", ok: true, esm: true, stub: true, file: "cannon-es/dist/cannon-es.js", requested: "0.20.0"},
		{url: "https://esm.sh/@dimforge/rapier3d-compat", ok: true, esm: true, stub: true, file: "@dimforge/rapier3d-compat/dist/rapier.mjs", body: "export { default } from"},
		{url: "https://esm.sh/lil-gui", ok: true, esm: true, stub: true, file: "lil-gui/dist/lil-gui.esm.js", body: "export { default } from"},
		{url: "https://esm.sh/dat.gui", ok: true, esm: true, stub: true, file: "dat.gui/build/dat.gui.module.js"},
		{url: "https://esm.sh/gsap", ok: true, esm: true, stub: true, file: "gsap/index.js"},
		{url: "https://esm.sh/gsap/ScrollTrigger", ok: true, esm: true, stub: true, file: "gsap/ScrollTrigger.js"},
		{url: "https://esm.sh/simplex-noise", ok: true, esm: true, stub: true, file: "simplex-noise/dist/esm/simplex-noise.js", notBody: "default"},
		{url: "https://esm.sh/@tweenjs/tween.js", ok: true, esm: true, stub: true, file: "@tweenjs/tween.js/dist/tween.esm.js"},
		{url: "https://esm.sh/iwer", ok: true, esm: true, stub: true, file: "iwer/lib/index.js"},
		{url: "https://esm.sh/@iwer/sem", ok: true, esm: true, stub: true, file: "@iwer/sem/lib/src/index.js"},
		{url: "https://esm.sh/xrblocks", ok: true, esm: true, stub: true, file: "xrblocks/build/xrblocks.js"},
		{url: "https://esm.sh/gh/mrdoob/three.js@r160/examples/jsm/controls/OrbitControls.js", ok: true, esm: true, stub: true,
			file: "three-0.160.0/examples/jsm/controls/OrbitControls.js", requested: "0.160.0"},
		// esm.sh build-target paths and Skypack's pinned paths.
		{url: "https://esm.sh/v135/three@0.160.0/es2022/three.mjs", ok: true, esm: true, stub: true, file: "three-0.160.0/build/three.module.js", requested: "0.160.0"},
		{url: "https://cdn.skypack.dev/-/three@v0.134.0-dLPTyDAYt6rc6aB18fLm/dist=es2019,mode=imports/optimized/three.js", ok: true, esm: true, stub: true, file: "three-0.134.0/build/three.module.js", requested: "0.134.0"},
	})
}

func TestTraversal(t *testing.T) {
	runCases(t, []resolveCase{
		{url: "https://unpkg.com/three@0.160.0/../../../../etc/passwd", ok: true, err: ErrBadPath},
		{url: "https://unpkg.com/three@0.160.0/build/%2e%2e/%2e%2e/package.json", ok: true, err: ErrBadPath},
		{url: "https://unpkg.com/three@0.160.0/build/..%2f..%2f..%2fxrblocks/package.json", ok: true, err: ErrBadPath},
		{url: "https://cdnjs.cloudflare.com/ajax/libs/three.js/r128/..%2F..%2F..%2Fstats.js%2Fpackage.json", ok: true, err: ErrBadPath},
		{url: "https://esm.sh/three@0.160.0/build/..%5C..%5Cpackage.json", ok: true, err: ErrBadPath},
		{url: "https://unpkg.com/../three/package.json", ok: true, err: ErrBadPath},
		{url: "https://unpkg.com/three@0.160.0/build/three.module.js%00.png", ok: true, err: ErrBadPath},
		{url: "https://cdn.jsdelivr.net/gh/mrdoob/three.js@r128/../../package.json", ok: true, err: ErrBadPath},
		// An alias folder name is not a package name.
		{url: "https://unpkg.com/three-0.128.0/build/three.js", ok: true, err: ErrNotVendored},
		// "." segments are harmless and cleaned.
		{url: "https://unpkg.com/three@0.160.0/./build/./three.module.js", ok: true, file: "three-0.160.0/build/three.module.js", requested: "0.160.0"},
	})
}

// Bare-specifier rewriting: exact assertions on the rewritten import lines.
func TestBareSpecifierRewriting(t *testing.T) {
	const orbitImport = "\tMathUtils\n} from '%s';\n"
	line := func(u string) string { return strings.Replace(orbitImport, "%s", u, 1) }
	runCases(t, []resolveCase{
		{url: "https://esm.sh/three@0.160.0/examples/jsm/controls/OrbitControls.js", ok: true, esm: true, requested: "0.160.0",
			file: "three-0.160.0/examples/jsm/controls/OrbitControls.js",
			body: line("https://esm.sh/three@0.160.0/build/three.module.js"), notBody: "from 'three'"},
		{url: "https://cdn.jsdelivr.net/npm/three@0.160.0/examples/jsm/controls/OrbitControls.js/+esm", ok: true, esm: true, requested: "0.160.0",
			file: "three-0.160.0/examples/jsm/controls/OrbitControls.js",
			body: line("https://cdn.jsdelivr.net/npm/three@0.160.0/build/three.module.js/+esm")},
		{url: "https://unpkg.com/three@0.160.0/examples/jsm/controls/OrbitControls.js?module", ok: true, esm: true, requested: "0.160.0",
			file: "three-0.160.0/examples/jsm/controls/OrbitControls.js",
			body: line("https://unpkg.com/three@0.160.0/build/three.module.js?module")},
		{url: "https://ga.jspm.io/npm:three@0.160.0/examples/jsm/controls/OrbitControls.js", ok: true, esm: true, requested: "0.160.0",
			file: "three-0.160.0/examples/jsm/controls/OrbitControls.js",
			body: line("https://ga.jspm.io/npm:three@0.160.0/build/three.module.js")},
		{url: "https://cdn.skypack.dev/three@0.160.0/examples/jsm/controls/OrbitControls.js", ok: true, esm: true, requested: "0.160.0",
			file: "three-0.160.0/examples/jsm/controls/OrbitControls.js",
			body: line("https://cdn.skypack.dev/three@0.160.0/build/three.module.js")},
		// Relative imports are left alone: the module lives at its canonical URL.
		{url: "https://esm.sh/three@0.160.0/examples/jsm/postprocessing/EffectComposer.js", ok: true, esm: true, requested: "0.160.0",
			body: "import { ShaderPass } from './ShaderPass.js';"},
		// three/webgpu and three/tsl resolve through the exports field.
		{url: "https://esm.sh/three@0.187.0/examples/jsm/helpers/TextureHelperGPU.js", ok: true, esm: true, requested: "0.187.0",
			body: "from 'https://esm.sh/three@0.187.0/build/three.tsl.js';"},
		// Another package's bare import gets the version its package.json asks
		// for (xrblocks: three ^0.184.0) and three/addons/ maps to examples/jsm/.
		{url: "https://esm.sh/xrblocks@0.21.1/build/xrblocks.js", ok: true, esm: true, requested: "0.21.1",
			body: "import 'https://esm.sh/three@0.184.0/examples/jsm/loaders/GLTFLoader.js';\n"},
		// Dynamic import() with a string literal is rewritten too; packages
		// that are not vendored still point at the CDN (and will 404 there).
		{url: "https://esm.sh/xrblocks@0.21.1/build/internal/entry.js", ok: true, esm: true, requested: "0.21.1",
			body: "import('https://esm.sh/@sparkjsdev/spark"},
		// A non-canonical URL of a module gets a stub, not the rewritten module.
		{url: "https://esm.sh/three@0.160/examples/jsm/controls/OrbitControls.js", ok: true, esm: true, stub: true, requested: "0.160",
			file: "three-0.160.0/examples/jsm/controls/OrbitControls.js"},
		{url: "https://esm.sh/three@0.150.0/examples/jsm/controls/OrbitControls.js", ok: true, esm: true, stub: true, requested: "0.150.0", sub: true,
			file: "three-0.149.0/examples/jsm/controls/OrbitControls.js"},
		// esm.sh ?deps pins a dependency; * leaves bare imports to the page's import map.
		{url: "https://esm.sh/xrblocks@0.21.1/build/xrblocks.js?deps=three@0.187.0", ok: true, esm: true, requested: "0.21.1",
			body: "import 'https://esm.sh/three@0.187.0/examples/jsm/loaders/GLTFLoader.js?deps=three@0.187.0';\n"},
		{url: "https://esm.sh/three@0.160.0/examples/jsm/controls/OrbitControls.js?external=*", ok: true, esm: true, requested: "0.160.0",
			notBody: "https://"},
		{url: "https://esm.sh/*three@0.160.0/examples/jsm/controls/OrbitControls.js", ok: true, esm: true, stub: true, requested: "0.160.0",
			body: "?external=*"},
		// Plain unpkg/jsDelivr paths are served exactly as published.
		{url: "https://unpkg.com/three@0.160.0/examples/jsm/controls/OrbitControls.js", ok: true, requested: "0.160.0",
			file: "three-0.160.0/examples/jsm/controls/OrbitControls.js"},
		// Non-JavaScript files on module CDNs are served as they are.
		{url: "https://esm.sh/three@0.160.0/examples/jsm/libs/draco/draco_decoder.wasm", ok: true, esm: true, requested: "0.160.0",
			file: "three-0.160.0/examples/jsm/libs/draco/draco_decoder.wasm", ctype: "application/wasm"},
	})
}

func TestCommonJSOnModuleCDN(t *testing.T) {
	runCases(t, []resolveCase{
		{url: "https://esm.sh/stats.js@1.0.0/src/Stats.js", ok: true, esm: true, requested: "1.0.0",
			body: "export default (__cjs && __cjs.__esModule"},
		{url: "https://esm.sh/three@0.128.0/build/three.js", ok: true, esm: true, requested: "0.128.0",
			body: "as Scene"},
		{url: "https://esm.sh/stats.js", ok: true, esm: true, stub: true, body: "export { default } from"},
	})
}

func TestResultBodiesAreStable(t *testing.T) {
	r := testResolver(t)
	const u = "https://esm.sh/three@0.160.0/examples/jsm/controls/OrbitControls.js"
	a, _, err := r.Resolve(u)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, _, err := r.Resolve(u)
			if err != nil || string(b.Body) != string(a.Body) {
				t.Errorf("concurrent Resolve differs (err %v)", err)
			}
		}()
	}
	wg.Wait()
	src, err := os.ReadFile(a.File)
	if err != nil {
		t.Fatal(err)
	}
	// Only the specifier changed.
	if got, want := strings.Replace(string(a.Body), "'https://esm.sh/three@0.160.0/build/three.module.js'", "'three'", 1), string(src); got != want {
		t.Errorf("rewritten body differs from the file in more than the specifier")
	}
}

func TestVersions(t *testing.T) {
	r := testResolver(t)
	want := []string{"0.128.0", "0.134.0", "0.147.0", "0.149.0", "0.160.0", "0.166.1", "0.170.0", "0.184.0", "0.187.0"}
	if got := r.Versions("three"); !slices.Equal(got, want) {
		t.Errorf("Versions(three) = %v, want %v", got, want)
	}
	if got := r.Versions("simplex-noise"); !slices.Equal(got, []string{"2.4.0", "4.0.3"}) {
		t.Errorf("Versions(simplex-noise) = %v", got)
	}
	if got := r.Versions("no-such-package"); got != nil {
		t.Errorf("Versions(no-such-package) = %v, want nil", got)
	}
	for _, p := range []string{"cannon-es", "@dimforge/rapier3d-compat", "lil-gui", "dat.gui", "@tweenjs/tween.js", "gsap", "stats.js", "iwer", "@iwer/sem", "@iwer/devui", "xrblocks", "lit", "@pmndrs/uikit", "@preact/signals-core", "three-pathfinding"} {
		if len(r.Versions(p)) == 0 {
			t.Errorf("package %s is not installed", p)
		}
	}
	if !slices.Contains(r.Packages(), "three") {
		t.Errorf("Packages() lacks three")
	}
}

func TestIsWebFont(t *testing.T) {
	for u, want := range map[string]bool{
		"https://fonts.googleapis.com/css2?family=Roboto&display=swap":         true,
		"https://fonts.gstatic.com/s/roboto/v30/KFOmCnqEu92Fr1Mu4mxK.woff2":    true,
		"https://use.typekit.net/abc1234.css":                                  true,
		"https://cdn.jsdelivr.net/npm/@fontsource/inter@5.0.0/files/x.woff2":   true,
		"https://cdnjs.cloudflare.com/ajax/libs/font-awesome/6.4.0/x/fa.ttf":   true,
		"https://unpkg.com/some-font@1.0.0/Font.OTF":                           true,
		"https://cdn.jsdelivr.net/npm/three@0.160.0/build/three.module.js":     false,
		"https://example.com/font.woff2":                                       false,
		"https://cdnjs.cloudflare.com/ajax/libs/font-awesome/6.4.0/css/a.css":  false,
		"not a url at all %%%":                                                 false,
		"ftp://fonts.googleapis.com/css":                                       false,
		"https://fonts.googleapis.com.evil.example/css2?family=Roboto":         false,
		"https://threejs.org/examples/fonts/ttf/kenpixel.ttf":                  true,
		"https://raw.githubusercontent.com/mrdoob/three.js/dev/examples/x.otf": true,
	} {
		if got := IsWebFont(u); got != want {
			t.Errorf("IsWebFont(%q) = %v, want %v", u, got, want)
		}
	}
}

func TestNewErrors(t *testing.T) {
	if _, err := New(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("New on a missing folder: no error")
	}
	empty := t.TempDir()
	if _, err := New(empty); err == nil || !strings.Contains(err.Error(), "no packages") {
		t.Errorf("New on an empty folder: err = %v", err)
	}
}

// A tiny node_modules built in the test: aliases, scopes, broken folders.
func TestScanSynthetic(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, content string) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("three-0.100.0/package.json", `{"name":"three","version":"0.100.0","main":"build/three.js"}`)
	write("three-0.100.0/build/three.js", "var THREE;")
	write("three/package.json", `{"name":"three","version":"0.120.0","module":"build/three.module.js"}`)
	write("three/build/three.module.js", "export const REVISION = '120';")
	write("@scope/lib/package.json", `{"name":"@scope/lib","version":"1.2.3","type":"module","exports":{".":{"types":"./x.d.ts","import":"./esm/index.js","require":"./cjs/index.js"},"./feature/*":"./esm/features/*.js"}}`)
	write("@scope/lib/esm/index.js", "import t from 'three'; export { t }; export default 1;")
	write("@scope/lib/esm/features/a.js", "export const a = 1;")
	write("broken/package.json", `{not json`)
	write("noversion/package.json", `{"name":"noversion"}`)
	write(".bin/package.json", `{"name":"bin","version":"1.0.0"}`)
	if err := os.Symlink("/etc", filepath.Join(dir, "three", "etc")); err != nil {
		t.Fatal(err)
	}
	r, err := New(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Packages(); !slices.Equal(got, []string{"@scope/lib", "three"}) {
		t.Errorf("Packages() = %v", got)
	}
	if got := r.Versions("three"); !slices.Equal(got, []string{"0.100.0", "0.120.0"}) {
		t.Errorf("Versions(three) = %v", got)
	}
	for _, c := range []resolveCase{
		{url: "https://unpkg.com/three@0.100.0", ok: true, file: "three-0.100.0/build/three.js", requested: "0.100.0"},
		{url: "https://unpkg.com/three@0.110.0/build/three.js", ok: true, file: "three-0.100.0/build/three.js", requested: "0.110.0", sub: true},
		{url: "https://unpkg.com/three@0.110.0/build/three.module.js", ok: true, file: "three/build/three.module.js", requested: "0.110.0", sub: true},
		{url: "https://unpkg.com/three/etc/passwd", ok: true, err: ErrNoFile},
		{url: "https://esm.sh/@scope/lib@1.2.3/feature/a", ok: true, esm: true, stub: true, file: "@scope/lib/esm/features/a.js", requested: "1.2.3"},
		{url: "https://esm.sh/@scope/lib@1", ok: true, esm: true, stub: true, file: "@scope/lib/esm/index.js", requested: "1", body: "export { default }"},
		{url: "https://esm.sh/@scope/lib@1.2.3/esm/index.js", ok: true, esm: true, requested: "1.2.3",
			body: "import t from 'https://esm.sh/three@0.120.0/build/three.module.js';"},
		{url: "https://unpkg.com/broken", ok: true, err: ErrNotVendored},
	} {
		t.Run(c.url, func(t *testing.T) { c.check(t, r) })
	}
}
