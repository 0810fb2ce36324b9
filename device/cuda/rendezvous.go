//go:build cgo

package cuda

/*
#include "nccl.h"
*/
import "C"

import (
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/gpuarr/gpuarr/device/driver"
)

// commID holds NCCL_COMM_ID, a variable of the whole process, for the
// JoinAt calls in flight: they share one address at a time (ranks of one
// job in one process join together; a join at another address waits). The
// first sets it, the last restores it once its communicator is made or
// aborted, so that no initialization of theirs is reading the environment
// then. The variable is appended to the environment when set, so removing
// it moves no variable set before it (NCCL_NVLS_ENABLE among them) under
// a thread that reads the environment.
var commID struct {
	mu      sync.Mutex
	free    *sync.Cond
	addr    string
	users   int
	prev    string
	hadPrev bool
}

func holdCommID(addr string) (release func()) {
	c := &commID
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.free == nil {
		c.free = sync.NewCond(&c.mu)
	}
	for c.users > 0 && c.addr != addr {
		c.free.Wait()
	}
	if c.users == 0 {
		c.addr = addr
		c.prev, c.hadPrev = os.LookupEnv("NCCL_COMM_ID")
		if !c.hadPrev || c.prev != addr {
			_ = os.Setenv("NCCL_COMM_ID", addr)
		}
	}
	c.users++
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.users--; c.users > 0 {
			return
		}
		switch {
		case !c.hadPrev:
			_ = os.Unsetenv("NCCL_COMM_ID")
		case c.prev != addr:
			_ = os.Setenv("NCCL_COMM_ID", c.prev)
		}
		c.free.Broadcast()
	}
}

// JoinAt makes the rank through NCCL's own bootstrap at addr, in three
// steps, each bounded by timeout:
//
//  1. ncclGetUniqueId and ncclCommInitRankConfig with NCCL_COMM_ID=addr
//     (holdCommID) and blocking=0: every rank derives the same id from the
//     address, rank 0 starts the bootstrap root listening there, and the
//     initialization runs on NCCL's thread while this one polls
//     ncclCommGetAsyncError against the deadline;
//  2. ncclCommSplit of that communicator into a blocking one with every
//     rank (nonblocking communicators hand every collective to a new
//     thread and report ncclInProgress; the blocking copy issues them as
//     ncclCommInitAll's communicators do), polled the same way;
//  3. ncclCommDestroy of the first.
//
// On the deadline the communicator being made is aborted (ncclCommAbort)
// and the error matches driver.TimedOut. NCCL's bootstrap root on rank 0
// may then stay listening at addr until the process exits.
func (d *device) JoinAt(addr string, nranks, rank int, timeout time.Duration) (driver.Communicator, error) {
	const call = "ncclCommInitRankConfig"
	if err := loadNccl(); err != nil {
		return nil, err
	}
	if C.gp_nccl_has_rendezvous() == 0 {
		return nil, driver.Errorf(call, driver.NotSupported,
			"%s (version code %d) lacks ncclCommInitRankConfig, ncclCommSplit or ncclCommAbort: meeting at an address needs NCCL 2.18 or later",
			ncclLib.path, int(C.gp_nccl_version()))
	}
	if err := d.check(call); err != nil {
		return nil, err
	}
	deadline := time.Now().Add(timeout)
	where := fmt.Sprintf("rank %d of %d on %s at %s", rank, nranks, d, addr)

	defer holdCommID(addr)()
	var first C.gp_h
	r := C.gp_nccl_join_at(d.ctx, C.int(nranks), C.int(rank), &first)
	if r.cu != 0 || (r.status != 0 && r.status != C.GP_NCCL_IN_PROGRESS) {
		if first != 0 {
			C.gp_nccl_abort(d.ctx, first)
		}
		return nil, d.ncclError(r, "%s", where)
	}
	if err := d.awaitComm(first, C.GP_NCCL_INIT_RANK_CONFIG, deadline, timeout, where); err != nil {
		return nil, err
	}

	var slot C.gp_h
	r = C.gp_nccl_split(d.ctx, first, &slot)
	if r.cu != 0 || (r.status != 0 && r.status != C.GP_NCCL_IN_PROGRESS) {
		C.gp_nccl_abort(d.ctx, first)
		return nil, d.ncclError(r, "%s: the blocking copy", where)
	}
	// On failure, awaitComm has aborted first (and with it the copy in
	// the making); the slot NCCL may still write is left allocated.
	if err := d.awaitComm(first, C.GP_NCCL_SPLIT, deadline, timeout, where); err != nil {
		return nil, err
	}
	h := C.gp_nccl_slot_take(slot)
	if dr := C.gp_nccl_destroy(d.ctx, first); dr.cu != 0 || dr.status != 0 {
		if h != 0 {
			C.gp_nccl_destroy(d.ctx, h)
		}
		return nil, d.ncclError(dr, "%s: destroying the bootstrap communicator", where)
	}
	if h == 0 {
		return nil, driver.Errorf("ncclCommSplit", driver.Unknown, "%s: NCCL reported success but made no communicator", where)
	}
	c := &ncclComm{dev: d, h: h, rank: rank, size: nranks}
	if err := d.checkComm(h, nranks, rank); err != nil {
		_ = c.Close()
		return nil, err
	}
	return c, nil
}

// awaitComm polls h's state (ncclCommGetAsyncError) until the call which
// (GP_NCCL_*) it is running leaves ncclInProgress; past the deadline it
// aborts h and returns a TimedOut error. A failure also aborts h.
func (d *device) awaitComm(h C.gp_h, which C.int, deadline time.Time, timeout time.Duration, where string) error {
	name := ncclCallNames[which]
	pause := 50 * time.Microsecond
	for {
		var state C.int
		r := C.gp_nccl_async_error(h, &state)
		switch {
		case r.status != 0:
			C.gp_nccl_abort(d.ctx, h)
			return d.ncclError(r, "%s", where)
		case state == 0:
			return nil
		case state != C.GP_NCCL_IN_PROGRESS:
			C.gp_nccl_abort(d.ctx, h)
			return ncclStatusError(int(which), int(state), where)
		}
		if time.Now().After(deadline) {
			C.gp_nccl_abort(d.ctx, h)
			return driver.Errorf(name, driver.TimedOut,
				"%s: the other ranks did not all arrive within %v; NCCL does not say which rank is missing: "+
					"one that never started or died, or a rank 0 that cannot be reached at that address", where, timeout)
		}
		time.Sleep(pause)
		pause = min(2*pause, 10*time.Millisecond)
	}
}
