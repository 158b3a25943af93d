package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/worldprobe/worldprobe/internal/atomicfile"
)

// Cache is an on-disk response cache: one JSON file per request digest
// (see [Digest]) under dir/<first two hex digits>/. Only answers are
// stored, never keys. It is safe for concurrent use.
type Cache struct {
	dir string
}

// OpenCache creates dir if needed and returns a cache stored there.
func OpenCache(dir string) (*Cache, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("llm: open cache: %w", err)
	}
	return &Cache{dir: dir}, nil
}

// Dir returns the cache folder.
func (c *Cache) Dir() string { return c.dir }

func (c *Cache) path(digest string) string {
	return filepath.Join(c.dir, digest[:2], digest+".json")
}

// Get returns the cached response for digest; ok is false on a miss.
func (c *Cache) Get(digest string) (resp *Response, ok bool, err error) {
	data, err := os.ReadFile(c.path(digest))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("llm: cache read: %w", err)
	}
	resp = &Response{}
	if err := json.Unmarshal(data, resp); err != nil {
		return nil, false, fmt.Errorf("llm: cache entry %s: %w", digest, err)
	}
	return resp, true, nil
}

// Put stores resp under digest.
func (c *Cache) Put(digest string, resp *Response) error {
	data, err := json.MarshalIndent(resp, "", "  ")
	if err != nil {
		return fmt.Errorf("llm: cache write: %w", err)
	}
	return writeFileAtomic(c.path(digest), data)
}

// writeFileAtomic creates path's folder and writes data and a newline to
// it atomically, so that concurrent readers never see half a file.
func writeFileAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("llm: write %s: %w", path, err)
	}
	if err := atomicfile.Write(path, append(data, '\n')); err != nil {
		return fmt.Errorf("llm: %w", err)
	}
	return nil
}
