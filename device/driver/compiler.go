package driver

// Compiler is an optional capability of a backend's Device: compiling CUDA
// C++ source to PTX for that device (NVRTC on CUDA). The kernels to load
// by name should be declared extern "C", so their PTX entries keep their
// names.
//
// CompileCUDA returns the PTX and the compiler's log (warnings, even on
// success). A source that does not compile fails with CompileFailed and
// the log in the error's Detail; a missing compiler library with
// NotSupported naming it. name is the source's file name in messages.
//
// Backends treat HideSymbol("libnvrtc") as hiding the whole compiler
// library.
type Compiler interface {
	CompileCUDA(src, name string, opts []string) (ptx, log string, err error)
}

// CompilerLibrary names the NVRTC sonames, as errors for a missing library say.
const CompilerLibrary = "libnvrtc.so.13 or libnvrtc.so.12"
