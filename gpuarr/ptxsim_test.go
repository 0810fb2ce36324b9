package gpuarr_test

import (
	"hash/fnv"
	"os"
	"testing"

	"github.com/gpuarr/gpuarr/device/hostkernel"
	"github.com/gpuarr/gpuarr/internal/fusion"
	ikernels "github.com/gpuarr/gpuarr/internal/kernels"
	"github.com/gpuarr/gpuarr/internal/ptxsim"
)

// With GPUARR_PTXSIM=1 on the host backend, the kernels of the sorting,
// indexing and joining wing (internal/kernels) and the scan kernels of the
// fusion compiler run as their PTX in the
// PTX interpreter (internal/ptxsim) instead of their Go twins: the same
// tests then check, in CI, the code a GPU runs. make check runs the tests
// of those functions this way.
func TestMain(m *testing.M) {
	if os.Getenv("GPUARR_PTXSIM") == "1" {
		ikernels.HostKernelHook = simulated
		fusion.ScanHostKernelHook = simulated
	}
	os.Exit(m.Run())
}

// simulated binds a kernel's PTX, interpreted, with a schedule seeded by
// its entry name.
func simulated(entry, ptx string, _ hostkernel.Kernel) hostkernel.Kernel {
	mod, err := ptxsim.Parse(ptx)
	if err != nil {
		return func(*hostkernel.Launch) error { return err }
	}
	h := fnv.New64a()
	h.Write([]byte(entry))
	return mod.HostKernel(entry, h.Sum64()|1)
}
