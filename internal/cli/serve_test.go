package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/result"
	"github.com/worldprobe/worldprobe/internal/store"
)

// lockedBuffer is a bytes.Buffer a command writes while the test reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestServeCommand: 'worldprobe serve RUN' listens where --addr says,
// prints the address, answers, and exits 0 when interrupted (the
// context Main cancels on SIGINT); without a run folder or with one that
// has no results it says so.
func TestServeCommand(t *testing.T) {
	code, _, errOut := execute(t, "serve")
	require.Equal(t, ExitUsage, code)
	require.Contains(t, errOut, "give a run folder or --db")

	empty := t.TempDir()
	code, _, errOut = execute(t, "serve", empty)
	require.Equal(t, ExitInfrastructure, code)
	require.Contains(t, errOut, "opening the results database: stat "+filepath.Join(empty, "results.db")+": no such file or directory")
	_, err := os.Stat(filepath.Join(empty, "results.db"))
	require.ErrorIs(t, err, os.ErrNotExist, "serve creates no database")

	dir := t.TempDir()
	db, err := store.OpenSQLite(context.Background(), filepath.Join(dir, "results.db"))
	require.NoError(t, err)
	require.NoError(t, db.Save(context.Background(), &result.Trial{Key: "k", Task: "simulation/ball", Category: "simulation", Model: "oracle",
		Candidate: "solution", Outcome: result.OutcomeOK, Pass: true, VCov: 1}))
	require.NoError(t, db.Close())

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errBuf lockedBuffer
	done := make(chan ExitCode, 1)
	go func() {
		done <- Execute(ctx, []string{"serve", dir, "--addr", "127.0.0.1:0"}, IO{In: strings.NewReader(""), Out: &out, ErrOut: &errBuf, Getenv: func(string) string { return "" }})
	}()
	addr := regexp.MustCompile(`at (http://127\.0\.0\.1:\d+/) \(Ctrl-C stops\)`)
	deadline := time.Now().Add(time.Minute)
	for addr.FindStringSubmatch(out.String()) == nil {
		require.True(t, time.Now().Before(deadline), "serve printed no address: %q %q", out.String(), errBuf.String())
		time.Sleep(20 * time.Millisecond)
	}
	url := addr.FindStringSubmatch(out.String())[1]
	require.Equal(t, "serving "+dir+" at "+url+" (Ctrl-C stops)\n", out.String())
	resp, err := http.Get(url + "api/progress")
	require.NoError(t, err)
	var p struct{ Done int }
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&p))
	resp.Body.Close()
	require.Equal(t, 1, p.Done)
	cancel()
	require.Equal(t, ExitOK, <-done, errBuf.String())
}
