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
}

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
