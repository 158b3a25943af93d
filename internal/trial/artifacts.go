package trial

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/worldprobe/worldprobe/internal/atomicfile"
)

// Artifacts is the one store a trial's judges write their files through
// (screenshot.png, trace.jsonl, …): each lands in the trial's folder
// atomically and is listed in the result's artifacts, in the order
// written. It is safe for concurrent use.
type Artifacts struct {
	dir   string
	mu    sync.Mutex
	names []string
}

// NewArtifacts stores artifacts in dir, which it creates.
func NewArtifacts(dir string) (*Artifacts, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating the trial folder: %w", err)
	}
	return &Artifacts{dir: dir}, nil
}

// Path is where the artifact named name lives.
func (a *Artifacts) Path(name string) string { return filepath.Join(a.dir, name) }

// Write stores data as the artifact name, atomically (a reader never sees
// half of it).
func (a *Artifacts) Write(name string, data []byte) error {
	if err := atomicfile.Write(a.Path(name), data); err != nil {
		return err
	}
	a.add(name)
	return nil
}

// Adopt moves the file at path in as the artifact name (a screenshot the
// load check wrote elsewhere).
func (a *Artifacts) Adopt(name, path string) error {
	if err := os.MkdirAll(filepath.Dir(a.Path(name)), 0o755); err != nil {
		return fmt.Errorf("keeping %s: %w", name, err)
	}
	if err := os.Rename(path, a.Path(name)); err != nil {
		return fmt.Errorf("keeping %s: %w", name, err)
	}
	a.add(name)
	return nil
}

func (a *Artifacts) add(name string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !slices.Contains(a.names, name) {
		a.names = append(a.names, name)
	}
}

// Names lists the artifacts stored, in the order first written.
func (a *Artifacts) Names() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.names)
}
