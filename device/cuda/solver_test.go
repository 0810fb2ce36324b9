//go:build cgo

package cuda

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device/driver"
)

// These tests need no GPU and no CUDA library: they run in CI.

// CUDA 13 ships libcusolver.so.12 and CUDA 12 libcusolver.so.11; a CUDA
// 12 driver cannot run the CUDA 13 one.
func TestCusolverCandidates(t *testing.T) {
	t.Setenv(EnvCusolverLib, "")
	paths := func(driverVersion int) []string {
		var out []string
		for _, c := range libCandidatesFor("libcusolver", EnvCusolverLib, cusolverMajors(driverVersion)) {
			out = append(out, c.path)
		}
		return out
	}
	all := paths(13000)
	require.NotEmpty(t, all)
	assert.Equal(t, "libcusolver.so.12", all[0])
	assert.Contains(t, all, "/usr/local/cuda/targets/x86_64-linux/lib/libcusolver.so.12")
	assert.Contains(t, all, "libcusolver.so.11")
	for _, p := range paths(12080) {
		assert.Contains(t, p, "libcusolver.so.11")
	}
	t.Setenv(EnvCusolverLib, "/opt/x/libcusolver.so.12")
	c := libCandidatesFor("libcusolver", EnvCusolverLib, cusolverMajors(13000))
	require.Len(t, c, 1)
	assert.Equal(t, "/opt/x", c[0].dir)
}

// cuSOLVER's own dependencies beside it are loaded first: soname files
// only, in the order the loader needs them.
func TestSolverDeps(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"libcusparse.so.12", "libcublas.so.13", "libcublas.so.13.0.1", "libcublasLt.so.13",
		"libnvJitLink.so.13", "libcusolver.so.12", "libcublas.so"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), nil, 0o644))
	}
	var names []string
	for _, p := range solverDeps(dir) {
		names = append(names, filepath.Base(p))
	}
	assert.Equal(t, []string{"libnvJitLink.so.13", "libcublasLt.so.13", "libcublas.so.13", "libcusparse.so.12"}, names)
}

// A missing entry point of the library, a short workspace and the
// statuses map to the driver's error codes, naming the call.
func TestSolverErrors(t *testing.T) {
	d := &device{}
	for _, tc := range []struct {
		status int
		code   driver.Result
	}{{2, driver.OutOfMemory}, {3, driver.InvalidValue}, {9, driver.NotSupported}, {7, driver.Unknown}} {
		err := d.solverFailure(0, tc.status, 6, 0, "detail")
		var e *driver.Error
		require.ErrorAs(t, err, &e)
		assert.Equal(t, tc.code, e.Code, "status %d", tc.status)
		assert.Equal(t, "cusolverDnXgetrf", e.Call)
	}
	err := d.solverFailure(0, -1, 9, 0, "")
	require.ErrorIs(t, err, driver.ErrNotSupported)
	assert.ErrorContains(t, err, "cusolverDnXpotrf")
	err = d.solverFailure(0, -2, 6, 1024, "")
	require.ErrorIs(t, err, driver.ErrInvalidValue)
	assert.ErrorContains(t, err, "1024 bytes")
}
