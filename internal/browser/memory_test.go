package browser

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPageBlobBudget: a page may hold 256 MiB of Blobs, less when its
// memory cap is smaller, and less when so many pages run at once that
// together they would pass 1 GiB (half of Chromium's in-memory limit for
// Blobs); no budget without a memory cap.
func TestPageBlobBudget(t *testing.T) {
	for _, tc := range []struct {
		perPage int64
		jobs    int
		want    int64
	}{
		{DefaultPageMemory, 1, 256 << 20},
		{DefaultPageMemory, 4, 256 << 20},
		{DefaultPageMemory, 5, (1 << 30) / 5},
		{DefaultPageMemory, 9, (1 << 30) / 9},
		{100 << 20, 2, 100 << 20},
		{-1, 9, 0},
	} {
		require.Equal(t, tc.want, MemoryLimits{PerPage: tc.perPage}.BlobBudget(tc.jobs), "per page %d, %d jobs", tc.perPage, tc.jobs)
	}
}
