package gen

// What gen.json records of an agent run ('worldprobe gen --agent'); the
// runs themselves are package agent's.

// FinishBudget: a budget (turns, tokens or cost; the agent's own or the
// models file's) ended an agent run before the model finished; the page
// written so far is kept.
const FinishBudget Finish = "budget"

// AgentSuffix marks a model's folder of agent runs:
// OUT/<model-slug>+agent/sample-<k>/<task-id>/. '+' is never part of a
// model's slug ([Slug]), so agent runs and single-shot samples of the same
// model never share a folder, nor a name on the leaderboard.
const AgentSuffix = "+agent"

// How an agent run ended: [AgentStats.EndedBy].
const (
	// EndedByFinish: the model called finish.
	EndedByFinish = "finish"
	// EndedByAnswer: a turn without a tool call; its text was the answer.
	EndedByAnswer = "answer"
	// EndedByBudget: a budget stopped the run ([AgentStats.Budget] says which).
	EndedByBudget = "budget"
	// EndedByError: the provider failed, after its retries and fallbacks.
	EndedByError = "error"
)

// AgentStats is gen.json's "agent" object: how an agent run went.
type AgentStats struct {
	// EndedBy is finish, answer, budget or error.
	EndedBy string `json:"ended_by"`
	// Budget names the budget that ended the run: turns, tokens or usd
	// (the run's own caps), trial_tokens, trial_usd, run_tokens or run_usd
	// (the models file's budgets).
	Budget string `json:"budget,omitempty"`
	// MaxTurns, MaxTokens and MaxUSD are the run's own caps (0: none).
	MaxTurns  int     `json:"max_turns"`
	MaxTokens int64   `json:"max_tokens,omitempty"`
	MaxUSD    float64 `json:"max_usd,omitempty"`
	// ToolCalls counts the calls of each tool the model made, failed ones
	// included; ToolErrors those that answered with an error.
	ToolCalls  map[string]int `json:"tool_calls"`
	ToolErrors map[string]int `json:"tool_errors,omitempty"`
	// Runs counts run_page calls, Edits write_file and edit_file calls.
	Runs  int `json:"runs"`
	Edits int `json:"edits"`
	// TestToEdit is Runs ÷ Edits, nil when the model made no edit.
	TestToEdit *float64 `json:"test_to_edit"`
	// ToolMS is the time the tools took, run_page's included (not in
	// latency_ms, which is the model's).
	ToolMS int64 `json:"tool_ms"`
	// Summary is what the model said when it called finish.
	Summary string `json:"summary,omitempty"`
	// Trajectory is the file beside gen.json that holds every turn.
	Trajectory string `json:"trajectory"`
}

// NewRecord starts the gen.json of s: the task, sample, attempt, model
// asked and digests, status failed until a page is written.
func (s *Sample) NewRecord() *Record {
	return &Record{Version: recordVersion, Task: s.Task.ID, Sample: s.Index, Attempt: s.Attempt, Status: StatusFailed,
		Model: s.Model.Name, Requested: s.Model.Spec, Role: s.Model.Role, PromptDigest: s.PromptDigest, TaskDigest: s.TaskDigest}
}
