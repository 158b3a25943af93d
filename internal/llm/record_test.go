package llm

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRecordThenReplayOffline(t *testing.T) {
	srv := newFakeServer(t, ok("openai_text.json"))
	dir := t.TempDir()
	models := yamlRoles("  visual_judge:\n    " + openaiRole(srv))
	req := Request{Messages: []Message{UserParts(Text("Judge the screenshot."), Image("image/png", []byte("PNGDATA")))}}

	rec := newHarness(t, models, WithRecord(dir))
	live, err := rec.chat(t, VisualJudge, req)
	require.NoError(t, err)

	path := filepath.Join(dir, "visual_judge", live.Digest+".json")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var file Recording
	require.NoError(t, json.Unmarshal(data, &file))
	require.Equal(t, recordingVersion, file.Version)
	require.Equal(t, live.Digest, file.Digest)
	require.Equal(t, VisualJudge, file.Role)
	require.Equal(t, "openai", file.Provider)
	require.Equal(t, "test-gpt", file.Model)
	require.Equal(t, "A red cube floats above a grid.", file.Response.Text)
	require.Equal(t, Part{Kind: PartImage, MediaType: "image/png", Text: "[image sha256:2d4566582844690f8634a8b2534ea5221560038c6c0650c99140759bad603ae2, 7 bytes, not stored]"},
		file.Request.Messages[0].Parts[1], "image bytes are not stored in recordings")
	require.Empty(t, file.Request.Messages[0].Parts[1].Data)

	// Replay: no server, no keys, same answer.
	srv.srv.Close()
	cfg, err := ParseConfig([]byte(models))
	require.NoError(t, err)
	reg, err := New(cfg, func(string) string { return "" }, WithReplay(dir), WithLogger(slog.New(slog.DiscardHandler)))
	require.NoError(t, err)
	m, err := reg.Role(context.Background(), VisualJudge)
	require.NoError(t, err)
	replayed, err := m.Chat(context.Background(), req)
	require.NoError(t, err)
	require.Equal(t, SourceReplay, replayed.Source)
	require.Equal(t, live.Text, replayed.Text)
	require.Equal(t, live.Usage, replayed.Usage)
	require.Equal(t, live.Digest, replayed.Digest)
	require.Equal(t, live.CostUSD, replayed.CostUSD)
	run := reg.Ledger().Run()
	require.Equal(t, 1, run.Replays)
	require.InDelta(t, 0.0045, run.CostUSD, 1e-12, "replays count the recorded cost")
}

func TestReplayMissFailsLoudly(t *testing.T) {
	dir := t.TempDir()
	reg, err := New(&Config{}, func(string) string { return "" }, WithReplay(dir), WithLogger(slog.New(slog.DiscardHandler)))
	require.NoError(t, err)
	m, err := reg.Role(context.Background(), CodeProbe)
	require.NoError(t, err)
	req := prompt("unrecorded question")

	_, err = m.Chat(context.Background(), req)
	var miss *ReplayMissError
	require.ErrorAs(t, err, &miss)
	require.ErrorIs(t, err, ErrReplayMiss)
	require.True(t, IsFatal(err))

	primary := m.(*RoleModel).Chain()[0]
	want, derr := Digest(primary.Provider, primary.Model, Request{Messages: req.Messages, Temperature: primary.Temperature, MaxTokens: primary.MaxTokens})
	require.NoError(t, derr)
	require.Equal(t, CodeProbe, miss.Role)
	require.Equal(t, want, miss.Digest)
	require.Equal(t, "llm: fatal: role code_probe (openai gpt-4.1-mini): llm: replay: no recorded response for role code_probe, request digest "+
		want+", in "+dir+" (record it with --record)", err.Error())
}

func TestRecordAndReplayExclusive(t *testing.T) {
	_, err := New(&Config{}, nil, WithRecord(t.TempDir()), WithReplay(t.TempDir()))
	require.EqualError(t, err, "llm: --record and --replay cannot be used together")
	_, err = New(&Config{}, nil, WithReplay(filepath.Join(t.TempDir(), "missing")))
	require.ErrorContains(t, err, "llm: replay folder")
}

func TestElideImagesKeepsOriginal(t *testing.T) {
	req := Request{Messages: []Message{UserParts(Image("image/png", []byte{1}))}}
	out := elideImages(req)
	require.Equal(t, []byte{1}, req.Messages[0].Parts[0].Data)
	require.Nil(t, out.Messages[0].Parts[0].Data)
	require.True(t, strings.HasPrefix(out.Messages[0].Parts[0].Text, "[image sha256:4bf5122f344554c53bde2ebb8cd2b7e3d1600ad631c385a5d7cce23c7785459a, 1 bytes"))
}
