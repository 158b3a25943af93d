package judges

import (
	"context"
	"errors"
	"time"

	"github.com/worldprobe/worldprobe/internal/browser"
	"github.com/worldprobe/worldprobe/internal/resolve"
	"github.com/worldprobe/worldprobe/internal/trial"
)

// ErrOverloaded reports that a page missed its deadline while the machine
// was overloaded, on every attempt, and a blank page could not run
// promptly either: the machine's fault, not the page's, so no verdict is
// recorded (compare again on a quieter machine).
var ErrOverloaded = errors.New("the machine was too overloaded to judge the page")

// Machine is how a judge that loads pages tells the machine's trouble from
// the page's (trial.Machine): a page that still misses its deadline under
// overload, with a blank page slow too, makes the judge return
// ErrOverloaded.
type Machine = trial.Machine

// withDeadline calls look with the page's deadline, and again as Machine
// says while the page misses it (look's bool) under overload.
func withDeadline[T any](ctx context.Context, m Machine, b *browser.Browser, res *resolve.Resolver, deadline time.Duration,
	look func(deadline time.Duration) (T, bool, error)) (T, error) {
	v, _, err := trial.RetryUnderLoad(ctx, m, b, res, deadline, ErrOverloaded, look, nil)
	return v, err
}
