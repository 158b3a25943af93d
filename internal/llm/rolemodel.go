package llm

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// RoleModel is the [Model] of one role: its primary model and fallback
// chain, with budgets, recordings and replay handled around them.
type RoleModel struct {
	reg   *Registry
	role  Role
	chain []*endpoint
}

// Role returns the role.
func (m *RoleModel) Role() Role { return m.role }

// Chain returns the primary model followed by the usable fallbacks.
func (m *RoleModel) Chain() []ResolvedModel {
	out := make([]ResolvedModel, len(m.chain))
	for i, ep := range m.chain {
		out[i] = ep.m
	}
	return out
}

// Chat sends req along the chain: budgets are checked first; in replay
// mode the answer comes from the recording; otherwise each model is tried
// in turn with retries, and the answer is recorded in record mode.
func (m *RoleModel) Chat(ctx context.Context, req Request) (*Response, error) {
	if len(req.Messages) == 0 {
		return nil, fmt.Errorf("llm: role %s: request has no messages", m.role)
	}
	primary := m.chain[0]
	preq := primary.apply(req)
	digest, err := Digest(primary.m.Provider, primary.m.Model, preq)
	if err != nil {
		return nil, fmt.Errorf("llm: role %s: %w", m.role, err)
	}
	if err := m.reg.budgets.check(m.reg.ledger, TrialFromContext(ctx)); err != nil {
		m.reg.emit(ctx, Event{Kind: EventBudgetExceeded, Role: m.role, Provider: primary.m.Provider, Model: primary.m.Model, Error: err.Error()})
		return nil, err
	}
	if m.reg.replay != nil {
		return m.replayed(ctx, digest)
	}
	resp, err := m.alongChain(ctx, req)
	if err != nil {
		m.reg.emit(ctx, Event{Kind: EventFailed, Role: m.role, Provider: primary.m.Provider, Model: primary.m.Model, Error: err.Error()})
		return nil, err
	}
	resp.Digest = digest
	if m.reg.record != nil {
		rec := &Recording{Version: recordingVersion, Digest: digest, Role: m.role,
			Provider: primary.m.Provider, Model: primary.m.Model, Request: elideImages(preq), Response: *resp}
		if err := m.reg.record.Save(rec); err != nil {
			return nil, fmt.Errorf("llm: role %s: record: %w", m.role, err)
		}
	}
	return resp, nil
}

// replayed answers from the recording of digest.
func (m *RoleModel) replayed(ctx context.Context, digest string) (*Response, error) {
	primary := m.chain[0].m
	rec, err := m.reg.replay.Load(m.role, digest)
	if err != nil {
		var miss *ReplayMissError
		if errors.As(err, &miss) {
			err = &FatalError{Role: m.role, Provider: primary.Provider, Model: primary.Model, Err: miss}
		}
		m.reg.emit(ctx, Event{Kind: EventFailed, Role: m.role, Provider: primary.Provider, Model: primary.Model, Error: err.Error()})
		return nil, err
	}
	resp := rec.Response
	resp.Role, resp.Source, resp.Digest = m.role, SourceReplay, digest
	// Replays count the recorded usage and cost, so budgets and reports
	// behave as in the recorded run.
	m.reg.ledger.Add(Call{Time: m.reg.clock.Now(), Role: m.role, Trial: TrialFromContext(ctx), Provider: resp.Provider,
		Model: resp.Model, Usage: resp.Usage, CostUSD: resp.CostUSD, Latency: resp.Latency, Attempts: 1, Source: SourceReplay})
	m.reg.emit(ctx, Event{Kind: EventReplayed, Role: m.role, Provider: resp.Provider, Model: resp.Model, Usage: resp.Usage, CostUSD: resp.CostUSD})
	return &resp, nil
}

// alongChain tries each model in turn. Fatal errors, budget stops and a
// cancelled context end the chain at once; other failures fall back.
func (m *RoleModel) alongChain(ctx context.Context, req Request) (*Response, error) {
	var errs []error
	for i, ep := range m.chain {
		resp, err := ep.chat(ctx, m.role, req)
		if err == nil {
			resp.FallbackIndex = i
			return resp, nil
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("llm: role %s: %w", m.role, ctx.Err())
		}
		if IsFatal(err) || errors.Is(err, ErrBudgetExceeded) {
			return nil, err
		}
		errs = append(errs, err)
		if i+1 < len(m.chain) {
			m.reg.emit(ctx, Event{Kind: EventFallback, Role: m.role, Provider: ep.m.Provider, Model: ep.m.Model,
				Next: m.chain[i+1].m.String(), Error: err.Error()})
		}
	}
	return nil, &ChainError{Role: m.role, Errs: errs}
}

// ChainError reports that every model of a role's chain failed; it wraps
// each model's error (errors.Is / errors.As see them all).
type ChainError struct {
	// Role is the role.
	Role Role
	// Errs holds one error per model tried, in chain order.
	Errs []error
}

// Error lists the failures.
func (e *ChainError) Error() string {
	if len(e.Errs) == 1 {
		return fmt.Sprintf("llm: role %s: %v", e.Role, e.Errs[0])
	}
	parts := make([]string, len(e.Errs))
	for i, err := range e.Errs {
		parts[i] = fmt.Sprintf("[%d] %v", i+1, err)
	}
	return fmt.Sprintf("llm: role %s: all %d models failed: %s", e.Role, len(e.Errs), strings.Join(parts, "; "))
}

// Unwrap returns the errors of the models.
func (e *ChainError) Unwrap() []error { return e.Errs }
