package contract

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse: no contract.yaml makes the parser or the CEL compiler panic.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("../../suites/starter/*/*/contract.yaml")
	for _, file := range files[:min(len(files), 4)] {
		if b, err := os.ReadFile(file); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("probes:\n  - name: a\n    steps:\n      - step: 1\n      - assert: s.x == 1\n"))
	f.Add([]byte("probes: [{name: a, steps: [{assert: 'within(s.x, 1, 2'}]}]"))
	f.Add([]byte("version: 1\nprobes:\n  - name: a\n    level: state\n    steps:\n      - controller: {hand: right, trigger: 1, thumbstick: [0, 1], buttons: {a: 1}}\n" +
		"      - gesture: {hand: left, pose: fist}\n      - rayClick: {hand: left, object: cube}\n      - walk: {forward: 1}\n      - assert: s.x == 1\n"))
	f.Add([]byte("version: 1\nprobes:\n  - name: a\n    level: state\n    steps:\n      - injectAudio: {wav: sounds/clap.wav}\n" +
		"      - injectAudio: {say: \"jump\", voice: en, frames: 3}\n      - assert: s.x == 1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = Parse("contract.yaml", data)
	})
}
