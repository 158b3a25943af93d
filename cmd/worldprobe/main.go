// Command worldprobe evaluates model-written interactive 3D worlds and XR apps
// in a real, sandboxed, deterministic headless Chromium.
package main

import (
	"os"

	"github.com/worldprobe/worldprobe/internal/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
