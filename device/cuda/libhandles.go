//go:build cgo

package cuda

/*
#include "extlib.h"
*/
import "C"

import "sync"

// libHandles are a device's idle handles of one library (cuBLAS,
// cuSOLVER). A stream takes one the first time it calls the library and
// keeps it, so one handle never serves two streams at once (its stream and
// workspace are its own); the stream gives it back when it closes, once
// its work is done. Destroying a handle synchronizes the device, so
// handles are kept, never destroyed.
type libHandles struct {
	mu   sync.Mutex
	idle []C.gp_h
}

// take returns an idle handle that bind moved to the taking stream, else
// a new one from create; a failed call's result becomes an error through
// fail. A handle bind failed on stays idle.
func (l *libHandles) take(bind func(h C.gp_h) C.gp_bret, create func() C.gp_bret, fail func(C.gp_bret) error) (C.gp_h, error) {
	l.mu.Lock()
	var h C.gp_h
	if n := len(l.idle); n > 0 {
		h = l.idle[n-1]
		l.idle = l.idle[:n-1]
	}
	l.mu.Unlock()
	if h != 0 {
		if r := bind(h); r.cu != 0 || r.status != 0 {
			l.put(h)
			return 0, fail(r)
		}
		return h, nil
	}
	r := create()
	if r.cu != 0 || r.status != 0 {
		return 0, fail(r)
	}
	return C.gp_h(r.v), nil
}

func (l *libHandles) put(h C.gp_h) {
	l.mu.Lock()
	l.idle = append(l.idle, h)
	l.mu.Unlock()
}

// giveBack returns a stream's handle *h (0: none) to l and clears it,
// under mu, the stream's lock for that library.
func (l *libHandles) giveBack(mu *sync.Mutex, h *C.gp_h) {
	mu.Lock()
	v := *h
	*h = 0
	mu.Unlock()
	if v != 0 {
		l.put(v)
	}
}
