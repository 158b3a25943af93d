// Package resolve is worldprobe's offline module resolver: it maps the CDN
// URLs that model-written Three.js pages load (unpkg, jsDelivr, cdnjs,
// esm.sh, Skypack, jspm, threejs.org, raw GitHub) to files of the npm
// packages vendored in web/node_modules, so that the browser session can
// answer every such request without a network.
//
// The URL patterns of each CDN and the per-package quirks (cdnjs names and
// folders, GitHub repositories, three's "r128" versions and addons/ path)
// live in one data file, cdn.yaml, embedded in the binary. Which versions
// exist and which files each version has is read from node_modules itself,
// so adding a version is an npm change only.
//
// When the requested version is not vendored, or lacks the requested file
// (three dropped examples/js/ at r148 and build/three.min.js after r160), the
// nearest vendored version that has the file is served and the Result says
// so (Substituted).
//
// For CDNs that serve ES modules with rewritten imports (esm.sh, Skypack,
// jspm, jsDelivr's /+esm, unpkg's ?module), bare import specifiers such as
// 'three' or 'three/addons/controls/OrbitControls.js' are rewritten, using
// the JavaScript parser of github.com/tdewolff/parse/v2/js, to absolute URLs
// on the same CDN. Each module lives at one canonical URL; other URLs for it
// (package roots, ranges, substituted versions) get a small re-export stub,
// so a page ends up with one instance of each module.
//
// See docs/resolve.md for the data file format and the rules in full.
package resolve
