package llm

import (
	"fmt"
	"slices"
)

// Role is a job in the harness that calls a model, e.g. the visual judge.
type Role string

// The roles of the harness.
const (
	// Generator writes the world (the app under test).
	Generator Role = "generator"
	// Repairer fixes a world that failed to load or crashed.
	Repairer Role = "repairer"
	// Navigator moves through a world to reach targets.
	Navigator Role = "navigator"
	// CodeProbe reads the world's code to find checkable claims.
	CodeProbe Role = "code_probe"
	// VisualJudge scores screenshots against the brief.
	VisualJudge Role = "visual_judge"
	// BlindIdentifier names what a world shows without seeing the brief.
	BlindIdentifier Role = "blind_identifier"
	// EvidenceAgent gathers and weighs evidence for each claim.
	EvidenceAgent Role = "evidence_agent"
	// XRActor drives an XR session adaptively.
	XRActor Role = "xr_actor"
	// Extract reads where a world places its regions from its code: the
	// world judge's WC002 classify and extract calls.
	Extract Role = "extract"
)

// Roles returns every role, in a stable order.
func Roles() []Role {
	return []Role{Generator, Repairer, Navigator, CodeProbe, VisualJudge, BlindIdentifier, EvidenceAgent, XRActor, Extract}
}

// Valid reports whether r is one of [Roles].
func (r Role) Valid() bool { return slices.Contains(Roles(), r) }

// ParseRole checks s names a role.
func ParseRole(s string) (Role, error) {
	r := Role(s)
	if !r.Valid() {
		return "", fmt.Errorf("llm: unknown role %q (known: %v)", s, Roles())
	}
	return r, nil
}
