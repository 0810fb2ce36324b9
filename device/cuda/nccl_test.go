//go:build cgo

package cuda

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device/driver"
	"github.com/gpuarr/gpuarr/device/dtype"
)

// A missing NCCL is NotSupported, naming the library and the file tried
// (GPUARR_NCCL_LIB's here), and loading is tried again next time. Runs
// without a GPU: it only dlopens.
func TestNcclMissingLibrary(t *testing.T) {
	if ncclLib.loaded.Load() {
		t.Skip("NCCL is already loaded in this process: the override no longer applies")
	}
	t.Setenv(EnvNcclLib, "/nonexistent/libnccl.so.2")
	err := loadNccl()
	require.ErrorIs(t, err, driver.ErrNotSupported)
	require.ErrorContains(t, err, driver.NCCLLibrary)
	require.ErrorContains(t, err, "/nonexistent/libnccl.so.2")
	require.ErrorContains(t, err, EnvNcclLib)
	require.False(t, ncclLib.loaded.Load())

	restore := hideSymbol("libnccl")
	err = loadNccl()
	require.ErrorIs(t, err, driver.ErrNotSupported)
	require.ErrorContains(t, err, "HideSymbol")
	restore()
}

// The collective element types and reductions are NCCL's values.
func TestNcclEnumValues(t *testing.T) {
	require.Equal(t, []int{0, 1, 2, 3, 4, 5, 7, 8}, []int{ncclTypes[dtype.Int8], ncclTypes[dtype.Uint8], ncclTypes[dtype.Int32],
		ncclTypes[dtype.Uint32], ncclTypes[dtype.Int64], ncclTypes[dtype.Uint64], ncclTypes[dtype.Float32], ncclTypes[dtype.Float64]})
	for ty := dtype.Invalid; ty <= dtype.Complex128; ty++ {
		_, ok := ncclTypes[ty]
		require.Equal(t, driver.CollType(ty), ok, "%v: NCCL takes exactly the types collectives take", ty)
	}
	require.Equal(t, []int{0, 1, 2, 3, 4}, []int{int(driver.Sum), int(driver.Prod), int(driver.Max), int(driver.Min), int(driver.Avg)})
}
