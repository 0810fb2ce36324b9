//go:build !cgo

package cuda

// EnvNcclLib names the NCCL library to open instead of libnccl.so.2.
const EnvNcclLib = "GPUARR_NCCL_LIB"

// NCCLVersion needs the shim; without cgo there is none.
func NCCLVersion() (int, error) { return 0, errNoCgo() }
