// Package testenv starts what real-browser tests share: one Chromium per
// test binary and the resolver over the vendored packages. Tests give each
// case its own browser context through the packages under test.
package testenv

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/worldprobe/worldprobe/internal/browser"
	"github.com/worldprobe/worldprobe/internal/resolve"
)

// Root finds the repository root (the folder with go.mod) above the
// working directory.
func Root() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("go.mod not found above the working directory")
		}
		dir = parent
	}
}

// Start launches Chromium with jobs slots and loads the resolver. Close the
// browser when the tests are done. The error says how to fix the machine
// (run 'make setup').
func Start(jobs int) (*browser.Browser, *resolve.Resolver, error) {
	root, err := Root()
	if err != nil {
		return nil, nil, err
	}
	res, err := resolve.New(filepath.Join(root, "web", "node_modules"))
	if err != nil {
		return nil, nil, fmt.Errorf("vendored packages missing (run 'make setup'): %w", err)
	}
	b, err := browser.Launch(context.Background(), browser.Options{Jobs: jobs})
	if err != nil {
		return nil, nil, fmt.Errorf("chromium missing (run 'make setup'): %w", err)
	}
	return b, res, nil
}

// Harness is the browser and resolver one package's tests share.
type Harness struct {
	Browser  *browser.Browser
	Resolver *resolve.Resolver
}

// RunMain is a package's TestMain: it starts h with a browser of jobs
// slots, runs the tests, closes the browser and exits with their status.
// When the browser or the vendored packages are missing it says so (run
// 'make setup') and exits 1 before any test runs.
func RunMain(m *testing.M, jobs int, h *Harness) {
	code := func() int {
		b, res, err := Start(jobs)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer b.Close()
		h.Browser, h.Resolver = b, res
		return m.Run()
	}()
	os.Exit(code)
}
