package queue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/rivertype"
	"golang.org/x/sys/unix"
)

// orphanError is the attempt error recorded on a job found running in a
// private queue as it opens.
const orphanError = "the process judging it ended before it finished (killed?); made available again when the queue was next opened"

// Rescued is how many jobs a private queue found running as it opened
// (see Config.Private): each was left by a process that ended mid-job and
// is available again.
func (q *Queue) Rescued() int { return q.rescued }

// lockFile takes an exclusive lock on path (created if needed) for as
// long as this process holds it, or says that another process does.
func lockFile(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("locking the queue: %w", err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w: %s is locked: another worldprobe process is using this queue (its run folder); wait for it or use another folder", ErrQueueInUse, path)
		}
		return nil, fmt.Errorf("locking the queue %s: %w", path, err)
	}
	return func() { f.Close() }, nil
}

// ErrQueueInUse: another process holds a private queue.
var ErrQueueInUse = errors.New("queue in use")

// rescueOrphans makes every job still marked running available again at
// once, recording why, and returns how many there were. Only a private
// queue may: its lock proves that no other process is working them.
func rescueOrphans(ctx context.Context, exec riverdriver.Executor) (int, error) {
	// Every running job started before now; a horizon ahead of the clock
	// takes them all.
	horizon := time.Now().Add(time.Hour)
	n := 0
	var after int64
	for {
		jobs, err := exec.JobGetStuck(ctx, &riverdriver.JobGetStuckParams{AfterID: after, Max: 1000, StuckHorizon: horizon})
		if err != nil {
			return n, fmt.Errorf("listing running jobs: %w", err)
		}
		if len(jobs) == 0 {
			return n, nil
		}
		now := time.Now().UTC()
		p := &riverdriver.JobRescueManyParams{StuckHorizon: horizon}
		for _, j := range jobs {
			e, err := json.Marshal(rivertype.AttemptError{At: now, Attempt: max(j.Attempt, 0), Error: orphanError})
			if err != nil {
				return n, err
			}
			p.ID = append(p.ID, j.ID)
			p.Error = append(p.Error, e)
			p.FinalizedAt = append(p.FinalizedAt, nil)
			p.ScheduledAt = append(p.ScheduledAt, now)
			p.State = append(p.State, string(rivertype.JobStateAvailable))
			after = j.ID
		}
		if _, err := exec.JobRescueMany(ctx, p); err != nil {
			return n, fmt.Errorf("making %d running jobs available: %w", len(jobs), err)
		}
		n += len(jobs)
	}
}
