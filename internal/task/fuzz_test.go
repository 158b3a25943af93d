package task

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse: no task.yaml makes the parser panic; a parsed task has its id.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("../../suites/starter/*/*/task.yaml")
	for _, file := range files[:min(len(files), 4)] {
		if b, err := os.ReadFile(file); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("id: simulation/x\ncategory: simulation\n"))
	f.Add([]byte("{"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tk, err := Parse("task.yaml", data)
		if err == nil && tk.ID == "" {
			t.Fatalf("parsed a task with no id from %q", data)
		}
	})
}

// FuzzRequirements: no brief makes the requirement parser panic, and every
// requirement it returns has an id.
func FuzzRequirements(f *testing.F) {
	f.Add("## Behaviour\n\n- The ball falls. {#falls}\n- Space pauses. {#pause}\n")
	f.Add("## Scene\n- x {#}\n- y {#a b}\n")
	f.Fuzz(func(t *testing.T, brief string) {
		reqs, _ := ParseRequirements("brief.md", brief)
		for _, r := range reqs {
			if r.ID == "" {
				t.Fatalf("a requirement with no id from %q", brief)
			}
		}
	})
}
