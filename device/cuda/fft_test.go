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

// CUDA 13 ships libcufft.so.12 and CUDA 12 libcufft.so.11; a CUDA 12
// driver cannot run the CUDA 13 one. GPUARR_CUFFT_LIB replaces the list.
func TestCufftCandidates(t *testing.T) {
	t.Setenv(EnvCufftLib, "")
	var all []string
	for _, c := range libCandidatesFor("libcufft", EnvCufftLib, cufftMajors(13000)) {
		all = append(all, c.path)
	}
	assert.Equal(t, "libcufft.so.12", all[0])
	assert.Contains(t, all, "/usr/local/cuda/lib64/libcufft.so.12")
	assert.Contains(t, all, "libcufft.so.11")
	for _, c := range libCandidatesFor("libcufft", EnvCufftLib, cufftMajors(12040)) {
		assert.Contains(t, c.path, "libcufft.so.11")
	}
	t.Setenv(EnvCufftLib, "/opt/x/libcufft.so.12")
	c := libCandidatesFor("libcufft", EnvCufftLib, cufftMajors(13000))
	require.Len(t, c, 1)
	assert.Equal(t, "/opt/x", c[0].dir)
	err := loadError(driver.FFTLibrary, EnvCufftLib, c, "no such file")
	require.ErrorIs(t, err, driver.ErrNotSupported)
	assert.ErrorContains(t, err, "libcufft.so.12 or libcufft.so.11")
	assert.ErrorContains(t, err, EnvCufftLib)
}

// Only nvJitLink's soname file beside a candidate is preloaded.
func TestFFTDeps(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"libnvJitLink.so.13", "libnvJitLink.so", "libnvJitLink.so.13.0.1", "libcublas.so.13"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), nil, 0o644))
	}
	assert.Equal(t, []string{filepath.Join(dir, "libnvJitLink.so.13")}, fftDeps(dir))
}

// The statuses map to the driver's error codes, naming the call and the
// status.
func TestFFTErrors(t *testing.T) {
	d := &device{}
	for _, tc := range []struct {
		status int
		code   driver.Result
		name   string
	}{{2, driver.OutOfMemory, "CUFFT_ALLOC_FAILED"}, {8, driver.InvalidValue, "CUFFT_INVALID_SIZE"},
		{16, driver.NotSupported, "CUFFT_NOT_SUPPORTED"}, {5, driver.Unknown, "CUFFT_INTERNAL_ERROR"},
		{99, driver.Unknown, "cufftResult(99)"}} {
		err := d.fftFailure(0, tc.status, 3, "detail")
		var e *driver.Error
		require.ErrorAs(t, err, &e)
		assert.Equal(t, tc.code, e.Code, "status %d", tc.status)
		assert.Equal(t, "cufftMakePlanMany64", e.Call)
		assert.ErrorContains(t, err, tc.name)
	}
	err := d.fftFailure(0, -3, -1, "")
	require.ErrorIs(t, err, driver.ErrInvalidValue)
}

// HideSymbol("libcufft") makes the library look missing.
func TestHideCufft(t *testing.T) {
	restore := hideSymbol("libcufft")
	assert.Equal(t, int32(1), libHides.cufft.Load())
	restore()
	assert.Equal(t, int32(0), libHides.cufft.Load())
}
