package run

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/worldprobe/worldprobe/internal/result"
	"github.com/worldprobe/worldprobe/internal/trial"
)

// ChangeKind says what resuming a run folder does about a [Change].
type ChangeKind int

const (
	// Added: new trials (a model, a task, a page where there was none,
	// more samples) are planned and run; every finished trial is kept.
	Added ChangeKind = iota
	// Changed: a task folder or a candidate page differs from the one the
	// finished trials judged; with Options.UpdateChanged those trials are
	// judged again, without it the resume is refused.
	Changed
	// Refused: resuming would drop finished trials (a model, a task, a page
	// or samples removed) or mix configurations (another suite, variants
	// folder, candidates folder, worldprobe, Chromium or sandbox).
	Refused
)

// String is how messages tag the kind.
func (k ChangeKind) String() string {
	switch k {
	case Added:
		return "added"
	case Changed:
		return "changed"
	}
	return "refused"
}

// Change is one difference between the configuration a run folder was
// made with (config.json, lock.json) and the new one.
type Change struct {
	Kind ChangeKind
	// Text names what differs (old → new) and the trials concerned.
	Text string
}

// ConfigError refuses to resume a run folder made with another
// configuration; its message names every difference. It wraps
// [ErrConfigChanged].
type ConfigError struct {
	// Dir is the run folder.
	Dir     string
	Changes []Change
	// UpdateChanged is whether Options.UpdateChanged was set.
	UpdateChanged bool
	// Rerun is how many planned trials belong to a changed task or page
	// (what --update-changed judges again); Keep how many finished trials
	// would be kept.
	Rerun, Keep int
}

func (e *ConfigError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s):", ErrConfigChanged, e.Dir)
	refused, changed := false, false
	for _, c := range e.Changes {
		fmt.Fprintf(&b, "\n  %-8s %s", c.Kind.String()+":", c.Text)
		refused = refused || c.Kind == Refused
		changed = changed || c.Kind == Changed
	}
	update := fmt.Sprintf("judges again the %s of the changed tasks and pages and keeps the other %s",
		plural(e.Rerun, "trial"), plural(e.Keep, "finished trial"))
	if !refused {
		fmt.Fprintf(&b, "\nrun the same command with --update-changed: it %s; or use another --out folder", update)
		return b.String()
	}
	fmt.Fprintf(&b, "\nwhat is refused cannot be resumed: run with the configuration the folder was made with, use another --out folder, or remove %s to start over", e.Dir)
	if changed && !e.UpdateChanged {
		fmt.Fprintf(&b, " (--update-changed %s, but only once nothing refused is left)", update)
	}
	return b.String()
}

func (e *ConfigError) Unwrap() error { return ErrConfigChanged }

// plural writes n and the noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// finished is a trial of the run folder with its result.json.
type finished struct {
	trial *result.Trial
	dir   string // its folder's name under trials/
}

// scan lists the trial folders of the run folder out: the finished ones by
// key, and the folders without a readable result.json (a trial killed
// midway).
func scan(out string) (map[string]finished, []string, error) {
	entries, err := os.ReadDir(filepath.Join(out, "trials"))
	if err != nil {
		return nil, nil, fmt.Errorf("reading the run folder: %w", err)
	}
	done := map[string]finished{}
	var unfinished []string
	trials := os.DirFS(filepath.Join(out, "trials"))
	for _, e := range entries {
		t, err := trial.ReadResult(trials, e.Name())
		if err != nil {
			unfinished = append(unfinished, e.Name())
			continue
		}
		done[t.Key] = finished{trial: t, dir: e.Name()}
	}
	return done, unfinished, nil
}

// ReadTrials reads the finished trials of the run folder out (each
// trials/<trial>/result.json), sorted by key; a trial folder without a
// readable result.json (a trial killed midway) is skipped.
func ReadTrials(out string) ([]*result.Trial, error) {
	done, _, err := scan(out)
	if err != nil {
		return nil, err
	}
	trials := make([]*result.Trial, 0, len(done))
	for _, f := range done {
		trials = append(trials, f.trial)
	}
	sort.Slice(trials, func(i, j int) bool { return trials[i].Key < trials[j].Key })
	return trials, nil
}

// ReadLock reads the run folder's lock.json: nil without one (a run
// folder not planned yet).
func ReadLock(dir string) (*Lock, error) {
	return readStored[Lock](filepath.Join(dir, "lock.json"))
}

// readStored reads a JSON file of the run folder; nil when the file does
// not exist.
func readStored[T any](path string) (*T, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	v := new(T)
	if err := json.Unmarshal(b, v); err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return v, nil
}

// reconciliation is what resuming a run folder with a new configuration
// means.
type reconciliation struct {
	changes []Change
	// stale are the finished trials the new plan does not hold (keys),
	// each explained by a change.
	stale []string
	// rerun counts the planned trials of changed tasks and pages, keep the
	// finished trials the plan holds.
	rerun, keep int
}

// refused reports whether resuming must stop: a refused change, or a
// changed one without updateChanged.
func (r *reconciliation) refused(updateChanged bool) bool {
	return slices.ContainsFunc(r.changes, func(c Change) bool {
		return c.Kind == Refused || c.Kind == Changed && !updateChanged
	})
}

// reconcile compares the stored configuration (old, oldLock; nil when the
// file is missing) with the new one and the finished trials with the
// plan. Every finished trial the plan does not hold must be explained by
// a change — a task or page that changed, a model, task, page or sample
// removed, a page that appeared where there was none — or it is refused,
// so that no finished trial is ever dropped silently.
func reconcile(old *Config, oldLock *Lock, cfg Config, lock Lock, plan []Planned, done map[string]finished) *reconciliation {
	r := &reconciliation{}
	add := func(k ChangeKind, format string, args ...any) {
		r.changes = append(r.changes, Change{Kind: k, Text: fmt.Sprintf(format, args...)})
	}
	planned := map[string]bool{}
	perModel, perTask, perPage := map[string]int{}, map[string]int{}, map[string]int{}
	for _, p := range plan {
		planned[p.Key] = true
		perModel[p.ID()]++
		perTask[p.Task.ID]++
		perPage[pageKey(p.ID(), p.Task.ID, p.Candidate)]++
	}
	for k := range done {
		if planned[k] {
			r.keep++
		}
	}

	// What each dropped trial is explained by, and how many each explains.
	removedModel, respecModel, removedTask, changedTask := map[string]bool{}, map[string]bool{}, map[string]bool{}, map[string]bool{}
	changedPage, gonePage, newPage := map[string]bool{}, map[string]bool{}, map[string]bool{}
	dropped := map[string]int{} // "model:M", "task:T", "page:M/T/C", "sample" → finished trials
	var unexplained []string
	explain := func() {
		for k, f := range done {
			if planned[k] {
				continue
			}
			t := f.trial
			id := sourceID(t.Model, t.Repair)
			pk := pageKey(id, t.Task, t.Candidate)
			why := ""
			switch {
			case removedModel[id], respecModel[id]:
				why = "model:" + id
			case removedTask[t.Task]:
				why = "task:" + t.Task
			case changedTask[t.Task]:
				why = "task:" + t.Task
			case changedPage[pk], gonePage[pk]:
				why = "page:" + pk
			case newPage[pk] && t.CrashKind == result.CrashNoCandidate:
				why = "page:" + pk
			case old != nil && cfg.Repeat < old.Repeat && t.Sample >= cfg.Repeat:
				why = "sample"
			default:
				unexplained = append(unexplained, f.dir)
				continue
			}
			dropped[why]++
			r.stale = append(r.stale, k)
		}
		sort.Strings(r.stale)
		sort.Strings(unexplained)
	}

	if old != nil {
		if old.Suite != cfg.Suite {
			add(Refused, "suite: %s → %s", old.Suite, cfg.Suite)
		}
		if old.Variants != cfg.Variants {
			add(Refused, "--variants: %s → %s", orNone(old.Variants), orNone(cfg.Variants))
		}
		if old.WorldJudge != cfg.WorldJudge {
			add(Refused, "world judge: %s → %s", orNone(old.WorldJudge), orNone(cfg.WorldJudge))
		}
	}
	if oldLock != nil {
		if oldLock.Worldprobe != lock.Worldprobe {
			add(Refused, "worldprobe version: %s → %s", orNone(oldLock.Worldprobe), orNone(lock.Worldprobe))
		}
		if oldLock.Chromium != lock.Chromium {
			add(Refused, "Chromium version: %s → %s", orNone(oldLock.Chromium), orNone(lock.Chromium))
		}
		if oldLock.Sandbox != lock.Sandbox {
			add(Refused, "browser sandbox: %s → %s", oldLock.Sandbox, lock.Sandbox)
		}
	}
	if old == nil {
		explain()
		r.addUnexplained(unexplained)
		return r
	}

	oldSrc := map[string]Source{}
	for _, s := range old.Sources {
		oldSrc[s.ID()] = s
	}
	newSrc := map[string]Source{}
	for _, s := range cfg.Sources {
		newSrc[s.ID()] = s
	}
	for _, s := range old.Sources {
		n, ok := newSrc[s.ID()]
		switch {
		case !ok:
			removedModel[s.ID()] = true
		case n != s:
			respecModel[s.ID()] = true
		}
	}
	oldTasks := map[string]bool{}
	for _, t := range old.Tasks {
		oldTasks[t] = true
	}
	newTasks := map[string]bool{}
	for _, t := range cfg.Tasks {
		newTasks[t] = true
		if oldTasks[t] && oldLock != nil && oldLock.Tasks[t] != "" && lock.Tasks[t] != "" && oldLock.Tasks[t] != lock.Tasks[t] {
			changedTask[t] = true
		}
	}
	for _, t := range old.Tasks {
		if !newTasks[t] {
			removedTask[t] = true
		}
	}
	// Pages, for the models and tasks both configurations judge the same way.
	var pages []string
	oldPages, newPages := map[string]string{}, map[string]string{}
	if oldLock != nil {
		for k, d := range oldLock.Candidates {
			if pk, ok := splitPageKey(k, old); ok {
				oldPages[pk] = d
			}
		}
		same := func(pk string) bool {
			m, t, _ := strings.Cut(pk, "\x00")
			t, _, _ = strings.Cut(t, "\x00")
			_, inOld := oldSrc[m]
			_, inNew := newSrc[m]
			return inOld && inNew && !respecModel[m] && oldTasks[t] && newTasks[t] && !changedTask[t]
		}
		for _, p := range plan {
			if p.Page != "" {
				newPages[pageKey(p.ID(), p.Task.ID, p.Candidate)] = p.Digest
			}
		}
		for pk, d := range newPages {
			if !same(pk) {
				continue
			}
			switch od, ok := oldPages[pk]; {
			case !ok:
				newPage[pk] = true
			case od != d:
				changedPage[pk] = true
			}
			pages = append(pages, pk)
		}
		for pk := range oldPages {
			if _, ok := newPages[pk]; !ok && same(pk) {
				gonePage[pk] = true
				pages = append(pages, pk)
			}
		}
		sort.Strings(pages)
	}
	explain()

	if old.Repeat != cfg.Repeat {
		more := 0
		for _, p := range plan {
			if p.Sample >= old.Repeat {
				more++
			}
		}
		if cfg.Repeat > old.Repeat {
			add(Added, "--repeat: %d → %d: %s to run", old.Repeat, cfg.Repeat, plural(more, "more trial"))
		} else {
			add(Refused, "--repeat: %d → %d: %s of the samples past %d would be dropped", old.Repeat, cfg.Repeat,
				plural(dropped["sample"], "finished trial"), cfg.Repeat)
		}
	}
	for _, s := range old.Sources {
		switch {
		case removedModel[s.ID()]:
			add(Refused, "model %s removed (was %s): its %s would be dropped", s.ID(), s.Flag(), plural(dropped["model:"+s.ID()], "finished trial"))
		case respecModel[s.ID()]:
			add(Refused, "model %s: %s → %s", s.ID(), s.Flag(), newSrc[s.ID()].Flag())
		}
	}
	for _, s := range cfg.Sources {
		if _, ok := oldSrc[s.ID()]; !ok {
			add(Added, "model %s (%s): %s to run", s.ID(), s.Flag(), plural(perModel[s.ID()], "trial"))
		}
	}
	for _, t := range old.Tasks {
		if removedTask[t] {
			add(Refused, "task %s removed: its %s would be dropped", t, plural(dropped["task:"+t], "finished trial"))
		}
	}
	for _, t := range cfg.Tasks {
		switch {
		case !oldTasks[t]:
			add(Added, "task %s: %s to run", t, plural(perTask[t], "trial"))
		case changedTask[t]:
			add(Changed, "task %s: its folder changed (digest %s → %s): %s to judge again", t, short(oldLock.Tasks[t]), short(lock.Tasks[t]),
				plural(perTask[t], "trial"))
			r.rerun += perTask[t]
		}
	}
	for _, pk := range pages {
		m, rest, _ := strings.Cut(pk, "\x00")
		t, c, _ := strings.Cut(rest, "\x00")
		switch {
		case newPage[pk]:
			add(Added, "model %s, task %s: page %s (there was none: no_candidate): %s to run", m, t, c, plural(perPage[pk], "trial"))
		case changedPage[pk]:
			add(Changed, "model %s, task %s: page %s changed (digest %s → %s): %s to judge again", m, t, c,
				short(oldPages[pk]), short(newPages[pk]), plural(perPage[pk], "trial"))
			r.rerun += perPage[pk]
		case gonePage[pk]:
			add(Refused, "model %s, task %s: page %s is gone: its %s would be dropped", m, t, c, plural(dropped["page:"+pk], "finished trial"))
		}
	}
	r.addUnexplained(unexplained)
	return r
}

// addUnexplained refuses finished trials the plan does not hold and no
// change explains.
func (r *reconciliation) addUnexplained(dirs []string) {
	if len(dirs) == 0 {
		return
	}
	shown := dirs
	if len(shown) > 3 {
		shown = shown[:3]
	}
	more := ""
	if len(dirs) > len(shown) {
		more = ", …"
	}
	r.changes = append(r.changes, Change{Kind: Refused,
		Text: fmt.Sprintf("%s not in the new plan would be dropped (trials/%s%s)", plural(len(dirs), "finished trial"), strings.Join(shown, ", trials/"), more)})
}

// pageKey names a model's candidate page for a task (model, task and
// candidate may hold slashes; NUL does not occur in any).
func pageKey(model, task, candidate string) string { return model + "\x00" + task + "\x00" + candidate }

// splitPageKey turns a key of Lock.Candidates (model/task/candidate) into
// a pageKey, with the models and tasks of the configuration it was
// written with. Candidate names hold no slash.
func splitPageKey(k string, cfg *Config) (string, bool) {
	for _, s := range cfg.Sources {
		rest, ok := strings.CutPrefix(k, s.ID()+"/")
		if !ok {
			continue
		}
		for _, t := range cfg.Tasks {
			if c, ok := strings.CutPrefix(rest, t+"/"); ok && c != "" && !strings.Contains(c, "/") {
				return pageKey(s.ID(), t, c), true
			}
		}
	}
	return "", false
}

func short(digest string) string { return orNone(digest[:min(12, len(digest))]) }

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// Flag is the command-line flag that gives the source.
func (s Source) Flag() string {
	switch {
	case s.Oracle:
		return "--oracle"
	case s.Fixtures:
		return "--fixtures"
	}
	return "--candidates " + s.Model + "=" + s.Dir
}
