package cleanups

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// A real collection runs the cleanups of unreachable objects, then the
// registered drains, before Collect returns.
func TestCollectRunsCleanupsThenDrains(t *testing.T) {
	var ran, drainedAfter atomic.Int64
	drained := make(chan int64, 1)
	AfterCleanups(func() {
		select {
		case drained <- ran.Load():
		default:
		}
		drainedAfter.Add(1)
	})
	for range 100 {
		obj := new([64]byte)
		runtime.AddCleanup(obj, func(int) { ran.Add(1) }, 0)
	}
	Collect(time.Second)
	assert.Equal(t, int64(100), ran.Load())
	assert.True(t, Wait(time.Millisecond), "nothing left queued")
	assert.Equal(t, int64(100), <-drained, "the drain ran after every cleanup")
	assert.Positive(t, drainedAfter.Load())
}
