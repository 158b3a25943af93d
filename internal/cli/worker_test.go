package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/pgtest"
	"github.com/worldprobe/worldprobe/internal/testenv"
)

// lines collects a process's stderr and reports each line to watch.
type lines struct {
	mu  sync.Mutex
	all []string
}

func (l *lines) read(r io.Reader, watch func(string)) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		l.mu.Lock()
		l.all = append(l.all, sc.Text())
		l.mu.Unlock()
		if watch != nil {
			watch(sc.Text())
		}
	}
}

func (l *lines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.all, "\n")
}

// TestWorkersSurviveAKilledWorker: 'run --db --jobs 0' enqueues eight
// trials in a PostgreSQL started by the test; two 'worldprobe worker'
// processes judge them; the first is killed (SIGKILL) in the middle of a
// trial. River rescues that trial's job (--rescue-after 30s) and the other
// worker judges it: the run completes and every trial is in the results
// exactly once, in the database and in the run folder.
func TestWorkersSurviveAKilledWorker(t *testing.T) {
	testenv.Slow(t) // two browsers, a database and River's rescue (its leader checks every 30 s at most)
	ctx := context.Background()
	url := pgtest.Start(t).NewDB(t)
	out := filepath.Join(t.TempDir(), "run")
	suite := filepath.Join("..", "queue", "testdata", "suite")

	enq := startCommand(t, "run", suite, "--oracle", "--fixtures", "--repeat", "2", "--db", url, "--jobs", "0", "--out", out, "--web", webDir(t))

	conn, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	defer conn.Close(ctx)
	require.Eventually(t, func() bool {
		var n int
		return conn.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE kind = 'trial'`).Scan(&n) == nil && n == 8
	}, 120*time.Second, 100*time.Millisecond, "the run enqueues 2 tasks × (reference + fixture) × 2 samples")

	worker := func(watch func(string)) (*exec.Cmd, *lines, chan error) {
		cmd := worldprobeCommand(t, "worker", "--db", url, "--jobs", "1", "--drain", "--rescue-after", "30s", "--web", webDir(t))
		stderr, err := cmd.StderrPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		l := &lines{}
		done := make(chan error, 1)
		go func() { l.read(stderr, watch); done <- cmd.Wait() }()
		return cmd, l, done
	}
	judging := regexp.MustCompile(`^judging (\S+) \(job (\d+), attempt 1\)$`)
	killed := make(chan [2]string, 1)
	var a *exec.Cmd
	var aStarted sync.WaitGroup
	aStarted.Add(1)
	a, aLines, aDone := worker(func(line string) {
		aStarted.Wait()
		if m := judging.FindStringSubmatch(line); m != nil {
			select {
			case killed <- [2]string{m[1], m[2]}:
				a.Process.Kill() // mid-trial: it has just started judging it
			default:
			}
		}
	})
	aStarted.Done()
	_, bLines, bDone := worker(nil)

	var victim [2]string
	select {
	case victim = <-killed:
	case <-time.After(180 * time.Second):
		t.Fatalf("worker A judged nothing:\n%s", aLines)
	}
	<-aDone
	select {
	case err := <-bDone:
		require.NoError(t, err, "worker B:\n%s", bLines)
	case <-time.After(300 * time.Second):
		t.Fatalf("worker B did not drain the queue:\n%s", bLines)
	}
	select {
	case err := <-enq.done:
		require.NoError(t, err, "run:\n%s\n%s", enq.stderr.String(), enq.stdout.String())
	case <-time.After(60 * time.Second):
		t.Fatalf("run did not end:\n%s", enq.stderr.String())
	}
	require.Contains(t, enq.stdout.String(), "8 trials (8 run, 0 kept)")
	require.Contains(t, bLines.String(), "judged "+victim[0]+":", "worker B judged the killed worker's trial")

	// Every trial once: eight keys in the database, eight result.json.
	abs, err := filepath.Abs(out)
	require.NoError(t, err)
	rows, err := conn.Query(ctx, `SELECT key FROM worldprobe_trials WHERE run = $1`, abs)
	require.NoError(t, err)
	keys, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	require.Len(t, keys, 8)
	trials := readTrials(t, out)
	require.Len(t, trials, 8)
	var fromFiles []string
	for _, tr := range trials {
		fromFiles = append(fromFiles, tr.Key)
	}
	sort.Strings(keys)
	sort.Strings(fromFiles)
	require.Equal(t, fromFiles, keys)

	// The killed worker's job was rescued and ran again; every job is done.
	victimID, err := strconv.ParseInt(victim[1], 10, 64)
	require.NoError(t, err)
	var state string
	var attempt int
	var errs []string
	require.NoError(t, conn.QueryRow(ctx, `SELECT state, attempt, array(SELECT e->>'error' FROM jsonb_array_elements(to_jsonb(errors)) e)
		FROM river_job WHERE id = $1`, victimID).Scan(&state, &attempt, &errs))
	require.Equal(t, "completed", state)
	// Its first attempt died with worker A and was rescued; on a loaded
	// machine a later attempt may have hit the trial time limit too
	// (--rescue-after) and been retried: every failed attempt left one
	// of these two errors, and the last attempt succeeded.
	require.Equal(t, len(errs)+1, attempt, "errors: %q", errs)
	require.Equal(t, "Stuck job rescued by JobRescuer", errs[0])
	for _, e := range errs[1:] {
		if e != "Stuck job rescued by JobRescuer" {
			require.Contains(t, e, "stopped before it finished")
		}
	}
	t.Logf("the killed worker's trial took %d attempts: %q", attempt, errs)
	var unfinished int
	require.NoError(t, conn.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE kind = 'trial' AND state <> 'completed'`).Scan(&unfinished))
	require.Zero(t, unfinished, fmt.Sprintf("worker A:\n%s\nworker B:\n%s", aLines, bLines))
}

// The queue flags' mistakes are usage errors, found before anything runs.
func TestQueueFlagsUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"worker"}, "worker needs --db, a PostgreSQL URL"},
		{[]string{"worker", "--db", "sqlite:///x"}, "worker needs --db, a PostgreSQL URL"},
		{[]string{"run", tinySuite(), "--oracle", "--executor", "celery"}, `--executor "celery": pool or river`},
		{[]string{"run", tinySuite(), "--oracle", "--db", "mysql://u:secret@h/db"}, `--db "mysql://u:xxxxx@h/db": want a PostgreSQL URL`},
		{[]string{"run", tinySuite(), "--oracle", "--jobs", "0"}, "--jobs must be at least 1 (0 only with --db"},
		{[]string{"run", tinySuite(), "--oracle", "--executor", "river", "--rescue-after", "0s"}, "--rescue-after must be positive"},
		{[]string{"worker", "--db", "postgres://u@127.0.0.1:1/db", "--rescue-after", "-1s"}, "--rescue-after must be positive"},
		{[]string{"worker", "--db", "postgres://u@127.0.0.1:1/db", "--stop-grace", "0s"}, "--stop-grace must be positive"},
	} {
		code, _, stderr := execute(t, c.args...)
		require.Equal(t, ExitUsage, code, "%v: %s", c.args, stderr)
		require.Contains(t, stderr, c.want, c.args)
		require.NotContains(t, stderr, "secret")
	}
}

// startedCommand is a worldprobe process a test started and lets run
// beside it, its output kept.
type startedCommand struct {
	stdout, stderr strings.Builder
	// done receives the process's end (its Wait).
	done chan error
}

// startCommand starts the worldprobe binary with args (see
// worldprobeCommand) and returns at once.
func startCommand(t *testing.T, args ...string) *startedCommand {
	t.Helper()
	c := &startedCommand{done: make(chan error, 1)}
	cmd := worldprobeCommand(t, args...)
	cmd.Stdout, cmd.Stderr = &c.stdout, &c.stderr
	require.NoError(t, cmd.Start())
	go func() { c.done <- cmd.Wait() }()
	return c
}
