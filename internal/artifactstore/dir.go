package artifactstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/worldprobe/worldprobe/internal/atomicfile"
)

// Dir is a store in a folder (a shared mount, for workers on several
// machines). Files are written atomically; names cannot leave the folder.
type Dir struct {
	root *os.Root
	dir  string
}

// NewDir opens the folder dir as a store, creating it if needed.
func NewDir(dir string) (*Dir, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating the artifacts folder: %w", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("opening the artifacts folder: %w", err)
	}
	return &Dir{root: root, dir: dir}, nil
}

// String implements Store.
func (d *Dir) String() string { return d.dir }

// Close releases the folder.
func (d *Dir) Close() error { return d.root.Close() }

// Put implements Store.
func (d *Dir) Put(ctx context.Context, name string, r io.Reader, size int64) error {
	if err := checkName(name); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := io.ReadAll(io.LimitReader(r, size+1))
	if err != nil {
		return fmt.Errorf("storing %s: %w", name, err)
	}
	if int64(len(data)) != size {
		return fmt.Errorf("storing %s: %d bytes, announced %d: %w", name, len(data), size, errShortWrite)
	}
	// The folder is opened as a root so that a name cannot leave it
	// through a symbolic link; atomicfile writes the path it checked.
	if dir := path.Dir(name); dir != "." {
		if err := d.root.MkdirAll(filepath.FromSlash(dir), 0o755); err != nil {
			return fmt.Errorf("storing %s: %w", name, err)
		}
		if _, err := d.root.Stat(filepath.FromSlash(dir)); err != nil {
			return fmt.Errorf("storing %s: %w", name, err)
		}
	}
	return atomicfile.Write(filepath.Join(d.dir, filepath.FromSlash(name)), data)
}

// Open implements Store.
func (d *Dir) Open(ctx context.Context, name string) (File, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	f, err := d.root.Open(filepath.FromSlash(name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, notExist(d, name)
	}
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, notExist(d, name)
	}
	return f, nil
}

// List implements Store.
func (d *Dir) List(ctx context.Context, prefix string) ([]string, error) {
	prefix = strings.Trim(prefix, "/")
	start := "."
	if prefix != "" {
		if err := checkName(prefix); err != nil {
			return nil, err
		}
		start = prefix
	}
	var names []string
	err := fs.WalkDir(d.root.FS(), start, func(p string, e fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && p == start {
			return fs.SkipAll
		}
		if err != nil {
			return err
		}
		if e.Type().IsRegular() && !strings.HasPrefix(path.Base(p), ".") {
			names = append(names, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", d, err)
	}
	sort.Strings(names)
	return names, nil
}
