package gen

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/worldprobe/worldprobe/internal/atomicfile"
	"github.com/worldprobe/worldprobe/internal/llm"
	"github.com/worldprobe/worldprobe/internal/task"
)

// Files of a sample's folder.
const (
	// PageFile is the page, where 'worldprobe run --candidates' reads it.
	PageFile = task.PageFile
	// RecordFile is the sample's [Record], written last.
	RecordFile = "gen.json"
	// ReplyFile is the model's raw reply, continuations joined.
	ReplyFile = "reply.md"
)

// recordVersion is the format version of gen.json.
const recordVersion = 1

// Status is whether a sample gave a page.
type Status string

// Statuses of a sample.
const (
	// StatusDone: the page was written.
	StatusDone Status = "done"
	// StatusFailed: the sample gave no page (FinishReason and Error say
	// why); it is generated again only with --retry-failed.
	StatusFailed Status = "failed"
)

// Record is a sample's gen.json: what was asked, who answered, what it
// cost and how it ended.
type Record struct {
	// Version is the file format version, 1.
	Version int `json:"version"`
	// Task is the task id.
	Task string `json:"task"`
	// Sample is the sample's index, from 1; Attempt counts its generations
	// (2 after one --retry-failed or --regenerate-changed).
	Sample  int `json:"sample"`
	Attempt int `json:"attempt"`
	// Status is done or failed.
	Status Status `json:"status"`
	// Model is the provider/model that answered (the role's primary model
	// when no call was answered); ServedModel the name the provider
	// reported; Requested the --model given; Role the role asked.
	Model       string   `json:"model"`
	ServedModel string   `json:"served_model,omitempty"`
	Requested   string   `json:"requested"`
	Role        llm.Role `json:"role"`
	// FallbackIndex is 0 when the role's primary model answered, i for
	// its i-th fallback.
	FallbackIndex int `json:"fallback_index,omitempty"`
	// Source is live, cache or replay.
	Source llm.Source `json:"source,omitempty"`
	// TokensIn and TokensOut sum the calls' input and output tokens;
	// CachedTokensIn is the part of TokensIn read from a prompt cache.
	TokensIn       int64 `json:"tokens_in"`
	TokensOut      int64 `json:"tokens_out"`
	CachedTokensIn int64 `json:"cached_tokens_in,omitempty"`
	// CostUSD sums the calls' cost in US dollars.
	CostUSD float64 `json:"cost_usd"`
	// LatencyMS sums the calls' latency in milliseconds.
	LatencyMS int64 `json:"latency_ms"`
	// FinishReason is how the generation ended (stop, truncated, refusal,
	// no_html, error, other).
	FinishReason Finish `json:"finish_reason"`
	// Turns counts the calls answered (continuations included);
	// StopReasons has each one's stop reason.
	Turns       int              `json:"turns"`
	StopReasons []llm.StopReason `json:"stop_reasons,omitempty"`
	// PromptDigest is the sha256 of the exact prompt ([Prompt.Digest]);
	// TaskDigest that of the task folder ([task.Task.Digest]); PageDigest
	// that of the page written.
	PromptDigest string `json:"prompt_digest"`
	TaskDigest   string `json:"task_digest"`
	PageDigest   string `json:"page_digest,omitempty"`
	// Extraction says how the reply became the page: what was inlined,
	// dropped or missing.
	Extraction *Extraction `json:"extraction,omitempty"`
	// Error says why the sample failed or was cut short.
	Error string `json:"error,omitempty"`
	// Agent is what an agent run did ('gen --agent'); nil for a
	// single-shot sample.
	Agent *AgentStats `json:"agent,omitempty"`
	// Repair is set on the record of a repaired page (written by package
	// repair in its own candidates folder): "error-only" or "feedback"
	// (result.RepairErrorOnly, result.RepairFeedback). 'worldprobe run'
	// reads it into each trial's repair, so that repaired pages are scored
	// apart from first-shot ones. Empty for a first-shot page.
	Repair string `json:"repair,omitempty"`
	// Repaired says how the page was repaired. The record's tokens, cost,
	// latency and turns are the first shot's and the repair's together, so
	// that RoA and TEM price the whole page.
	Repaired *RepairLog `json:"repaired,omitempty"`
}

// RepairLog is what a repaired page's gen.json records of its repair.
type RepairLog struct {
	// Mode is --repair-mode: errors or feedback.
	Mode string `json:"mode"`
	// MaxRounds is --repair: the most rounds the repair could run.
	MaxRounds int `json:"max_rounds"`
	// FirstShot is the first-shot page the repair started from.
	FirstShot FirstShot `json:"first_shot"`
	// Rounds are the rounds run, in order; none when the first check
	// found nothing (no call was made).
	Rounds []RepairRound `json:"rounds"`
	// End says how the repair ended.
	End RepairEnd `json:"end"`
	// Remaining counts what the last check of the page found: 0 when it
	// raised no error (errors mode) or passed every check (feedback mode).
	Remaining int `json:"remaining"`
	// Calls, TokensIn, TokensOut, CostUSD and LatencyMS are the repair's
	// own calls (the record's totals add the first shot's).
	Calls     int     `json:"calls"`
	TokensIn  int64   `json:"tokens_in"`
	TokensOut int64   `json:"tokens_out"`
	CostUSD   float64 `json:"cost_usd"`
	LatencyMS int64   `json:"latency_ms"`
}

// FirstShot is the first-shot sample a repair started from, as its own
// gen.json recorded it.
type FirstShot struct {
	// Attempt and Status are the first-shot record's; PageDigest is the
	// sha256 of its page ("" when it has none).
	Attempt    int    `json:"attempt"`
	Status     Status `json:"status"`
	PageDigest string `json:"page_digest,omitempty"`
	// TokensIn, TokensOut, CostUSD, LatencyMS and Turns are what making
	// it took.
	TokensIn  int64   `json:"tokens_in"`
	TokensOut int64   `json:"tokens_out"`
	CostUSD   float64 `json:"cost_usd"`
	LatencyMS int64   `json:"latency_ms"`
	Turns     int     `json:"turns"`
}

// RepairRound is one round of a repair: the page was checked, what the
// check found went to the model with the page, and its edits were
// applied (a reply whose edits did not all apply answered with the
// reasons, up to twice).
type RepairRound struct {
	// Round counts from 1.
	Round int `json:"round"`
	// Findings counts what the check before the round found and sent.
	Findings int `json:"findings"`
	// Calls counts the round's calls answered (the first and the
	// retries).
	Calls int `json:"calls"`
	// EditsApplied and EditsRejected count the round's edits; Rejections
	// are the reasons given to the model (refused edits, unreadable
	// blocks, a reply without edits).
	EditsApplied  int      `json:"edits_applied"`
	EditsRejected int      `json:"edits_rejected"`
	Rejections    []string `json:"rejections,omitempty"`
	// Rewrite is set when the model answered with a whole new page
	// instead of edits; it replaced the page.
	Rewrite bool `json:"rewrite,omitempty"`
	// Changed says whether the round changed the page.
	Changed bool `json:"changed"`
	// StopReasons are the calls' stop reasons.
	StopReasons []llm.StopReason `json:"stop_reasons,omitempty"`
	// TokensIn, TokensOut, CostUSD and LatencyMS sum the round's calls.
	TokensIn  int64   `json:"tokens_in"`
	TokensOut int64   `json:"tokens_out"`
	CostUSD   float64 `json:"cost_usd"`
	LatencyMS int64   `json:"latency_ms"`
	// Model is the provider/model that answered, when a fallback did.
	Model string `json:"model,omitempty"`
	// Error says why the round's call failed (the provider, after its
	// retries and fallbacks, or the sample's budget).
	Error string `json:"error,omitempty"`
}

// RepairEnd is how a repair ended: gen.json's repaired.end.
type RepairEnd string

// Ends of a repair.
const (
	// RepairNothingToFix: the first-shot page's check found nothing, so
	// nothing was sent; the page is the first-shot page.
	RepairNothingToFix RepairEnd = "nothing_to_fix"
	// RepairFixed: after a round, the check found nothing.
	RepairFixed RepairEnd = "fixed"
	// RepairOutOfRounds: every round was run and the last check still
	// found something (Remaining).
	RepairOutOfRounds RepairEnd = "out_of_rounds"
	// RepairUnchanged: a round's answers changed nothing (no edit
	// applied, after the retries); later rounds would send the same.
	RepairUnchanged RepairEnd = "unchanged"
	// RepairError: a call failed; the page as repaired so far is kept
	// (--retry-failed repairs it again).
	RepairError RepairEnd = "error"
	// RepairNoPage: the first shot gave no page: there is nothing to
	// repair, and the repaired sample is failed too.
	RepairNoPage RepairEnd = "no_page"
)

// ReadRecord reads dir/gen.json; nil without error when there is none
// (or it cannot be parsed: a sample never finished).
func ReadRecord(dir string) (*Record, error) {
	b, err := os.ReadFile(filepath.Join(dir, RecordFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", filepath.Join(dir, RecordFile), err)
	}
	var r Record
	if json.Unmarshal(b, &r) != nil || r.Version == 0 || r.Status == "" {
		return nil, nil
	}
	return &r, nil
}

// write stores a generated sample in its folder: the page (or, for a
// failed sample, the removal of an earlier one), the raw reply, and gen.json
// last, each atomically.
func write(s *Sample, g *Generation) (*Record, error) {
	if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating %s: %w", s.Dir, err)
	}
	r := &Record{
		Version: recordVersion, Task: s.Task.ID, Sample: s.Index, Attempt: s.Attempt, Status: StatusFailed,
		Model: s.Model.Name, ServedModel: g.ServedModel, Requested: s.Model.Spec, Role: s.Model.Role,
		FallbackIndex: g.FallbackIndex, Source: g.Source,
		TokensIn: g.Usage.InputTokens, TokensOut: g.Usage.OutputTokens, CachedTokensIn: g.Usage.CachedInputTokens,
		CostUSD: g.CostUSD, LatencyMS: g.Latency.Milliseconds(), FinishReason: g.Finish, Turns: g.Turns, StopReasons: g.StopReasons,
		PromptDigest: s.PromptDigest, TaskDigest: s.TaskDigest, Error: g.Err,
	}
	if g.Provider != "" {
		r.Model = g.Provider + "/" + g.Model
	}
	if g.Turns > 0 {
		ex := g.Extraction
		r.Extraction = &ex
	}
	page := filepath.Join(s.Dir, PageFile)
	if html := g.Extraction.HTML; html != "" {
		if err := atomicfile.Write(page, []byte(html)); err != nil {
			return nil, err
		}
		sum := sha256.Sum256([]byte(html))
		r.Status, r.PageDigest = StatusDone, hex.EncodeToString(sum[:])
	} else if err := removeIfExists(page); err != nil {
		return nil, err
	}
	reply := filepath.Join(s.Dir, ReplyFile)
	if g.Reply != "" {
		if err := atomicfile.Write(reply, []byte(g.Reply)); err != nil {
			return nil, err
		}
	} else if err := removeIfExists(reply); err != nil {
		return nil, err
	}
	if err := atomicfile.WriteJSON(filepath.Join(s.Dir, RecordFile), r); err != nil {
		return nil, err
	}
	return r, nil
}

func removeIfExists(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("removing the earlier %s: %w", path, err)
	}
	return nil
}
