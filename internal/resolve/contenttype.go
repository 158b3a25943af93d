package resolve

import (
	"path"
	"strings"
)

// contentTypes maps file extensions to Content-Type values. It is fixed
// here rather than taken from the system's MIME tables so that every
// machine answers the same.
var contentTypes = map[string]string{
	".js":    "text/javascript",
	".mjs":   "text/javascript",
	".cjs":   "text/javascript",
	".json":  "application/json",
	".map":   "application/json",
	".wasm":  "application/wasm",
	".css":   "text/css",
	".html":  "text/html",
	".htm":   "text/html",
	".txt":   "text/plain",
	".md":    "text/markdown",
	".ts":    "text/plain",
	".xml":   "application/xml",
	".svg":   "image/svg+xml",
	".png":   "image/png",
	".jpg":   "image/jpeg",
	".jpeg":  "image/jpeg",
	".gif":   "image/gif",
	".webp":  "image/webp",
	".avif":  "image/avif",
	".ico":   "image/x-icon",
	".ktx2":  "image/ktx2",
	".basis": "application/octet-stream",
	".hdr":   "application/octet-stream",
	".exr":   "application/octet-stream",
	".bin":   "application/octet-stream",
	".glb":   "model/gltf-binary",
	".gltf":  "model/gltf+json",
	".obj":   "text/plain",
	".mtl":   "text/plain",
	".woff":  "font/woff",
	".woff2": "font/woff2",
	".ttf":   "font/ttf",
	".otf":   "font/otf",
	".eot":   "application/vnd.ms-fontobject",
	".mp3":   "audio/mpeg",
	".ogg":   "audio/ogg",
	".wav":   "audio/wav",
	".mp4":   "video/mp4",
	".webm":  "video/webm",
}

// contentType returns the Content-Type for a file name, by extension;
// unknown extensions get application/octet-stream.
func contentType(name string) string {
	if ct, ok := contentTypes[strings.ToLower(path.Ext(name))]; ok {
		return ct
	}
	return "application/octet-stream"
}
