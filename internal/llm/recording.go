package llm

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// recordingVersion is the format version of recording files.
const recordingVersion = 1

// Recording is one recorded call, stored as dir/<role>/<digest>.json.
type Recording struct {
	// Version is the file format version.
	Version int `json:"version"`
	// Digest is the request digest against the role's primary model.
	Digest string `json:"digest"`
	// Role is the role that asked.
	Role Role `json:"role"`
	// Provider is the role's primary provider when recorded.
	Provider string `json:"provider"`
	// Model is the role's primary model when recorded.
	Model string `json:"model"`
	// Request is the request for reading; image bytes are replaced by
	// their SHA-256 and size.
	Request Request `json:"request"`
	// Response is the answer replayed.
	Response Response `json:"response"`
}

// RecordStore reads and writes recordings in a folder.
type RecordStore struct {
	dir string
}

// NewRecordStore returns a store in dir; it is created on first write.
func NewRecordStore(dir string) *RecordStore { return &RecordStore{dir: dir} }

// Dir returns the folder.
func (s *RecordStore) Dir() string { return s.dir }

func (s *RecordStore) path(role Role, digest string) string {
	return filepath.Join(s.dir, string(role), digest+".json")
}

// Load returns the recording of role's request digest, or a
// *[ReplayMissError] when there is none.
func (s *RecordStore) Load(role Role, digest string) (*Recording, error) {
	data, err := os.ReadFile(s.path(role, digest))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &ReplayMissError{Role: role, Digest: digest, Dir: s.dir}
	}
	if err != nil {
		return nil, fmt.Errorf("llm: read recording: %w", err)
	}
	var rec Recording
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, fmt.Errorf("llm: recording %s: %w", s.path(role, digest), err)
	}
	return &rec, nil
}

// Save writes rec.
func (s *RecordStore) Save(rec *Recording) error {
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return fmt.Errorf("llm: write recording: %w", err)
	}
	return writeFileAtomic(s.path(rec.Role, rec.Digest), data)
}

// elideImages returns a copy of req whose inline images are replaced by a
// text note with their hash and size, to keep recordings small.
func elideImages(req Request) Request {
	msgs := make([]Message, len(req.Messages))
	for i, m := range req.Messages {
		parts := make([]Part, len(m.Parts))
		for j, p := range m.Parts {
			if p.Kind == PartImage && len(p.Data) > 0 {
				p = Part{Kind: PartImage, MediaType: p.MediaType,
					Text: fmt.Sprintf("[image sha256:%x, %d bytes, not stored]", sha256.Sum256(p.Data), len(p.Data))}
			}
			parts[j] = p
		}
		m.Parts = parts
		msgs[i] = m
	}
	req.Messages = msgs
	return req
}
