package resolve

import (
	"errors"
	"fmt"
	"net/url"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Errors returned (wrapped, with the URL as context) by Resolve for URLs
// on a known CDN that cannot be served. Test them with errors.Is.
var (
	// ErrNotVendored means the URL names a package (or cdnjs library, or
	// GitHub repository) of which no version is installed.
	ErrNotVendored = errors.New("package not vendored")
	// ErrNoFile means no installed version of the package has the file.
	ErrNoFile = errors.New("file not in any vendored version")
	// ErrBadPath means the URL path is malformed or tries to leave the
	// package folder (".." segments, backslashes, NUL bytes).
	ErrBadPath = errors.New("bad path")
)

// Resolver maps CDN URLs to files in web/node_modules. It is safe for
// concurrent use. Create one with New.
type Resolver struct {
	cfg  *config
	root string
	pkgs map[string][]*pkgVersion // npm name → versions, oldest first

	mu       sync.Mutex
	analyses map[string]*analysis // absolute file → parse result
	bodies   map[string][]byte    // rewrite cache; nil value = unchanged
}

// Result says what to serve for a resolved URL.
type Result struct {
	// File is the absolute path of the file to serve (for a stub module,
	// the file the stub re-exports).
	File string
	// ContentType comes from File's extension: "text/javascript" for
	// .js/.mjs/.cjs, "application/wasm" for .wasm, and so on.
	ContentType string
	// Package is the npm package name, e.g. "three".
	Package string
	// Requested is the version the URL asked for, normalised: "r128"
	// becomes "0.128.0" and "v0.160.0" "0.160.0"; ranges and tags are
	// kept as written ("0.160", "^0.160.0"); "" for no version or latest.
	Requested string
	// Served is the exact version whose file is served.
	Served string
	// Substituted is true when Served is not the version the CDN would
	// have served: the requested version is not vendored, or it (or the
	// newest version matching the range) lacks the file and another
	// version's file is served instead (the nearest-version rule).
	Substituted bool
	// Body, when non-nil, is the content to serve instead of File's: an ES
	// module whose bare import specifiers were rewritten, a re-export stub,
	// or a CommonJS file wrapped as a module. When nil, serve File as is.
	// Body may be shared with other Results: do not modify it.
	Body []byte
	// ESM is true when the URL was served in ES-module mode (esm.sh,
	// skypack, jspm, jsdelivr /+esm, unpkg ?module).
	ESM bool
	// Canonical is, in ES-module mode, the URL on which the module
	// actually lives (stubs re-export it; rewritten imports point at such
	// URLs). Empty otherwise.
	Canonical string
	// Note is a human-readable remark for logs, e.g. why a module was not
	// rewritten or which bare imports name packages that are not vendored.
	Note string
}

// New scans nodeModules (normally web/node_modules) and returns a Resolver
// for the packages installed there. Each top-level folder's package.json
// gives the package name and version, so npm aliases such as
// "three-0.128.0": "npm:three@0.128.0" count as package three 0.128.0.
func New(nodeModules string) (*Resolver, error) {
	cfg, err := loadConfig()
	if err != nil {
		return nil, err
	}
	root, err := filepath.Abs(nodeModules)
	if err != nil {
		return nil, fmt.Errorf("resolve: %w", err)
	}
	if root, err = filepath.EvalSymlinks(root); err != nil {
		return nil, fmt.Errorf("resolve: node_modules: %w", err)
	}
	pkgs, err := scanPackages(root)
	if err != nil {
		return nil, err
	}
	if len(pkgs) == 0 {
		return nil, fmt.Errorf("resolve: no packages installed in %s (run npm ci in web/)", root)
	}
	return &Resolver{
		cfg: cfg, root: root, pkgs: pkgs,
		analyses: map[string]*analysis{},
		bodies:   map[string][]byte{},
	}, nil
}

// Versions returns the installed versions of an npm package, oldest
// first, or nil if none is installed.
func (r *Resolver) Versions(pkg string) []string {
	var out []string
	for _, pv := range r.pkgs[pkg] {
		out = append(out, pv.raw)
	}
	return out
}

// Packages returns the names of all installed packages, sorted.
func (r *Resolver) Packages() []string {
	out := make([]string, 0, len(r.pkgs))
	for n := range r.pkgs {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// request is a CDN URL taken apart by a route.
type request struct {
	u       *url.URL
	route   *routeConfig
	esm     bool
	pkg     string // npm name
	verText string // version text from the URL; "" if none
	path    string // path inside the package, cleaned; "" for the package itself
	via     string // "npm", "cdnjs" or "github": how path maps into the package
	pc      packageConfig
	opts    esmOptions
}

// esmOptions are esm.sh's dependency options, kept on canonical URLs so
// that a whole module graph is served with them.
type esmOptions struct {
	externalAll bool              // "*" prefix: leave every bare import alone
	external    map[string]bool   // ?external=a,b
	deps        map[string]string // ?deps=a@1,b@2
}

func (o esmOptions) empty() bool {
	return !o.externalAll && len(o.external) == 0 && len(o.deps) == 0
}

// query encodes the options as the query string of a canonical URL.
func (o esmOptions) query() string {
	var parts []string
	if len(o.deps) > 0 {
		var ds []string
		for k, v := range o.deps {
			ds = append(ds, k+"@"+v)
		}
		sort.Strings(ds)
		parts = append(parts, "deps="+strings.Join(ds, ","))
	}
	if o.externalAll {
		parts = append(parts, "external=*")
	} else if len(o.external) > 0 {
		var es []string
		for k := range o.external {
			es = append(es, k)
		}
		sort.Strings(es)
		parts = append(parts, "external="+strings.Join(es, ","))
	}
	return strings.Join(parts, "&")
}

// Resolve maps a URL to a vendored file. ok is false when the URL is not
// on a CDN host of cdn.yaml or matches none of its routes; the caller
// handles such URLs itself. When ok is true and err is not nil the URL is
// a CDN URL that cannot be served offline (err wraps ErrNotVendored,
// ErrNoFile or ErrBadPath) and the caller should answer 404.
//
// XR Blocks' simulator rooms (jsDelivr's gh/xrblocks/assets route) are
// answered with worldprobe's own room (SimulatorRoomPackage; see
// xrblocks.go), whatever the room.
func (r *Resolver) Resolve(rawURL string) (Result, bool, error) {
	if u, err := url.Parse(rawURL); err == nil {
		if res, ok, err := simulatorAsset(u); ok {
			return res, ok, err
		}
	}
	req, ok, err := r.parseURL(rawURL)
	if !ok || err != nil {
		return Result{}, ok, err
	}
	find := r.finder(req)
	pv, rel, requested, substituted, err := r.pick(req.pkg, req.verText, req.pc, find)
	if err != nil {
		return Result{Package: req.pkg, Requested: requested}, true, fmt.Errorf("resolve %s: %w", rawURL, err)
	}
	abs, _ := pv.file(rel)
	res := Result{
		File:        abs,
		ContentType: contentType(rel),
		Package:     pv.name,
		Requested:   requested,
		Served:      pv.raw,
		Substituted: substituted,
		ESM:         req.esm,
	}
	if !req.esm || !isJS(rel) {
		return res, true, nil
	}
	res.Canonical = r.canonicalURL(req.route, pv.name, pv.raw, rel, req.opts)
	if !sameURL(req.u, res.Canonical) {
		a, wrap, err := r.moduleInfo(pv, rel, abs)
		if err != nil {
			return res, true, fmt.Errorf("resolve %s: %w", rawURL, err)
		}
		res.Body = stubModule(res.Canonical, wrap || (a.err == nil && a.hasDefault))
		res.ContentType = "text/javascript"
		return res, true, nil
	}
	body, note, err := r.moduleBody(req, pv, rel, abs)
	if err != nil {
		return res, true, fmt.Errorf("resolve %s: %w", rawURL, err)
	}
	res.Body, res.Note = body, note
	return res, true, nil
}

// parseURL matches a URL against the routes of its host.
func (r *Resolver) parseURL(rawURL string) (*request, bool, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") {
		return nil, false, nil
	}
	h := r.cfg.byHost[strings.ToLower(u.Hostname())]
	if h == nil {
		return nil, false, nil
	}
	for i := range h.Routes {
		rt := &h.Routes[i]
		p := u.Path
		esm := rt.Mode == "esm"
		if rt.ESMSuffix != "" && strings.HasSuffix(p, rt.ESMSuffix) {
			p = strings.TrimSuffix(p, rt.ESMSuffix)
			if p == "" {
				p = "/"
			}
			esm = true
		}
		if rt.ESMQuery != "" && u.Query().Has(rt.ESMQuery) {
			esm = true
		}
		m := rt.re.FindStringSubmatch(p)
		if m == nil {
			continue
		}
		req := &request{u: u, route: rt, esm: esm, via: "npm"}
		g := func(name string) string {
			if i := rt.re.SubexpIndex(name); i >= 0 {
				return m[i]
			}
			return ""
		}
		filePath := g("path")
		switch {
		case rt.Package != "":
			req.pkg = rt.Package
			req.verText = g("ver")
		case g("spec") != "":
			spec := g("spec")
			if strings.HasPrefix(spec, "*") && esm {
				spec = spec[1:]
				req.opts.externalAll = true
			}
			name, ver, sub, ok := splitSpec(spec)
			if !ok {
				return nil, true, fmt.Errorf("resolve %s: %w: package name", rawURL, ErrBadPath)
			}
			req.pkg, req.verText, filePath = name, ver, sub
		case g("pkg") != "":
			req.pkg, req.verText = g("pkg"), g("ver")
		case g("lib") != "":
			name, found := r.cfg.byCDNJS[g("lib")]
			if !found {
				return nil, true, fmt.Errorf("resolve %s: %w: cdnjs library %q", rawURL, ErrNotVendored, g("lib"))
			}
			req.pkg, req.verText, req.via = name, g("ver"), "cdnjs"
		case g("repo") != "":
			name, found := r.cfg.byRepo[strings.ToLower(g("repo"))]
			if !found {
				return nil, true, fmt.Errorf("resolve %s: %w: GitHub repository %q", rawURL, ErrNotVendored, g("repo"))
			}
			req.pkg, req.verText, req.via = name, g("ver"), "github"
		}
		req.pc = r.cfg.Packages[req.pkg]
		if req.path, err = cleanRel(filePath); err != nil {
			return nil, true, fmt.Errorf("resolve %s: %w", rawURL, err)
		}
		if esm {
			q := u.Query()
			if ext := q.Get("external"); ext != "" {
				for _, e := range strings.Split(ext, ",") {
					if e == "*" {
						req.opts.externalAll = true
					} else if e != "" {
						if req.opts.external == nil {
							req.opts.external = map[string]bool{}
						}
						req.opts.external[e] = true
					}
				}
			}
			if deps := q.Get("deps"); deps != "" {
				for _, d := range strings.Split(deps, ",") {
					name, ver, _ := splitBare(d)
					if name != "" && ver != "" {
						if req.opts.deps == nil {
							req.opts.deps = map[string]string{}
						}
						req.opts.deps[name] = ver
					}
				}
			}
		}
		return req, true, nil
	}
	return nil, false, nil
}

var pkgNameRE = regexp.MustCompile(`^(?:@[a-z0-9][a-z0-9._~-]*/)?[a-z0-9._~-][a-z0-9._~-]*$`)

// splitSpec splits "name@ver/path" or "@scope/name@ver/path".
func splitSpec(spec string) (name, ver, rest string, ok bool) {
	s := spec
	scope := ""
	if strings.HasPrefix(s, "@") {
		i := strings.IndexByte(s, '/')
		if i < 0 {
			return "", "", "", false
		}
		scope, s = s[:i+1], s[i+1:]
	}
	first, rest, _ := strings.Cut(s, "/")
	name, ver, _ = strings.Cut(first, "@")
	name = scope + name
	if !pkgNameRE.MatchString(strings.ToLower(name)) || name == "." || name == ".." {
		return "", "", "", false
	}
	return name, ver, rest, true
}

// finder returns the function that finds the request's file in one
// version of its package, or reports that the version lacks it.
func (r *Resolver) finder(req *request) func(*pkgVersion) (string, bool) {
	rt := req.route
	if req.path == "" {
		if req.esm {
			return (*pkgVersion).esmEntry
		}
		return func(pv *pkgVersion) (string, bool) { return pv.fieldEntry(rt.Entry) }
	}
	p := req.path
	if rt.stripFile != nil {
		p = rt.stripFile.ReplaceAllString(p, "")
	}
	var cands []string
	switch req.via {
	case "cdnjs":
		if f, ok := req.pc.CDNJSFiles[p]; ok {
			cands = append(cands, f)
		}
		dirs := req.pc.CDNJSDirs
		if len(dirs) == 0 {
			dirs = []string{""}
		}
		for _, d := range dirs {
			cands = append(cands, d+p)
		}
	case "github":
		dirs := req.pc.GitHubDirs
		if len(dirs) == 0 {
			dirs = []string{""}
		}
		for _, d := range dirs {
			cands = append(cands, d+p)
		}
	default:
		cands = []string{p}
	}
	for i, c := range cands {
		cands[i] = applyAliases(c, req.pc.PathAliases)
	}
	if rt.Minify {
		// jsDelivr makes x.min.js from x.js on request: try that second.
		var withMin []string
		for _, c := range cands {
			withMin = append(withMin, c)
			for _, ext := range [...]string{".js", ".mjs", ".css"} {
				if strings.HasSuffix(c, ".min"+ext) {
					withMin = append(withMin, strings.TrimSuffix(c, ".min"+ext)+ext)
				}
			}
		}
		cands = withMin
	}
	entryAlias := false
	for _, ef := range rt.EntryFiles {
		if p == strings.ReplaceAll(ef, "{name}", unscoped(req.pkg)) {
			entryAlias = true
		}
	}
	return func(pv *pkgVersion) (string, bool) {
		for _, c := range cands {
			if req.esm {
				if rel, ok := pv.esmSubpath(c); ok {
					return rel, true
				}
			} else if rt.Probe {
				if rel, ok := pv.probe(c); ok {
					return rel, true
				}
			} else if pv.has(c) {
				return c, true
			}
		}
		if entryAlias {
			return pv.esmEntry()
		}
		return "", false
	}
}

// esmSubpath resolves "pkg/sub" as an ES-module CDN does: through the
// exports field, then as a file path with extension probing.
func (p *pkgVersion) esmSubpath(sub string) (string, bool) {
	if t, ok := resolveExports(p.exports, "./"+sub); ok {
		if rel, ok := p.probe(t); ok {
			return rel, true
		}
	}
	return p.probe(sub)
}

func applyAliases(p string, aliases map[string]string) string {
	best := ""
	for from := range aliases {
		if strings.HasPrefix(p, from) && len(from) > len(best) {
			best = from
		}
	}
	if best == "" {
		return p
	}
	return aliases[best] + strings.TrimPrefix(p, best)
}

func unscoped(name string) string {
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		return name[i+1:]
	}
	return name
}

var rVersionRE = regexp.MustCompile(`^[rR]([0-9]+)$`)

// pick chooses the version to serve from and the file in it: the version
// the CDN would serve if it has the file, else the nearest version that
// has it (see docs/resolve.md).
func (r *Resolver) pick(name, verText string, pc packageConfig, find func(*pkgVersion) (string, bool)) (pv *pkgVersion, rel, requested string, substituted bool, err error) {
	list := r.pkgs[name]
	if len(list) == 0 {
		return nil, "", verText, false, fmt.Errorf("%w: %s", ErrNotVendored, name)
	}
	newest := list[len(list)-1]
	var primary *pkgVersion
	var anchor version
	var rng *versionRange
	requested = verText

	exact := func(v version) {
		requested = v.String()
		anchor = v
		for _, c := range list {
			if c.ver.compare(v) == 0 {
				primary = c
			}
		}
	}
	tag, isTag := pc.Tags[verText]
	switch {
	case isTag && tag == "latest", verText == "" || r.cfg.isLatestTag(verText):
		requested, primary, anchor = "", newest, newest.ver
	case isTag:
		v, _ := parseVersion(tag)
		exact(v)
	case pc.RVersions && rVersionRE.MatchString(verText):
		n := rVersionRE.FindStringSubmatch(verText)[1]
		v, _ := parseVersion("0." + n + ".0")
		exact(v)
	default:
		if v, ok := parseVersion(verText); ok {
			exact(v)
			break
		}
		if vr, err := parseRange(verText); err == nil {
			rng = &vr
			for _, c := range list {
				if vr.match(c.ver) {
					primary = c // list is ascending: the last match is the highest
				}
			}
			switch lb, ok := vr.lowerBound(); {
			case primary != nil:
				anchor = primary.ver
			case ok:
				anchor = lb
			default:
				anchor = newest.ver
			}
			break
		}
		anchor = newest.ver // an unknown tag or ref: the newest is the best guess
	}
	if primary != nil {
		if rel, ok := find(primary); ok {
			return primary, rel, requested, false, nil
		}
	}
	// Fallbacks: versions matching the range (highest first), then the
	// rest by distance from the anchor, the older on a tie.
	cands := make([]*pkgVersion, 0, len(list))
	for _, c := range list {
		if c != primary {
			cands = append(cands, c)
		}
	}
	sort.SliceStable(cands, func(i, j int) bool {
		a, b := cands[i], cands[j]
		if rng != nil {
			ma, mb := rng.match(a.ver), rng.match(b.ver)
			if ma != mb {
				return ma
			}
			if ma {
				return a.ver.compare(b.ver) > 0
			}
		}
		return nearer(a.ver, b.ver, anchor)
	})
	for _, c := range cands {
		if rel, ok := find(c); ok {
			return c, rel, requested, true, nil
		}
	}
	return nil, "", requested, false, fmt.Errorf("%w: %s", ErrNoFile, name)
}

// canonicalURL fills a route's canonical template. An empty version or
// path drops its "@{ver}" or "/{path}" part.
func (r *Resolver) canonicalURL(rt *routeConfig, pkg, ver, rel string, opts esmOptions) string {
	t := rt.Canonical
	if ver == "" {
		t = strings.Replace(t, "@{ver}", "", 1)
	}
	if rel == "" {
		t = strings.Replace(t, "/{path}", "", 1)
	}
	s := strings.NewReplacer("{pkg}", pkg, "{ver}", ver, "{path}", rel).Replace(t)
	if !opts.empty() {
		if strings.Contains(s, "?") {
			s += "&" + opts.query()
		} else {
			s += "?" + opts.query()
		}
	}
	return s
}

// sameURL reports whether u names the canonical URL c (scheme ignored).
func sameURL(u *url.URL, c string) bool {
	cu, err := url.Parse(c)
	if err != nil {
		return false
	}
	if !strings.EqualFold(u.Host, cu.Host) || u.Path != cu.Path {
		return false
	}
	uq, cq := u.Query(), cu.Query()
	if len(uq) != len(cq) {
		return false
	}
	for k, cv := range cq {
		uv := uq[k]
		if len(uv) != 1 || len(cv) != 1 || uv[0] != cv[0] {
			return false
		}
	}
	return true
}

// moduleInfo returns the file's analysis and whether it is served wrapped
// as CommonJS.
func (r *Resolver) moduleInfo(pv *pkgVersion, rel, abs string) (*analysis, bool, error) {
	r.mu.Lock()
	a, ok := r.analyses[abs]
	r.mu.Unlock()
	if !ok {
		src, err := readFile(abs)
		if err != nil {
			return nil, false, err
		}
		a = analyze(src)
		r.mu.Lock()
		r.analyses[abs] = a
		r.mu.Unlock()
	}
	wrap := a.err == nil && !a.isModule && !pv.isESMSource(rel)
	return a, wrap, nil
}

// moduleBody returns the content of a module served at its canonical URL:
// nil when the file is served unchanged, else the file with its module
// specifiers rewritten, or wrapped if it is CommonJS.
func (r *Resolver) moduleBody(req *request, pv *pkgVersion, rel, abs string) ([]byte, string, error) {
	a, wrap, err := r.moduleInfo(pv, rel, abs)
	if err != nil {
		return nil, "", err
	}
	if a.err != nil {
		return nil, "served unchanged: " + a.err.Error(), nil
	}
	key := abs + "\x00" + req.route.Canonical + "\x00" + pv.raw + "\x00" + req.opts.query()
	r.mu.Lock()
	body, cached := r.bodies[key]
	note := r.bodies[key+"\x00note"]
	r.mu.Unlock()
	if cached {
		return body, string(note), nil
	}
	src, err := readFile(abs)
	if err != nil {
		return nil, "", err
	}
	var missing []string
	base, _ := url.Parse(r.canonicalURL(req.route, pv.name, pv.raw, rel, esmOptions{}))
	body = replaceSpecs(src, a.specs, func(spec string) string {
		if !isBare(spec) {
			// Relative imports resolve against the canonical URL by
			// themselves, except that the options in its query would be
			// lost: carry them over explicitly.
			if req.opts.empty() || strings.Contains(spec, ":") {
				return ""
			}
			ref, err := url.Parse(spec)
			if err != nil {
				return ""
			}
			return withQuery(base.ResolveReference(ref).String(), req.opts.query())
		}
		target, ok := r.bareTarget(req, pv, spec)
		if !ok {
			missing = append(missing, spec)
		}
		return target
	})
	if wrap {
		if body == nil {
			body = src
		}
		body = wrapCommonJS(body, pv.name+"/"+rel, a.cjsNames)
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		missing = slices.Compact(missing)
		note = []byte("bare imports of packages that are not vendored: " + strings.Join(missing, ", "))
	}
	r.mu.Lock()
	r.bodies[key] = body
	r.bodies[key+"\x00note"] = note
	r.mu.Unlock()
	return body, string(note), nil
}

func withQuery(u, q string) string {
	if q == "" {
		return u
	}
	if strings.Contains(u, "?") {
		return u + "&" + q
	}
	return u + "?" + q
}

// bareTarget returns the URL a bare specifier in a module of importer is
// rewritten to: the canonical URL, on the request's CDN, of the file the
// specifier names in the version chosen for it. That version is the
// importer's own for a self-import, else esm.sh's ?deps, else the highest
// vendored version matching the importer's package.json range, else the
// nearest. ok is false (and the URL still names the CDN) when the package
// or file is not vendored.
func (r *Resolver) bareTarget(req *request, importer *pkgVersion, spec string) (string, bool) {
	name, ver, sub := splitBare(spec)
	if req.opts.externalAll || req.opts.external[name] {
		return "", true
	}
	switch {
	case ver != "":
	case name == importer.name:
		ver = importer.raw
	case req.opts.deps[name] != "":
		ver = req.opts.deps[name]
	default:
		ver = importer.deps[name]
	}
	pc := r.cfg.Packages[name]
	sub = applyAliases(sub, pc.PathAliases)
	find := func(pv *pkgVersion) (string, bool) {
		if sub == "" {
			return pv.esmEntry()
		}
		return pv.esmSubpath(sub)
	}
	pv, rel, _, _, err := r.pick(name, ver, pc, find)
	if err != nil {
		if ver != "" {
			if _, ok := parseVersion(ver); !ok {
				ver = "" // a range does not fit the canonical template
			}
		}
		return r.canonicalURL(req.route, name, ver, sub, req.opts), false
	}
	return r.canonicalURL(req.route, pv.name, pv.raw, rel, req.opts), true
}

func isJS(rel string) bool {
	switch path.Ext(rel) {
	case ".js", ".mjs", ".cjs":
		return true
	}
	return false
}
