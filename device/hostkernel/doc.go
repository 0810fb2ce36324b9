// Package hostkernel is the ABI of kernels written in Go: what a backend
// that runs Go functions in place of PTX (device/host) hands a kernel, and
// what a package above device needs to write one, without importing that
// backend.
//
// A Kernel does the work of a whole launch, every block and thread, usually
// with a loop over its elements (ParallelFor spreads it over the cores).
// It reads its arguments from Launch.Args and reaches device memory only
// through Launch.Bytes and View, which the backend checks (live
// allocations, bounds, alignment, peer access) as a GPU would fault:
//
//	func scale(l *hostkernel.Launch) error { // (x ptr, a f32, n u64)
//		n := l.Args.U64(2)
//		x, err := hostkernel.View[float32](l, l.Args.Ptr(0), n)
//		if err != nil {
//			return err
//		}
//		a := l.Args.F32(1)
//		l.ParallelFor(n, func(lo, hi uint64) {
//			for i := lo; i < hi; i++ {
//				x[i] *= a
//			}
//		})
//		return nil
//	}
//
// Kernels are bound to PTX entry names with device.Device's
// RegisterHostKernel; a module loaded afterwards whose PTX declares the
// entry runs the Go function there, and the PTX itself on a GPU. Registry
// is the optional backend capability behind that method. Example runs a
// kernel the way a backend does.
//
// # Boundaries
//
// This package owns the kernel function type, the launch a kernel sees and
// the capability a backend implements to run such kernels. It imports only
// device/driver; backends build on it (NewLaunch, Memory) and nothing here
// knows how a backend keeps its memory. Packages above device use it to
// write kernels and reach a backend only through package device.
package hostkernel
