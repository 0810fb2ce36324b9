package lifetime

import (
	"sync"
	"sync/atomic"
)

// HoldDrainer stops the deferred-free queue's drainer goroutine before its
// next drain until the returned function is called, so that tests see
// which frees other paths make.
func HoldDrainer() (release func()) { return hold(&deferredFrees.waits) }

// HoldRegistrar stops the cleanup registrar's goroutine before its next
// flush until the returned function is called, so that only the flushes
// of collections (and GC cycles) register cleanups meanwhile.
func HoldRegistrar() (release func()) { return hold(&registrar.waits) }

// hold makes the goroutine that calls *waits block until release.
func hold(waits *atomic.Pointer[func()]) (release func()) {
	gate := make(chan struct{})
	w := func() { <-gate }
	waits.Store(&w)
	var once sync.Once
	return func() {
		once.Do(func() {
			waits.Store(nil)
			close(gate)
		})
	}
}
