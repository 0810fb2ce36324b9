package hostkernel

import (
	"runtime"
	"sync"
)

// parallelGrain is the fewest elements worth a goroutine of their own.
const parallelGrain = 1 << 15

// ParallelFor runs body over [0, n) split into contiguous chunks on up to
// GOMAXPROCS goroutines (the device's "multiprocessors") and returns when
// all are done. A panic in body is re-raised in the kernel.
func (l *Launch) ParallelFor(n uint64, body func(lo, hi uint64)) {
	workers := min(uint64(runtime.GOMAXPROCS(0)), (n+parallelGrain-1)/parallelGrain)
	if workers <= 1 {
		if n > 0 {
			body(0, n)
		}
		return
	}
	chunk := (n + workers - 1) / workers
	var (
		wg       sync.WaitGroup
		panicked sync.Once
		reason   any
	)
	for lo := uint64(0); lo < n; lo += chunk {
		hi := min(lo+chunk, n)
		wg.Go(func() {
			defer func() {
				if r := recover(); r != nil {
					panicked.Do(func() { reason = r })
				}
			}()
			body(lo, hi)
		})
	}
	wg.Wait()
	if reason != nil {
		panic(reason)
	}
}
