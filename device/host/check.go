package host

import (
	"math/rand/v2"
	"runtime"
	"time"

	"github.com/gpuarr/gpuarr/device/driver"
)

// Checking mode (GPUARR_HOST_CHECK=1) makes missing synchronization show up
// as wrong answers: each queued operation may start late, so work that was
// not ordered properly runs in an order a test notices, and freed memory is
// poisoned, so a read after a free sees PoisonByte rather than the old data.

// PoisonByte fills freed memory in checking mode.
const PoisonByte = driver.PoisonByte

// Checking reports whether GPUARR_HOST_CHECK turns checking mode on for
// this process. Allocators in other packages poison the blocks they recycle
// when it does.
func Checking() bool {
	loadEnv()
	return env.check
}

// CheckingMode implements driver.Checker: allocators above the device
// poison the blocks they recycle while it is on.
func (d *device) CheckingMode() bool { return d.sys.cfg.check }

// PoisonByte implements driver.Checker.
func (d *device) PoisonByte() byte { return PoisonByte }

// Poison fills b with PoisonByte.
func Poison(b []byte) { fill(b, []byte{PoisonByte}) }

// Delays: one operation in delayOdds starts up to maxDelay late. The wait
// yields rather than sleeps: timers round short sleeps up to about a
// millisecond, which would make 10,000 operations take seconds.
const (
	delayOdds = 4
	maxDelay  = 200 * time.Microsecond
)

// delay holds a stream's next operation back at random in checking mode.
func (sys *system) delay() {
	if !sys.cfg.check || rand.IntN(delayOdds) != 0 {
		return
	}
	for d, start := rand.N(maxDelay), time.Now(); time.Since(start) < d; {
		runtime.Gosched()
	}
}

// gap pauses the calling goroutine at random in checking mode, between
// the halves of an operation that CUDA performs as two driver calls.
func (sys *system) gap() {
	if !sys.cfg.check || rand.IntN(delayOdds) != 0 {
		return
	}
	for d, start := rand.N(maxDelay/4), time.Now(); time.Since(start) < d; {
		runtime.Gosched()
	}
}
