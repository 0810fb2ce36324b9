//go:build cgo

package cuda

/*
#include <stdlib.h>
#include "nccl.h"
*/
import "C"

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/gpuarr/gpuarr/device/driver"
	"github.com/gpuarr/gpuarr/device/dtype"
)

// EnvNcclLib names the NCCL library to open instead of libnccl.so.2 (a
// path, or a soname for the loader to find).
const EnvNcclLib = "GPUARR_NCCL_LIB"

// NCCL is loaded the first time a communicator is made. A failed load is
// tried again next time (it is the slow path, and a test may point
// GPUARR_NCCL_LIB elsewhere meanwhile); a successful one stays.
//
// NVLink SHARP (NVLS) multicast is switched off (NCCL_NVLS_ENABLE=0) before
// the library loads: it creates multicast objects on shared GPUs.
var ncclLib struct {
	mu     sync.Mutex
	loaded atomic.Bool
	path   string
}

func loadNccl() error {
	if libHides.nccl.Load() > 0 {
		return hiddenLibError(driver.NCCLLibrary, "libnccl")
	}
	if ncclLib.loaded.Load() {
		return nil
	}
	ncclLib.mu.Lock()
	defer ncclLib.mu.Unlock()
	if ncclLib.loaded.Load() {
		return nil
	}
	path := driver.NCCLLibrary
	if v := strings.TrimSpace(os.Getenv(EnvNcclLib)); v != "" {
		path = v
	}
	_ = os.Setenv("NCCL_NVLS_ENABLE", "0")
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var buf [512]byte
	if C.gp_nccl_open(cpath, (*C.char)(unsafe.Pointer(&buf[0])), C.int(len(buf))) != 0 {
		return loadError(driver.NCCLLibrary, EnvNcclLib, []libCandidate{{path: path}}, cstr(buf[:]))
	}
	ncclLib.path = path
	ncclLib.loaded.Store(true)
	return nil
}

// NCCLVersion is the loaded library's version code (ncclGetVersion:
// 22803 for 2.28.3), loading it if needed.
func NCCLVersion() (int, error) {
	if err := loadNccl(); err != nil {
		return 0, err
	}
	return int(C.gp_nccl_version()), nil
}

var ncclCallNames = [...]string{"ncclGetUniqueId", "ncclCommInitRank", "ncclCommInitAll", "ncclCommDestroy",
	"ncclGroupStart", "ncclGroupEnd", "ncclAllReduce", "ncclBroadcast", "ncclReduce", "ncclAllGather",
	"ncclReduceScatter", "ncclCommGetAsyncError", "ncclCommCount", "ncclCommCuDevice", "ncclCommUserRank",
	"ncclCommInitRankConfig", "ncclCommSplit", "ncclCommAbort"}

// checkComm asks NCCL what it made (ncclCommCount, ncclCommCuDevice,
// ncclCommUserRank) and refuses a rank that is not the one asked for.
func (d *device) checkComm(h C.gp_h, nranks, rank int) error {
	var count, dev, r C.int
	res := C.gp_nccl_comm_info(h, &count, &dev, &r)
	if res.status != 0 {
		return d.ncclError(res, "rank %d of %d on %s", rank, nranks, d)
	}
	if int(count) != nranks || int(dev) != d.info.Ordinal || int(r) != rank {
		return driver.Errorf("ncclCommInitRank", driver.Unknown, "NCCL made rank %d of %d on CUDA device %d, asked for rank %d of %d on %s",
			int(r), int(count), int(dev), rank, nranks, d)
	}
	return nil
}

// ncclError turns a failed NCCL call into a *driver.Error with NCCL's own
// text (ncclGetErrorString); a failed context switch as the shim reports it.
func (d *device) ncclError(r C.gp_ncret, format string, args ...any) error {
	if r.cu != 0 {
		return d.fail(int64(r.cu), format, args...)
	}
	return ncclStatusError(int(r.which), int(r.status), fmt.Sprintf(format, args...))
}

func ncclStatusError(which, status int, detail string) error {
	call := "NCCL"
	if which >= 0 && which < len(ncclCallNames) {
		call = ncclCallNames[which]
	}
	code := driver.Unknown
	switch status {
	case 4, 5: // ncclInvalidArgument, ncclInvalidUsage
		code = driver.InvalidValue
	}
	text := C.GoString(C.gp_nccl_error_string(C.int(status)))
	return &driver.Error{Call: call, Code: code,
		Detail: joinDetail(fmt.Sprintf("ncclResult_t %d: %s (%s)", status, text, ncclLib.path), detail)}
}

// ncclComm is one rank: an ncclComm_t of its device.
type ncclComm struct {
	dev        *device
	h          C.gp_h
	rank, size int
	closed     atomic.Bool
}

func (c *ncclComm) Rank() int { return c.rank }
func (c *ncclComm) Size() int { return c.size }

// Close reports an asynchronous NCCL error the rank met, then destroys it.
func (c *ncclComm) Close() error {
	if !c.closed.CompareAndSwap(false, true) {
		return closedError("ncclCommDestroy", "the communicator")
	}
	var async C.int
	r := C.gp_nccl_async_error(c.h, &async)
	d := C.gp_nccl_destroy(c.dev.ctx, c.h)
	switch {
	case r.status == 0 && async != 0:
		return ncclStatusError(int(r.which), int(async), fmt.Sprintf("rank %d of %d on %s, reported at Close", c.rank, c.size, c.dev))
	case d.cu != 0 || d.status != 0:
		return c.dev.ncclError(d, "rank %d of %d on %s", c.rank, c.size, c.dev)
	}
	return nil
}

// NewComms makes every rank with ncclCommInitAll.
func (d *device) NewComms(devs []driver.Device) ([]driver.Communicator, error) {
	if err := loadNccl(); err != nil {
		return nil, err
	}
	ords := make([]C.int, len(devs))
	cds := make([]*device, len(devs))
	for i, x := range devs {
		cd, ok := x.(*device)
		if !ok {
			return nil, driver.Errorf("ncclCommInitAll", driver.InvalidValue, "device %d (%v) is not a CUDA device", i, x)
		}
		if err := cd.check("ncclCommInitAll"); err != nil {
			return nil, err
		}
		ords[i] = C.int(cd.info.Ordinal)
		cds[i] = cd
	}
	hs := make([]C.gp_h, len(devs))
	r := C.gp_nccl_init_all(C.int(len(devs)), &ords[0], &hs[0])
	if r.cu != 0 || r.status != 0 {
		return nil, d.ncclError(r, "%d devices", len(devs))
	}
	out := make([]driver.Communicator, len(devs))
	for i := range devs {
		out[i] = &ncclComm{dev: cds[i], h: hs[i], rank: i, size: len(devs)}
	}
	for i := range devs {
		if err := cds[i].checkComm(hs[i], len(devs), i); err != nil {
			for _, c := range out {
				_ = c.Close()
			}
			return nil, err
		}
	}
	return out, nil
}

// UniqueID calls ncclGetUniqueId.
func (d *device) UniqueID() (driver.UniqueID, error) {
	var id driver.UniqueID
	if err := loadNccl(); err != nil {
		return id, err
	}
	r := C.gp_nccl_unique_id((*C.uchar)(unsafe.Pointer(&id[0])))
	if r.status != 0 {
		return id, d.ncclError(r, "")
	}
	return id, nil
}

// JoinComm calls ncclCommInitRank with the device's context current; it
// blocks until every rank has joined.
func (d *device) JoinComm(id driver.UniqueID, nranks, rank int) (driver.Communicator, error) {
	if err := loadNccl(); err != nil {
		return nil, err
	}
	if err := d.check("ncclCommInitRank"); err != nil {
		return nil, err
	}
	var h C.gp_h
	r := C.gp_nccl_init_rank(d.ctx, (*C.uchar)(unsafe.Pointer(&id[0])), C.int(nranks), C.int(rank), &h)
	if r.cu != 0 || r.status != 0 {
		return nil, d.ncclError(r, "rank %d of %d on %s", rank, nranks, d)
	}
	c := &ncclComm{dev: d, h: h, rank: rank, size: nranks}
	if err := d.checkComm(h, nranks, rank); err != nil {
		_ = c.Close()
		return nil, err
	}
	return c, nil
}

// RunColls issues calls as one NCCL group in one cgo call, so that the
// group starts and ends on one OS thread.
func (d *device) RunColls(calls []driver.Coll) error {
	if err := loadNccl(); err != nil {
		return err
	}
	if len(calls) == 0 {
		return nil
	}
	cs := make([]C.gp_ncoll, len(calls))
	for i, c := range calls {
		name := "nccl" + c.Kind.String()
		cm, ok := c.Comm.(*ncclComm)
		if !ok {
			return driver.Errorf(name, driver.InvalidValue, "not an NCCL communicator")
		}
		if cm.closed.Load() {
			return closedError(name, "the communicator")
		}
		s, ok := c.Stream.(*stream)
		if !ok {
			return driver.Errorf(name, driver.InvalidValue, "not a CUDA stream")
		}
		if s.dev != cm.dev {
			return driver.Errorf(name, driver.InvalidValue, "a stream of %s for rank %d on %s", s.dev, cm.rank, cm.dev)
		}
		if err := s.check(name); err != nil {
			return err
		}
		nt, ok := ncclTypes[c.Type]
		if !ok {
			return driver.Errorf(name, driver.InvalidValue, "element type %v", c.Type)
		}
		cs[i] = C.gp_ncoll{ctx: cm.dev.ctx, comm: cm.h, stream: s.h, send: C.CUdeviceptr(c.Send), recv: C.CUdeviceptr(c.Recv),
			count: C.size_t(c.Count), kind: C.int(c.Kind), _type: C.int(nt), op: C.int(c.Op), root: C.int(c.Root)}
	}
	r := C.gp_nccl_run(C.int(len(cs)), &cs[0])
	if r.cu != 0 || r.status != 0 {
		i := int(r.index)
		c := calls[i]
		return d.ncclError(r, "call %d: %v of %d %v (op %v, root %d)", i, c.Kind, c.Count, c.Type, c.Op, c.Root)
	}
	return nil
}

// ncclTypes are NCCL's ncclDataType_t values of the element types
// collectives take (nccl.h: ncclInt8 0 … ncclFloat64 8, ncclBfloat16 9).
var ncclTypes = map[dtype.DType]int{
	dtype.Int8: 0, dtype.Uint8: 1, dtype.Int32: 2, dtype.Uint32: 3,
	dtype.Int64: 4, dtype.Uint64: 5, dtype.Float16: 6, dtype.Float32: 7, dtype.Float64: 8, dtype.BFloat16: 9,
}

var (
	_ driver.Collectives  = (*device)(nil)
	_ driver.Communicator = (*ncclComm)(nil)
)

// CollectiveVersion is NCCL's version code (ncclGetVersion: 22803 for
// 2.28.3), loading the library if needed.
func (d *device) CollectiveVersion() (int, error) { return NCCLVersion() }
