package gpuarr

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A product takes the library's recommended workspace unless a hard memory
// limit is so small that it would crowd out the arrays (more than 1/16 of
// it): then 4 MiB. Sizes at or below 4 MiB are never changed.
func TestWorkspaceSize(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct{ n, hard, want uint64 }{
		{32 * mib, 0, 32 * mib},         // no limit
		{32 * mib, 64 * mib, 4 * mib},   // bench/train's 64 MiB limit
		{32 * mib, 512 * mib, 32 * mib}, // exactly 1/16
		{32 * mib, 511 * mib, 4 * mib},  // just under
		{4096, 64 * mib, 4096},          // the host's
		{4 * mib, 8 * mib, 4 * mib},     // never below 4 MiB
		{32 * mib, 1 << 40, 32 * mib},   // a large limit
	} {
		assert.Equal(t, c.want, workspaceSize(c.n, c.hard), "n %d, hard %d", c.n, c.hard)
	}
}
