package resolve

import (
	"net/url"
	"path"
	"strings"
)

// IsWebFont reports whether a URL is a web font request that the caller
// should answer with an empty 200 response: any URL on a font service of
// cdn.yaml (fonts.googleapis.com, fonts.gstatic.com, Typekit, …), and any
// .woff, .woff2, .ttf, .otf or .eot file on one of cdn.yaml's CDN hosts.
//
// A font file that is part of a vendored package (three ships a few under
// examples/fonts/) is also resolved by Resolve; a caller that prefers the
// real file should try Resolve first.
func IsWebFont(rawURL string) bool {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") {
		return false
	}
	cfg, err := loadConfig()
	if err != nil {
		return false
	}
	host := strings.ToLower(u.Hostname())
	for _, h := range cfg.FontHosts {
		if host == h {
			return true
		}
	}
	if cfg.byHost[host] == nil {
		return false
	}
	ext := strings.ToLower(path.Ext(u.Path))
	for _, e := range cfg.FontExtensions {
		if ext == e {
			return true
		}
	}
	return false
}
