package resolve

import (
	"bytes"
	_ "embed"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

//go:embed cdn.yaml
var cdnYAML []byte

// config is the parsed form of cdn.yaml.
type config struct {
	LatestTags     []string                 `yaml:"latest_tags"`
	FontHosts      []string                 `yaml:"font_hosts"`
	FontExtensions []string                 `yaml:"font_extensions"`
	Hosts          []hostConfig             `yaml:"hosts"`
	Packages       map[string]packageConfig `yaml:"packages"`

	byHost  map[string]*hostConfig
	byCDNJS map[string]string // cdnjs name → npm name
	byRepo  map[string]string // lower-case owner/repo → npm name
}

type hostConfig struct {
	Names  []string      `yaml:"names"`
	Routes []routeConfig `yaml:"routes"`
}

type routeConfig struct {
	Pattern    string   `yaml:"pattern"`
	Package    string   `yaml:"package"`
	Mode       string   `yaml:"mode"`
	ESMQuery   string   `yaml:"esm_query"`
	ESMSuffix  string   `yaml:"esm_suffix"`
	Entry      []string `yaml:"entry"`
	Canonical  string   `yaml:"canonical"`
	StripFile  string   `yaml:"strip_file"`
	EntryFiles []string `yaml:"entry_files"`
	Probe      bool     `yaml:"probe"`
	Minify     bool     `yaml:"minify"`

	re        *regexp.Regexp
	stripFile *regexp.Regexp
}

type packageConfig struct {
	CDNJS       string            `yaml:"cdnjs"`
	CDNJSDirs   []string          `yaml:"cdnjs_dirs"`
	CDNJSFiles  map[string]string `yaml:"cdnjs_files"`
	GitHub      []string          `yaml:"github"`
	GitHubDirs  []string          `yaml:"github_dirs"`
	RVersions   bool              `yaml:"r_versions"`
	Tags        map[string]string `yaml:"tags"`
	PathAliases map[string]string `yaml:"path_aliases"`
}

var loadConfig = sync.OnceValues(func() (*config, error) { return parseConfig(cdnYAML) })

// parseConfig decodes and checks a cdn.yaml document.
func parseConfig(data []byte) (*config, error) {
	var c config
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("resolve: parse cdn.yaml: %w", err)
	}
	c.byHost = map[string]*hostConfig{}
	for i := range c.Hosts {
		h := &c.Hosts[i]
		if len(h.Names) == 0 || len(h.Routes) == 0 {
			return nil, fmt.Errorf("resolve: cdn.yaml: host entry %d needs names and routes", i)
		}
		for _, n := range h.Names {
			n = strings.ToLower(n)
			if _, dup := c.byHost[n]; dup {
				return nil, fmt.Errorf("resolve: cdn.yaml: host %q listed twice", n)
			}
			c.byHost[n] = h
		}
		for j := range h.Routes {
			rt := &h.Routes[j]
			where := fmt.Sprintf("host %s route %d", h.Names[0], j)
			re, err := regexp.Compile(rt.Pattern)
			if err != nil {
				return nil, fmt.Errorf("resolve: cdn.yaml: %s: %w", where, err)
			}
			rt.re = re
			groups := map[string]bool{}
			for _, g := range re.SubexpNames() {
				if g == "" {
					continue
				}
				switch g {
				case "spec", "pkg", "lib", "repo", "ver", "path":
					groups[g] = true
				default:
					return nil, fmt.Errorf("resolve: cdn.yaml: %s: unknown group %q", where, g)
				}
			}
			names := 0
			for _, g := range [...]string{"spec", "pkg", "lib", "repo"} {
				if groups[g] {
					names++
				}
			}
			if rt.Package != "" {
				names++
			}
			if names != 1 {
				return nil, fmt.Errorf("resolve: cdn.yaml: %s: needs exactly one of the groups spec, pkg, lib, repo or a package", where)
			}
			if groups["spec"] && (groups["ver"] || groups["path"]) {
				return nil, fmt.Errorf("resolve: cdn.yaml: %s: group spec already holds version and path", where)
			}
			switch rt.Mode {
			case "":
				rt.Mode = "raw"
			case "raw", "esm":
			default:
				return nil, fmt.Errorf("resolve: cdn.yaml: %s: mode %q is neither raw nor esm", where, rt.Mode)
			}
			canESM := rt.Mode == "esm" || rt.ESMQuery != "" || rt.ESMSuffix != ""
			if canESM {
				for _, ph := range [...]string{"{pkg}", "{ver}", "{path}"} {
					if !strings.Contains(rt.Canonical, ph) {
						return nil, fmt.Errorf("resolve: cdn.yaml: %s: canonical %q lacks %s", where, rt.Canonical, ph)
					}
				}
			}
			if rt.StripFile != "" {
				if rt.stripFile, err = regexp.Compile(rt.StripFile); err != nil {
					return nil, fmt.Errorf("resolve: cdn.yaml: %s: strip_file: %w", where, err)
				}
			}
			for _, f := range rt.Entry {
				switch f {
				case "unpkg", "jsdelivr", "browser", "main", "module":
				default:
					return nil, fmt.Errorf("resolve: cdn.yaml: %s: unknown entry field %q", where, f)
				}
			}
		}
	}
	c.byCDNJS = map[string]string{}
	c.byRepo = map[string]string{}
	for name, p := range c.Packages {
		if p.CDNJS != "" {
			if other, dup := c.byCDNJS[p.CDNJS]; dup {
				return nil, fmt.Errorf("resolve: cdn.yaml: cdnjs name %q used by %s and %s", p.CDNJS, other, name)
			}
			c.byCDNJS[p.CDNJS] = name
		}
		for _, repo := range p.GitHub {
			key := strings.ToLower(repo)
			if other, dup := c.byRepo[key]; dup {
				return nil, fmt.Errorf("resolve: cdn.yaml: GitHub repo %q used by %s and %s", repo, other, name)
			}
			c.byRepo[key] = name
		}
		for tag, v := range p.Tags {
			if _, ok := parseVersion(v); !ok && v != "latest" {
				return nil, fmt.Errorf("resolve: cdn.yaml: package %s: tag %s: %q is no exact version", name, tag, v)
			}
		}
		for from, to := range p.PathAliases {
			if !strings.HasSuffix(from, "/") || !strings.HasSuffix(to, "/") {
				return nil, fmt.Errorf("resolve: cdn.yaml: package %s: path alias %q → %q: both must end in /", name, from, to)
			}
		}
	}
	return &c, nil
}

// isLatestTag reports whether a version name means "newest".
func (c *config) isLatestTag(s string) bool {
	for _, t := range c.LatestTags {
		if strings.EqualFold(s, t) {
			return true
		}
	}
	return false
}
