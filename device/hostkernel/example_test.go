package hostkernel_test

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/gpuarr/gpuarr/device/driver"
	"github.com/gpuarr/gpuarr/device/hostkernel"
)

// scale is the kernel of the package doc: x[i] *= a for i < n, with the
// arguments (x ptr, a f32, n u64).
func scale(l *hostkernel.Launch) error {
	n := l.Args.U64(2)
	x, err := hostkernel.View[float32](l, l.Args.Ptr(0), n)
	if err != nil {
		return err
	}
	a := l.Args.F32(1)
	l.ParallelFor(n, func(lo, hi uint64) {
		for i := lo; i < hi; i++ {
			x[i] *= a
		}
	})
	return nil
}

// oneBuffer is a backend's memory in miniature: one buffer at a fake
// device address, and IllegalAddress anywhere else.
type oneBuffer struct {
	at  driver.Ptr
	buf []byte
}

func (m oneBuffer) Bytes(p driver.Ptr, n uint64) ([]byte, error) {
	if p < m.at || uint64(p-m.at)+n > uint64(len(m.buf)) {
		return nil, driver.Errorf("cuLaunchKernel", driver.IllegalAddress, "%v+%d is outside the buffer", p, n)
	}
	return m.buf[p-m.at : uint64(p-m.at)+n], nil
}

// A backend runs a kernel by making its Launch over the backend's memory
// and the marshalled arguments; the kernel reaches memory only through
// the checked View, so a launch told to scale more elements than the
// buffer holds fails with IllegalAddress instead of touching Go memory.
func Example() {
	xs := []float32{1, 2, 3, 4}
	mem := oneBuffer{at: 0x1000, buf: unsafe.Slice((*byte)(unsafe.Pointer(&xs[0])), 4*len(xs))}
	run := func(n uint64) error {
		l := hostkernel.NewLaunch("scale", nil, mem)
		l.Grid, l.Block = driver.Dim3{X: 1}, driver.Dim3{X: 4}
		l.Args.Append(driver.ArgPtr, uint64(mem.at))
		l.Args.Append(driver.ArgF32, uint64(math.Float32bits(2.5)))
		l.Args.Append(driver.ArgU64, n)
		return scale(l)
	}
	fmt.Println(run(4), xs)
	fmt.Println(run(5))
	// Output:
	// <nil> [2.5 5 7.5 10]
	// cuLaunchKernel: CUDA_ERROR_ILLEGAL_ADDRESS (illegal memory access; the context is unusable): 0x1000+20 is outside the buffer
}
