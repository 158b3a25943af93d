package agent

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
)

// finish is finish: the work is done, index.html is the answer.
type finish struct{}

func (finish) Name() string { return "finish" }

func (finish) Description() string {
	return "End the work: index.html as it is now is the answer. Call it once the page is complete."
}

func (finish) Schema() json.RawMessage {
	return schema(`"summary":{"type":"string","description":"one or two sentences on what the page does"}`)
}

func (finish) Run(_ context.Context, env *Env, args json.RawMessage) (string, error) {
	var a struct {
		Summary string `json:"summary"`
	}
	if err := decode(args, &a); err != nil {
		return "", err
	}
	page, err := env.Workspace.Page()
	if err != nil {
		return "", &InfraError{Err: err}
	}
	if strings.TrimSpace(string(page)) == "" {
		return "", errors.New("index.html is empty: write the page with write_file before calling finish")
	}
	env.Finished, env.Summary = true, a.Summary
	return "finished\n", nil
}
