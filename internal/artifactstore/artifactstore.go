// Package artifactstore keeps a run's artifacts (each trial's
// result.json, screenshot, trace, videos, judge evidence) where every
// machine of a scaled-out run can reach them: a shared folder ([Dir]) or
// an S3-compatible bucket ([S3], through github.com/minio/minio-go). A
// trial writes its files into its local folder as always (trial.Artifacts);
// a worker copies the finished folder into the store ([PutDir]), and the
// viewer reads from it ([FS]).
//
// Names are slash-separated paths relative to the store's root (for a
// bucket, its prefix): "trials/<trial>/screenshot.png".
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
	"strings"
	"time"
)

// Store holds named files.
type Store interface {
	// Put stores size bytes of r as name, replacing any earlier file of
	// that name; a reader never sees half of it.
	Put(ctx context.Context, name string, r io.Reader, size int64) error
	// Open opens name for reading; an error matching fs.ErrNotExist when
	// there is none.
	Open(ctx context.Context, name string) (File, error)
	// List lists the names below the folder prefix ("" for all), sorted.
	List(ctx context.Context, prefix string) ([]string, error)
	// String names the store for messages (never with a credential).
	String() string
}

// File is a stored file open for reading.
type File interface {
	io.ReadSeekCloser
	Stat() (fs.FileInfo, error)
}

// ValidName reports whether name may name a stored file: a local,
// slash-separated path without empty, "." or ".." elements.
func ValidName(name string) bool {
	return name != "" && fs.ValidPath(name) && name != "." && !strings.Contains(name, "\\")
}

func checkName(name string) error {
	if !ValidName(name) {
		return fmt.Errorf("artifact name %q: want a relative slash-separated path", name)
	}
	return nil
}

// Open opens the store at where: "s3://BUCKET/PREFIX" is a bucket, its
// endpoint and credentials from the environment ([S3FromEnv]); anything
// else is a folder.
func Open(ctx context.Context, where string, getenv func(string) string) (Store, error) {
	if strings.HasPrefix(where, "s3://") {
		return S3FromEnv(ctx, where, getenv)
	}
	return NewDir(where)
}

// PutDir copies every regular file below the local folder dir into s, as
// prefix/<its path below dir>, and returns the names stored, sorted.
func PutDir(ctx context.Context, s Store, dir, prefix string) ([]string, error) {
	var names []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		name := path.Join(prefix, filepath.ToSlash(rel))
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			return err
		}
		if err := s.Put(ctx, name, f, fi.Size()); err != nil {
			return err
		}
		names = append(names, name)
		return nil
	})
	if err != nil {
		return names, fmt.Errorf("copying %s into %s: %w", dir, s, err)
	}
	return names, nil
}

// FS is s as an fs.FS (and fs.StatFS, fs.ReadDirFS) for readers of files
// such as the viewer; its calls use ctx. A file it opens is a [File]
// (seekable).
func FS(ctx context.Context, s Store) ReadFS { return storeFS{ctx: ctx, s: s} }

// ReadFS is what [FS] returns.
type ReadFS interface {
	fs.StatFS
	fs.ReadDirFS
}

type storeFS struct {
	ctx context.Context
	s   Store
}

func (f storeFS) Open(name string) (fs.File, error) {
	if !ValidName(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	file, err := f.s.Open(f.ctx, name)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return file, nil
}

func (f storeFS) Stat(name string) (fs.FileInfo, error) {
	file, err := f.Open(name)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	return file.Stat()
}

// fileInfo is a stored file's fs.FileInfo.
type fileInfo struct {
	name    string
	size    int64
	modTime time.Time
}

func (i fileInfo) Name() string       { return path.Base(i.name) }
func (i fileInfo) Size() int64        { return i.size }
func (i fileInfo) Mode() fs.FileMode  { return 0o444 }
func (i fileInfo) ModTime() time.Time { return i.modTime }
func (i fileInfo) IsDir() bool        { return false }
func (i fileInfo) Sys() any           { return nil }

// notExist wraps fs.ErrNotExist with the name.
func notExist(s Store, name string) error {
	return fmt.Errorf("%s: %s: %w", s, name, fs.ErrNotExist)
}

var errShortWrite = errors.New("fewer bytes than announced")

// ReadDir implements fs.ReadDirFS from the names below dir: its files and
// the folders holding deeper ones, sorted by name. A folder with nothing
// below it does not exist.
func (f storeFS) ReadDir(dir string) ([]fs.DirEntry, error) {
	if dir != "." && !ValidName(dir) {
		return nil, &fs.PathError{Op: "readdir", Path: dir, Err: fs.ErrInvalid}
	}
	prefix := ""
	if dir != "." {
		prefix = dir
	}
	names, err := f.s.List(f.ctx, prefix)
	if err != nil {
		return nil, &fs.PathError{Op: "readdir", Path: dir, Err: err}
	}
	if len(names) == 0 {
		return nil, &fs.PathError{Op: "readdir", Path: dir, Err: fs.ErrNotExist}
	}
	var out []fs.DirEntry
	seen := map[string]bool{}
	for _, n := range names {
		rest := n
		if prefix != "" {
			rest = strings.TrimPrefix(n, prefix+"/")
		}
		child, _, deeper := strings.Cut(rest, "/")
		if seen[child] {
			continue
		}
		seen[child] = true
		out = append(out, dirEntry{name: child, dir: deeper})
	}
	return out, nil
}

// dirEntry is an entry of a stored folder.
type dirEntry struct {
	name string
	dir  bool
}

func (e dirEntry) Name() string { return e.name }
func (e dirEntry) IsDir() bool  { return e.dir }
func (e dirEntry) Type() fs.FileMode {
	if e.dir {
		return fs.ModeDir
	}
	return 0
}
func (e dirEntry) Info() (fs.FileInfo, error) {
	if e.dir {
		return dirInfo(e.name), nil
	}
	return fileInfo{name: e.name}, nil
}

// dirInfo is a stored folder's fs.FileInfo.
type dirInfo string

func (i dirInfo) Name() string       { return string(i) }
func (i dirInfo) Size() int64        { return 0 }
func (i dirInfo) Mode() fs.FileMode  { return fs.ModeDir | 0o555 }
func (i dirInfo) ModTime() time.Time { return time.Time{} }
func (i dirInfo) IsDir() bool        { return true }
func (i dirInfo) Sys() any           { return nil }

// RunPrefix is where a run's files are in a store shared by many runs:
// the run folder's absolute path without its leading slash
// ("shared/runs/starter"), so that every machine that sees the run folder
// at the same path names the same files.
func RunPrefix(run string) string {
	return strings.TrimPrefix(filepath.ToSlash(filepath.Clean(run)), "/")
}

// GetDir copies every file of s below the folder prefix into the local
// folder dir (created if needed), as dir/<its name below prefix>, and
// returns the names copied, sorted: [PutDir] the other way. Each file is
// written atomically, and no name can leave dir (it is written through a
// [Dir]).
func GetDir(ctx context.Context, s Store, prefix, dir string) ([]string, error) {
	prefix = strings.Trim(prefix, "/")
	names, err := s.List(ctx, prefix)
	if err != nil {
		return nil, err
	}
	local, err := NewDir(dir)
	if err != nil {
		return nil, err
	}
	defer local.Close()
	for _, name := range names {
		rel := name
		if prefix != "" {
			rel = strings.TrimPrefix(name, prefix+"/")
		}
		if err := copyFile(ctx, s, name, local, rel); err != nil {
			return nil, fmt.Errorf("copying %s from %s into %s: %w", name, s, dir, err)
		}
	}
	return names, nil
}

// copyFile copies name of from into to as as.
func copyFile(ctx context.Context, from Store, name string, to Store, as string) error {
	f, err := from.Open(ctx, name)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	return to.Put(ctx, as, f, fi.Size())
}
