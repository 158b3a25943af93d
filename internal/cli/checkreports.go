package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/worldprobe/worldprobe/internal/task"
	"github.com/worldprobe/worldprobe/internal/taskcheck"
)

// checkReports keeps one 'task check' report per task in a folder, written
// the moment the task is checked, so that an interrupted check loses no
// finished task and running it again resumes: a task whose report was
// made from the same task files and options is not checked again.
type checkReports struct {
	dir string
	// options is what besides the task's files decides its report.
	options string
}

// keptViewport ends the options of every kept report. 'task check' once
// had a --viewport flag (it changed nothing: a task's pages open at its
// task.yaml viewport) whose value was part of the options; it is kept at
// the flag's old default so that reports kept before the flag was removed
// still match and are not all checked again.
const keptViewport = " viewport=1280x800"

func newCheckReports(dir string, o *TaskCheckOptions) *checkReports {
	ids := append([]string(nil), o.MutantIDs...)
	ops := append([]string(nil), o.Operators...)
	sort.Strings(ids)
	sort.Strings(ops)
	opts := fmt.Sprintf("mutants=%t seed=%d max=%d operators=%s ids=%s",
		!o.NoMutants, o.Seed, o.MaxMutants, strings.Join(ops, ","), strings.Join(ids, ","))
	opts += keptViewport
	if o.OnlyMutants {
		opts += " only-mutants"
	}
	return &checkReports{dir: dir, options: opts}
}

// path is where t's report is kept: DIR/<category>/<slug>.json.
func (c *checkReports) path(t *task.Task) string {
	return filepath.Join(c.dir, filepath.FromSlash(t.ID)+".json")
}

// fingerprint hashes the task folder's digest (task.Digest: every file)
// with the options.
func (c *checkReports) fingerprint(t *task.Task) (string, error) {
	digest, err := t.Digest()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte("options " + c.options + "\ntask " + digest + "\n"))
	return hex.EncodeToString(sum[:]), nil
}

// load returns t's kept report when it was made from the same inputs and
// judged every mutant (one the machine was too loaded to judge makes the
// task be checked again).
func (c *checkReports) load(t *task.Task) (*taskcheck.Report, error) {
	fp, err := c.fingerprint(t)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(c.path(t))
	if err != nil {
		return nil, nil // not checked yet
	}
	var reps []*taskcheck.Report
	if err := json.Unmarshal(b, &reps); err != nil || len(reps) != 1 || reps[0] == nil {
		return nil, nil // a damaged report is checked again
	}
	if reps[0].Fingerprint != fp || reps[0].Task != t.ID {
		return nil, nil
	}
	if m := reps[0].Mutation; m != nil && m.Unjudged > 0 {
		return nil, nil // infrastructure trouble is retried, never kept
	}
	return reps[0], nil
}

// save writes r (as a one-report list, the format 'task summarize' reads)
// atomically.
func (c *checkReports) save(t *task.Task, r *taskcheck.Report) error {
	fp, err := c.fingerprint(t)
	if err != nil {
		return err
	}
	r.Fingerprint = fp
	b, err := json.MarshalIndent([]*taskcheck.Report{r}, "", "  ")
	if err != nil {
		return err
	}
	file := c.path(t)
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return fmt.Errorf("saving the report of %s: %w", t.ID, err)
	}
	tmp := file + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("saving the report of %s: %w", t.ID, err)
	}
	if err := os.Rename(tmp, file); err != nil {
		return fmt.Errorf("saving the report of %s: %w", t.ID, err)
	}
	return nil
}

// reportFiles expands the arguments of 'task summarize': files as given,
// folders to every .json file below them, in order.
func reportFiles(args []string) ([]string, error) {
	var files []string
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			files = append(files, a)
			continue
		}
		var found []string
		err = filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".json") {
				found = append(found, p)
			}
			return err
		})
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("%s: no report (.json) in this folder", a)
		}
		sort.Strings(found)
		files = append(files, found...)
	}
	return files, nil
}
