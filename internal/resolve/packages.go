package resolve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// pkgVersion is one installed package folder, e.g. node_modules/three-0.128.0.
type pkgVersion struct {
	name string
	ver  version
	raw  string // version as package.json writes it
	dir  string // absolute, symlinks evaluated

	main, module, browser, unpkg, jsdelivr string
	typ                                    string
	exports                                any // ordered JSON (see decodeOrdered); nil if absent
	deps                                   map[string]string
}

// manifest is the part of package.json read with encoding/json; exports is
// decoded separately because its key order matters.
type manifest struct {
	Name                 string            `json:"name"`
	Version              string            `json:"version"`
	Main                 string            `json:"main"`
	Module               string            `json:"module"`
	Browser              json.RawMessage   `json:"browser"`
	Unpkg                string            `json:"unpkg"`
	JSDelivr             string            `json:"jsdelivr"`
	Type                 string            `json:"type"`
	Exports              json.RawMessage   `json:"exports"`
	Dependencies         map[string]string `json:"dependencies"`
	PeerDependencies     map[string]string `json:"peerDependencies"`
	OptionalDependencies map[string]string `json:"optionalDependencies"`
}

// scanPackages reads every top-level package of a node_modules folder
// (including @scope/name folders and npm aliases such as three-0.128.0,
// whose package.json still says "three"). Nested node_modules folders are
// not read. Folders whose package.json is missing or unusable are skipped.
func scanPackages(nodeModules string) (map[string][]*pkgVersion, error) {
	entries, err := os.ReadDir(nodeModules)
	if err != nil {
		return nil, fmt.Errorf("resolve: read %s: %w", nodeModules, err)
	}
	var dirs []string
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || !isDirEntry(nodeModules, e) {
			continue
		}
		if strings.HasPrefix(name, "@") {
			sub, err := os.ReadDir(filepath.Join(nodeModules, name))
			if err != nil {
				return nil, fmt.Errorf("resolve: read scope %s: %w", name, err)
			}
			for _, s := range sub {
				if !strings.HasPrefix(s.Name(), ".") && isDirEntry(filepath.Join(nodeModules, name), s) {
					dirs = append(dirs, filepath.Join(nodeModules, name, s.Name()))
				}
			}
			continue
		}
		dirs = append(dirs, filepath.Join(nodeModules, name))
	}
	pkgs := map[string][]*pkgVersion{}
	for _, dir := range dirs {
		pv, err := readPackage(dir)
		if err != nil {
			continue
		}
		dup := false
		for _, o := range pkgs[pv.name] {
			if o.ver.compare(pv.ver) == 0 {
				dup = true
				break
			}
		}
		if !dup {
			pkgs[pv.name] = append(pkgs[pv.name], pv)
		}
	}
	for _, list := range pkgs {
		sort.Slice(list, func(i, j int) bool { return list[i].ver.compare(list[j].ver) < 0 })
	}
	return pkgs, nil
}

func isDirEntry(parent string, e os.DirEntry) bool {
	if e.IsDir() {
		return true
	}
	if e.Type()&os.ModeSymlink != 0 {
		st, err := os.Stat(filepath.Join(parent, e.Name()))
		return err == nil && st.IsDir()
	}
	return false
}

func readPackage(dir string) (*pkgVersion, error) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, fmt.Errorf("resolve: package folder %s: %w", dir, err)
	}
	data, err := os.ReadFile(filepath.Join(real, "package.json"))
	if err != nil {
		return nil, fmt.Errorf("resolve: package folder %s: %w", dir, err)
	}
	var m manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("resolve: %s/package.json: %w", dir, err)
	}
	v, ok := parseVersion(m.Version)
	if m.Name == "" || !ok {
		return nil, fmt.Errorf("resolve: %s/package.json: no usable name and version", dir)
	}
	pv := &pkgVersion{
		name: m.Name, ver: v, raw: m.Version, dir: real,
		main: m.Main, module: m.Module, unpkg: m.Unpkg, jsdelivr: m.JSDelivr, typ: m.Type,
		deps: map[string]string{},
	}
	var b string
	if json.Unmarshal(m.Browser, &b) == nil {
		pv.browser = b
	}
	if len(m.Exports) > 0 {
		ex, err := decodeOrdered(json.NewDecoder(bytes.NewReader(m.Exports)))
		if err != nil {
			return nil, fmt.Errorf("resolve: %s/package.json exports: %w", dir, err)
		}
		pv.exports = ex
	}
	for _, d := range []map[string]string{m.OptionalDependencies, m.PeerDependencies, m.Dependencies} {
		for k, r := range d {
			pv.deps[k] = r
		}
	}
	return pv, nil
}

// kv is one member of a JSON object, kept in document order.
type kv struct {
	key string
	val any
}

// decodeOrdered decodes one JSON value; objects become []kv (in order),
// arrays []any, strings string, anything else its encoding/json value.
func decodeOrdered(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			var obj []kv
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				key, _ := kt.(string)
				val, err := decodeOrdered(dec)
				if err != nil {
					return nil, err
				}
				obj = append(obj, kv{key, val})
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			if obj == nil {
				obj = []kv{}
			}
			return obj, nil
		case '[':
			arr := []any{}
			for dec.More() {
				val, err := decodeOrdered(dec)
				if err != nil {
					return nil, err
				}
				arr = append(arr, val)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return arr, nil
		}
		return nil, errors.New("unexpected delimiter")
	default:
		return tok, nil
	}
}

// esmConditions are the package.json "exports" conditions a browser
// ES-module CDN resolves with, in no particular order: the order of the
// keys in the exports object decides.
var esmConditions = map[string]bool{"browser": true, "import": true, "module": true, "default": true}

// resolveExports resolves subpath ("." or "./x") through a package's
// exports field. ok is false when exports does not export it.
func resolveExports(exports any, subpath string) (string, bool) {
	if exports == nil {
		return "", false
	}
	// A string, an array or an object of conditions is the "." export.
	if obj, isObj := exports.([]kv); !isObj || len(obj) == 0 || !strings.HasPrefix(obj[0].key, ".") {
		if subpath != "." {
			return "", false
		}
		return exportTarget(exports, "")
	}
	obj := exports.([]kv)
	for _, m := range obj {
		if m.key == subpath {
			return exportTarget(m.val, "")
		}
	}
	// Pattern ("./x/*") and folder ("./x/") keys: the longest prefix wins.
	best, bestLen, match := -1, -1, ""
	for i, m := range obj {
		if star := strings.IndexByte(m.key, '*'); star >= 0 {
			pre, suf := m.key[:star], m.key[star+1:]
			if strings.HasPrefix(subpath, pre) && strings.HasSuffix(subpath, suf) && len(subpath) >= len(pre)+len(suf) && len(pre) > bestLen {
				best, bestLen, match = i, len(pre), subpath[len(pre):len(subpath)-len(suf)]
			}
		} else if strings.HasSuffix(m.key, "/") && strings.HasPrefix(subpath, m.key) && len(m.key) > bestLen {
			best, bestLen, match = i, len(m.key), "\x00"+subpath[len(m.key):]
		}
	}
	if best < 0 {
		return "", false
	}
	if strings.HasPrefix(match, "\x00") { // folder mapping: append the rest
		t, ok := exportTarget(obj[best].val, "")
		if !ok || !strings.HasSuffix(t, "/") {
			return "", false
		}
		return t + match[1:], true
	}
	return exportTarget(obj[best].val, match)
}

func exportTarget(t any, star string) (string, bool) {
	switch t := t.(type) {
	case string:
		if !strings.HasPrefix(t, "./") {
			return "", false
		}
		return strings.ReplaceAll(t, "*", star), true
	case []any:
		for _, x := range t {
			if s, ok := exportTarget(x, star); ok {
				return s, true
			}
		}
	case []kv:
		for _, m := range t {
			if esmConditions[m.key] {
				if s, ok := exportTarget(m.val, star); ok {
					return s, true
				}
			}
		}
	}
	return "", false
}

// cleanRel turns a URL path inside a package into a clean relative path.
// It refuses ".." segments (even ones that would stay inside the package),
// backslashes and NUL bytes. "" stands for the package itself.
func cleanRel(p string) (string, error) {
	if strings.ContainsAny(p, "\\\x00") {
		return "", fmt.Errorf("%w: %q", ErrBadPath, p)
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == ".." {
			return "", fmt.Errorf("%w: %q has a .. segment", ErrBadPath, p)
		}
	}
	c := strings.TrimPrefix(path.Clean("/"+p), "/")
	if strings.HasSuffix(p, "/") && c != "" {
		c += "/"
	}
	return c, nil
}

// file returns the absolute path of rel inside the package if it is a
// regular file that does not lead outside the package folder.
func (p *pkgVersion) file(rel string) (string, bool) {
	if rel == "" || strings.HasSuffix(rel, "/") {
		return "", false
	}
	c, err := cleanRel(rel)
	if err != nil || c == "" {
		return "", false
	}
	abs := filepath.Join(p.dir, filepath.FromSlash(c))
	st, err := os.Stat(abs)
	if err != nil || !st.Mode().IsRegular() {
		return "", false
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil || !strings.HasPrefix(real, p.dir+string(filepath.Separator)) {
		return "", false
	}
	return real, true
}

// has reports whether rel is a file of the package.
func (p *pkgVersion) has(rel string) bool {
	_, ok := p.file(rel)
	return ok
}

// probe finds rel the way bundlers and module CDNs do: as given, then with
// .js or .mjs added, then as a folder with index.js; a missing .mjs is also
// tried as .js. It returns the clean relative path found.
func (p *pkgVersion) probe(rel string) (string, bool) {
	rel = strings.TrimPrefix(rel, "./")
	cands := []string{rel}
	if rel != "" && !strings.HasSuffix(rel, "/") {
		cands = append(cands, rel+".js", rel+".mjs")
	}
	if strings.HasSuffix(rel, ".mjs") {
		cands = append(cands, strings.TrimSuffix(rel, ".mjs")+".js")
	}
	cands = append(cands, strings.TrimSuffix(rel, "/")+"/index.js")
	for _, c := range cands {
		c = strings.TrimPrefix(c, "/")
		if cr, err := cleanRel(c); err == nil && p.has(cr) {
			return cr, true
		}
	}
	return "", false
}

// esmEntry is the package's ES-module entry: exports ".", then module,
// then browser, then main, then index.js.
func (p *pkgVersion) esmEntry() (string, bool) {
	if t, ok := resolveExports(p.exports, "."); ok {
		if r, ok := p.probe(t); ok {
			return r, true
		}
	}
	for _, f := range []string{p.module, p.browser, p.main, "index.js"} {
		if f == "" {
			continue
		}
		if r, ok := p.probe(f); ok {
			return r, true
		}
	}
	return "", false
}

// fieldEntry is the entry a classic CDN serves for a bare package URL: the
// first of the named package.json fields that names a file, else index.js.
func (p *pkgVersion) fieldEntry(fields []string) (string, bool) {
	for _, f := range fields {
		var v string
		switch f {
		case "unpkg":
			v = p.unpkg
		case "jsdelivr":
			v = p.jsdelivr
		case "browser":
			v = p.browser
		case "main":
			v = p.main
		case "module":
			v = p.module
		}
		if v == "" {
			continue
		}
		if r, ok := p.probe(v); ok {
			return r, true
		}
	}
	return p.probe("index.js")
}

// isESMSource reports whether a file of this package is an ES module by
// its name and the package's "type" field (not by its contents).
func (p *pkgVersion) isESMSource(rel string) bool {
	switch path.Ext(rel) {
	case ".mjs":
		return true
	case ".cjs":
		return false
	}
	return p.typ == "module"
}

// readFile reads a file of the package given its absolute path.
func readFile(abs string) ([]byte, error) {
	f, err := os.Open(abs)
	if err != nil {
		return nil, fmt.Errorf("resolve: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("resolve: read %s: %w", abs, err)
	}
	return b, nil
}
