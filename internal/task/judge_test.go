package task

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestJudgeField: a world-judged task (judge:) needs no state interface
// and takes a relative rubric folder and optional horizon and samples;
// every problem names task.yaml and its line.
func TestJudgeField(t *testing.T) {
	head := "id: world/isle\ntitle: Isle\ncategory: world\ndifficulty: D1\n"
	ok, err := Parse("task.yaml", []byte(head+"judge:\n  rubric: ../rubric\n  horizon: 20\n  samples: 4\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !ok.WorldJudged() || *ok.Judge != (JudgeSpec{Rubric: "../rubric", Horizon: 20, Samples: 4}) {
		t.Fatalf("judge %+v", ok.Judge)
	}
	for _, c := range []struct{ yaml, want string }{
		{"judge:\n  horizon: 20\n", "task.yaml:6: judge: missing rubric"},
		{"judge: ../rubric\n", `task.yaml:5: "../rubric" is not a mapping`},
		{"judge:\n  rubric: /abs/rubric\n", `task.yaml:6: judge: rubric "/abs/rubric": want a path relative to the task folder`},
		{"judge:\n  rubric: ../r\n  horizon: -1\n", "task.yaml:7: judge: horizon must be in (0, 3600]"},
		{"judge:\n  rubric: ../r\n  samples: 1\n", "task.yaml:7: judge: samples must be 2 to 100"},
		{"judge:\n  rubric: ../r\nstate:\n  - {path: a, type: number}\n", "task.yaml:8: state: a task judged by the world judge (judge:) has no state"},
		{"judge:\n  rubric: ../r\n  model: x\n", `task.yaml:7: unknown field "model"`},
		{"", "task.yaml:1: missing state"},
	} {
		_, err := Parse("task.yaml", []byte(head+c.yaml))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %q", c.yaml, err, c.want)
		}
	}
}

// TestJudgeRubricFolderMustExist: Load checks the rubric folder holds a
// rubric.yaml, naming the judge's line; the rubric's files are part of
// the task's digest.
func TestJudgeRubricFolderMustExist(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "world", "isle")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	yaml := "id: world/isle\ntitle: Isle\ncategory: world\ndifficulty: D1\njudge:\n  rubric: ../../rubric\n"
	if err := os.WriteFile(filepath.Join(dir, TaskFile), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(dir)
	if err == nil || !strings.Contains(err.Error(), `task.yaml:6: judge: rubric "../../rubric": no rubric.yaml in`) {
		t.Fatalf("got %v", err)
	}
	if err := os.MkdirAll(filepath.Join(root, "rubric"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "rubric", RubricFile), []byte("name: a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tk, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	before, err := tk.Digest()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "rubric", RubricFile), []byte("name: b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	after, err := tk.Digest()
	if err != nil {
		t.Fatal(err)
	}
	if before == after {
		t.Fatal("changing the rubric left the task's digest unchanged")
	}
}
