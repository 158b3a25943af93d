package cli

import (
	"context"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/worldprobe/worldprobe/internal/contract"
	"github.com/worldprobe/worldprobe/internal/judges"
	"github.com/worldprobe/worldprobe/internal/llm"
	"github.com/worldprobe/worldprobe/internal/sharedlimit"
	"github.com/worldprobe/worldprobe/internal/store"
	"github.com/worldprobe/worldprobe/internal/task"
	"github.com/worldprobe/worldprobe/internal/trial"
)

// lookFlags choose the models of a run: the visual_judge role for
// contracts' look steps and the design score, the xr_actor role for act
// steps.
type lookFlags struct {
	ModelsFile    string
	Record        string
	Replay        string
	AllowUnpriced bool

	reg *llm.Registry // loaded by the first roleModel
	// closeShared releases the shared rate limits, if any.
	closeShared func()
	// options are given to the registry (the shared rate limits of --db).
	options []llm.Option
}

// shareLimits makes the models' rate limits buckets in the PostgreSQL
// database at url (internal/sharedlimit), shared by every process that
// judges with it: 'run --db' and its workers. It is called before the
// first roleModel; close releases the connections.
func (l *lookFlags) shareLimits(ctx context.Context, url string) error {
	pool, err := store.DialPool(ctx, url)
	if err != nil {
		return fmt.Errorf("connecting to %s for the shared rate limits: %w", store.RedactURL(url), err)
	}
	s, err := sharedlimit.OpenPostgres(ctx, pool)
	if err != nil {
		pool.Close()
		return err
	}
	l.options = append(l.options, llm.WithSharedBuckets(s))
	l.closeShared = pool.Close
	return nil
}

// close releases what shareLimits opened.
func (l *lookFlags) close() {
	if l.closeShared != nil {
		l.closeShared()
		l.closeShared = nil
	}
}

func (l *lookFlags) register(f *pflag.FlagSet) {
	f.StringVar(&l.ModelsFile, "models", "", "models file for the visual_judge role (look steps, --design) and the xr_actor role (act steps) (default \""+llm.DefaultModelsFile+"\" if present, else built-in defaults)")
	f.StringVar(&l.Record, "record", "", "record every answered model call (looks, acts, design) into `DIR` (docs/models.md)")
	f.StringVar(&l.Replay, "replay", "", "answer every model call from the recordings in `DIR`, offline")
	f.BoolVar(&l.AllowUnpriced, "allow-unpriced", false, "allow a visual_judge model missing from the pricing table (its cost is then unknown)")
}

// countModelSteps is how many look and act steps the tasks' contracts
// hold; a contract that cannot be read counts none (the run reports it
// where it loads it).
func countModelSteps(tasks []*task.Task) (looks, acts int) {
	for _, t := range tasks {
		c, err := contract.Load(t.ContractPath())
		if err != nil {
			continue
		}
		looks, acts = looks+c.Looks(), acts+c.Acts()
	}
	return looks, acts
}

// actor drives the tasks' act steps with the xr_actor role: nil, with a
// warning, when no task has one or the role's key is not set (the
// assertions after each act are then unjudged).
func (l *lookFlags) actor(ctx context.Context, io IO, tasks []*task.Task) (contract.Actor, error) {
	_, n := countModelSteps(tasks)
	if n == 0 {
		return nil, nil
	}
	return l.actorFor(ctx, io, fmt.Sprintf("the assertions after %d act step(s)", n))
}

// actorFor is the xr_actor role's actor, or nil with a warning that what
// (the assertions after which act steps) will be unjudged.
func (l *lookFlags) actorFor(ctx context.Context, io IO, what string) (contract.Actor, error) {
	m, name, why, err := l.roleModel(ctx, io, llm.XRActor)
	if err != nil {
		return nil, err
	}
	if m == nil {
		fmt.Fprintf(io.ErrOut, "WARNING: %s will be unjudged: %s\n", what, why)
		return nil, nil
	}
	return &judges.Actor{Model: m, ModelName: name}, nil
}

// looker is the judge of look steps for the tasks: nil, with a warning
// on errOut, when no task has one or when the visual_judge role has no
// model whose key is set (every look is then unjudged). A models file
// that cannot be read, or a role that cannot be had for another reason,
// is an error.
func (l *lookFlags) looker(ctx context.Context, io IO, tasks []*task.Task) (contract.Looker, error) {
	n, _ := countModelSteps(tasks)
	if n == 0 {
		return nil, nil
	}
	return l.lookerFor(ctx, io, fmt.Sprintf("%d look step(s)", n))
}

// lookerFor is the visual_judge role's judge of look steps, or nil with
// a warning that what (which look steps) will be unjudged.
func (l *lookFlags) lookerFor(ctx context.Context, io IO, what string) (contract.Looker, error) {
	m, name, why, err := l.visualModel(ctx, io)
	if err != nil {
		return nil, err
	}
	if m == nil {
		fmt.Fprintf(io.ErrOut, "WARNING: %s will be unjudged: %s\n", what, why)
		return nil, nil
	}
	return &judges.Looker{Model: m, ModelName: name}, nil
}

// designRater is the rater of run --design: the visual_judge role, or,
// with a warning, a rater that leaves every design unjudged saying why.
func (l *lookFlags) designRater(ctx context.Context, io IO) (trial.DesignRater, error) {
	m, name, why, err := l.visualModel(ctx, io)
	if err != nil {
		return nil, err
	}
	if m == nil {
		fmt.Fprintf(io.ErrOut, "WARNING: --design: every design score will be unjudged: %s\n", why)
	}
	return &judges.DesignRater{Model: m, ModelName: name, Why: why}, nil
}

// visualModel is the visual_judge role's model and its name, or no model
// and why not (its key is not set).
func (l *lookFlags) visualModel(ctx context.Context, io IO) (llm.Model, string, string, error) {
	return l.roleModel(ctx, io, llm.VisualJudge)
}

// roleModel is a role's model and its name, or no model and why not (its
// key is not set). The models file is loaded once, so every role of the
// run shares one registry and its budgets.
func (l *lookFlags) roleModel(ctx context.Context, io IO, role llm.Role) (llm.Model, string, string, error) {
	if l.reg == nil {
		reg, _, err := loadModels(io, l.ModelsFile, l.Record, l.Replay, l.AllowUnpriced, l.options...)
		if err != nil {
			return nil, "", "", usageErr("--models: %v", err)
		}
		l.reg = reg
	}
	info, name, noKey, err := roleModelInfo(ctx, l.reg, role, l.Replay)
	if err != nil {
		return nil, "", "", err
	}
	if noKey {
		return nil, name, fmt.Sprintf("no %s model is configured: the %s role's model %s needs an API key in $%s, which is not set (models: %s; docs/models.md)",
			role, role, name, info.KeyEnv, l.reg.Source()), nil
	}
	m, err := l.reg.Role(ctx, role)
	if err != nil {
		return nil, "", "", err
	}
	return m, name, "", nil
}
