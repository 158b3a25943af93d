package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/worldprobe/worldprobe/internal/task"
)

// The files of a fresh workspace.
const (
	// BriefFile is the task's prompt, exactly as 'worldprobe task prompt'
	// prints it: the brief with its parameters filled in and the state
	// interface.
	BriefFile = "brief.md"
	// InterfaceFile is the state interface as JSON: path, type, unit,
	// description and the values of an enum, per field.
	InterfaceFile = "state-interface.json"
	// PageFile is the page the model writes; it starts empty.
	PageFile = task.PageFile
)

// Limits of a workspace.
const (
	// MaxFileBytes is the largest file write_file and edit_file write.
	MaxFileBytes = 512 << 10
	// MaxFiles is the most files a workspace holds.
	MaxFiles = 64
)

// Workspace is the folder an agent works in: a fresh temporary folder per
// task and sample holding only what the model may see. Every path a tool
// is given is relative to it and confined to it: absolute paths, '..' and
// symbolic links are refused, and every access goes through an [os.Root].
type Workspace struct {
	// Dir is the folder.
	Dir  string
	root *os.Root
}

// NewWorkspace creates the workspace of t: brief.md, state-interface.json
// and an empty index.html. For a task with a scaffold, index.html starts as
// the scaffold page and the scaffold's other files are in scaffold/. Close
// removes it.
func NewWorkspace(t *task.Task) (*Workspace, error) {
	prompt, err := t.Prompt()
	if err != nil {
		return nil, fmt.Errorf("task %s: building its prompt: %w", t.ID, err)
	}
	iface, err := json.MarshalIndent(t.State, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("task %s: encoding its state interface: %w", t.ID, err)
	}
	dir, err := os.MkdirTemp("", "worldprobe-agent-")
	if err != nil {
		return nil, fmt.Errorf("creating the agent's workspace: %w", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("opening the agent's workspace: %w", err)
	}
	files, err := scaffoldFiles(t)
	if err != nil {
		_ = root.Close()
		_ = os.RemoveAll(dir)
		return nil, err
	}
	files[BriefFile], files[InterfaceFile] = []byte(prompt), append(iface, '\n')
	if _, ok := files[PageFile]; !ok {
		files[PageFile] = nil
	}
	w := &Workspace{Dir: dir, root: root}
	for name, body := range files {
		if dir := path.Dir(name); dir != "." {
			if err := root.MkdirAll(dir, 0o755); err != nil {
				_ = w.Close()
				return nil, fmt.Errorf("creating the agent's %s: %w", dir, err)
			}
		}
		if err := root.WriteFile(name, body, 0o644); err != nil {
			_ = w.Close()
			return nil, fmt.Errorf("writing the agent's %s: %w", name, err)
		}
	}
	return w, nil
}

// Close removes the workspace.
func (w *Workspace) Close() error {
	cerr := w.root.Close()
	if err := os.RemoveAll(w.Dir); err != nil {
		return fmt.Errorf("removing the agent's workspace: %w", err)
	}
	return cerr
}

// clean checks a path a tool was given and returns it cleaned, slash
// separated, relative to the workspace ("." for the workspace itself).
// The error is written for the model.
func (w *Workspace) clean(p string) (string, error) {
	orig := p
	p = strings.TrimSpace(strings.ReplaceAll(p, `\`, "/"))
	switch {
	case p == "":
		return "", errors.New("no path given: give a path inside the folder, e.g. index.html")
	case strings.ContainsRune(p, 0):
		return "", fmt.Errorf("path %q holds a NUL byte", orig)
	case strings.HasPrefix(p, "/") || filepath.IsAbs(orig) || filepath.VolumeName(orig) != "":
		return "", fmt.Errorf("path %q is absolute: paths are relative to the folder, e.g. index.html", orig)
	}
	for _, part := range strings.Split(p, "/") {
		if part == ".." {
			return "", fmt.Errorf("path %q has a '..' component: every file is inside the folder, e.g. index.html", orig)
		}
	}
	c := path.Clean(p)
	// A symbolic link is refused wherever it is on the path: the
	// workspace holds none of its own making, so one is a way out.
	parts := strings.Split(c, "/")
	for i := range parts {
		prefix := strings.Join(parts[:i+1], "/")
		if prefix == "." {
			continue
		}
		st, err := w.root.Lstat(prefix)
		if errors.Is(err, fs.ErrNotExist) {
			break
		}
		if err != nil {
			return "", fmt.Errorf("%s: %w", orig, modelError(err))
		}
		if st.Mode()&fs.ModeSymlink != 0 {
			return "", fmt.Errorf("path %q goes through the symbolic link %s: the tools do not follow links", orig, prefix)
		}
	}
	return c, nil
}

// modelError rewords a file system error for the model, without the
// workspace's real location.
func modelError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return errors.New("no such file or folder (list_files shows what there is)")
	case strings.Contains(err.Error(), "escapes"):
		return errors.New("the path leaves the folder")
	}
	return err
}

// ReadFile reads the file at p.
func (w *Workspace) ReadFile(p string) ([]byte, error) {
	c, err := w.clean(p)
	if err != nil {
		return nil, err
	}
	st, err := w.root.Stat(c)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c, modelError(err))
	}
	if st.IsDir() {
		return nil, fmt.Errorf("%s is a folder (list_files shows what it holds)", c)
	}
	b, err := w.root.ReadFile(c)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c, modelError(err))
	}
	return b, nil
}

// WriteFile writes data to the file at p, creating its folders.
func (w *Workspace) WriteFile(p string, data []byte) error {
	c, err := w.clean(p)
	if err != nil {
		return err
	}
	if c == "." {
		return errors.New("the path names the folder itself, not a file")
	}
	if len(data) > MaxFileBytes {
		return fmt.Errorf("%s: %d bytes is more than the %d a file may hold", c, len(data), MaxFileBytes)
	}
	st, err := w.root.Stat(c)
	switch {
	case err == nil && st.IsDir():
		return fmt.Errorf("%s is a folder", c)
	case errors.Is(err, fs.ErrNotExist):
		files, err := w.Files(".")
		if err != nil {
			return err
		}
		if len(files) >= MaxFiles {
			return fmt.Errorf("the folder already holds %d files, the most it may", len(files))
		}
	case err != nil:
		return fmt.Errorf("%s: %w", c, modelError(err))
	}
	if dir := path.Dir(c); dir != "." {
		if err := w.root.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("creating %s: %w", dir, modelError(err))
		}
	}
	if err := w.root.WriteFile(c, data, 0o644); err != nil {
		return fmt.Errorf("%s: %w", c, modelError(err))
	}
	return nil
}

// File is one entry of [Workspace.Files].
type File struct {
	// Path is relative to the workspace, slash separated.
	Path string
	// Size is in bytes.
	Size int64
	// Link is set for a symbolic link (never followed).
	Link bool
}

// Files lists the files under the folder p ("." for all), sorted by path.
func (w *Workspace) Files(p string) ([]File, error) {
	c, err := w.clean(p)
	if err != nil {
		return nil, err
	}
	st, err := w.root.Stat(c)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c, modelError(err))
	}
	if !st.IsDir() {
		return []File{{Path: c, Size: st.Size()}}, nil
	}
	var out []File
	err = fs.WalkDir(w.root.FS(), c, func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		f := File{Path: name, Link: d.Type()&fs.ModeSymlink != 0}
		if !f.Link {
			info, err := d.Info()
			if err != nil {
				return err
			}
			f.Size = info.Size()
		}
		out = append(out, f)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", c, modelError(err))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// Page is the page the model wrote: index.html's content.
func (w *Workspace) Page() ([]byte, error) {
	b, err := w.root.ReadFile(PageFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the agent's %s: %w", PageFile, err)
	}
	return b, nil
}

// ScaffoldDir holds the scaffold's files other than its page in the
// workspace of a task with a scaffold.
const ScaffoldDir = "scaffold"

// scaffoldFiles are the files a task's scaffold puts in a workspace, by
// workspace path: the scaffold page as index.html, every other scaffold
// file under scaffold/. None for a task without a scaffold.
func scaffoldFiles(t *task.Task) (map[string][]byte, error) {
	out := map[string][]byte{}
	names, err := t.ScaffoldFiles()
	if err != nil {
		return nil, err
	}
	for i, name := range names {
		body, err := os.ReadFile(filepath.Join(filepath.Dir(t.ScaffoldPath()), filepath.FromSlash(name)))
		if err != nil {
			return nil, fmt.Errorf("task %s: reading its scaffold: %w", t.ID, err)
		}
		if i == 0 {
			out[PageFile] = body
		} else {
			out[path.Join(ScaffoldDir, name)] = body
		}
	}
	return out, nil
}
