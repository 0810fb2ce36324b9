//go:build cgo

package cuda

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device/driver"
)

// These tests need no GPU and no libcuda: they run in CI.

// packRC builds a shim result the way shim.c does.
func packRC(code driver.Result, sym string, t *testing.T) int64 {
	t.Helper()
	i, ok := symbols().index[sym]
	require.True(t, ok, "symbol %s in the table", sym)
	return int64(uint64(uint32(int32(code))) | uint64(i)<<32)
}

func TestDevicesWithoutGPUAreATypedError(t *testing.T) {
	assert.Equal(t, "cuda", Backend().Name())
	devs, err := Backend().Devices()
	if err != nil {
		assert.True(t, errors.Is(err, driver.ErrNoDriver) || errors.Is(err, driver.ErrNoDevice),
			"want ErrNoDriver or ErrNoDevice, got %v", err)
		assert.Empty(t, devs)
		t.Logf("no CUDA devices: %v", err)
		return
	}
	assert.NotEmpty(t, devs)
	// A second call returns the same devices, not freshly retained ones.
	again, err := Backend().Devices()
	require.NoError(t, err)
	assert.Equal(t, devs, again)
}

func TestSymbolTableUsesVersionedNames(t *testing.T) {
	idx := symbols().index
	for _, name := range []string{"cuMemAlloc_v2", "cuMemFree_v2", "cuMemGetInfo_v2", "cuDeviceTotalMem_v2",
		"cuStreamDestroy_v2", "cuEventDestroy_v2", "cuMemcpyHtoD_v2", "cuMemcpyDtoHAsync_v2", "cuLaunchKernel"} {
		i, ok := idx[name]
		require.True(t, ok, name)
		assert.Equal(t, name, symName(i))
	}
	// The API name finds the versioned entry too.
	assert.Equal(t, idx["cuMemAlloc_v2"], idx["cuMemAlloc"])
	assert.Equal(t, "libcuda", symName(-1))
}

func TestErrorsNameTheFailingCall(t *testing.T) {
	e := newError(packRC(driver.OutOfMemory, "cuMemAlloc_v2", t), "1 TiB")
	assert.Equal(t, "cuMemAlloc_v2", e.Call)
	assert.ErrorIs(t, e, driver.ErrOutOfMemory)
	assert.Equal(t, "cuMemAlloc_v2: CUDA_ERROR_OUT_OF_MEMORY (out of memory): 1 TiB", e.Error())

	// The context switch, not the operation, is named when it fails.
	e = newError(packRC(driver.InvalidContext, "cuCtxSetCurrent", t), "")
	assert.Equal(t, "cuCtxSetCurrent", e.Call)

	e = newError(packRC(driver.SymbolMissing, "cuMemPoolCreate", t), "")
	assert.ErrorIs(t, e, driver.ErrSymbolMissing)
	assert.ErrorIs(t, e, driver.ErrNotSupported)
	assert.Contains(t, e.Error(), "cuMemPoolCreate")

	e = newError(packRC(driver.Result(222), "cuModuleLoadDataEx", t), "")
	assert.Equal(t, driver.Result(222), e.Code, "codes the driver package does not name survive")

	code, sym := decode(packRC(driver.NotReady, "cuEventQuery", t))
	assert.Equal(t, driver.NotReady, code)
	assert.Equal(t, "cuEventQuery", symName(sym))
}

// A sticky failure poisons the device: later calls fail with an error that
// matches ErrDeviceLost and names the original failure.
func TestStickyFailurePoisonsTheDevice(t *testing.T) {
	d := &device{info: driver.Info{Backend: "cuda", Name: "test GPU"}}
	require.NoError(t, d.check("cuMemAlloc_v2"))

	err := d.fail(packRC(driver.InvalidValue, "cuMemAlloc_v2", t), "")
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	require.NoError(t, d.check("cuMemAlloc_v2"), "a non-sticky error leaves the device usable")

	err = d.fail(packRC(driver.IllegalAddress, "cuStreamSynchronize", t), "")
	assert.ErrorIs(t, err, driver.ErrIllegalAddress)
	assert.ErrorIs(t, err, driver.ErrDeviceLost)

	err = d.check("cuMemAlloc_v2")
	require.Error(t, err)
	assert.ErrorIs(t, err, driver.ErrDeviceLost)
	var de *driver.Error
	require.ErrorAs(t, err, &de)
	assert.Equal(t, "cuMemAlloc_v2", de.Call)
	assert.Contains(t, err.Error(), "cuStreamSynchronize")
	assert.Contains(t, err.Error(), "CUDA_ERROR_ILLEGAL_ADDRESS")

	// A later sticky failure still reports the first one.
	err = d.fail(packRC(driver.LaunchFailed, "cuLaunchKernel", t), "")
	assert.ErrorIs(t, err, driver.ErrDeviceLost)
	assert.Contains(t, err.Error(), "CUDA_ERROR_ILLEGAL_ADDRESS")
}

func TestHideSymbolNestsAndRestores(t *testing.T) {
	i := symbols().index["cuMemAllocAsync"]
	before := hiddenCount(i)
	r1 := hideSymbol("cuMemAllocAsync")
	r2 := hideSymbol("cuMemAllocAsync")
	assert.Equal(t, before+2, hiddenCount(i))
	assert.False(t, symbolPresent("cuMemAllocAsync"))
	r1()
	r1() // restoring twice undoes one hide only
	assert.Equal(t, before+1, hiddenCount(i))
	r2()
	assert.Equal(t, before, hiddenCount(i))
	hideSymbol("cuNoSuchEntryPoint")() // unknown names hide nothing
}
