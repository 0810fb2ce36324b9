package cleanups_test

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/gpuarr/gpuarr/internal/cleanups"
)

// After Collect returns, the cleanups of what the collection found
// unreachable have run (within the bound), and so have the drains
// registered with AfterCleanups.
func Example() {
	var cleaned, drained atomic.Int32
	cleanups.AfterCleanups(func() { drained.Add(1) })
	for range 8 {
		buf := new([256]byte) // stands for an array's Go header
		runtime.AddCleanup(buf, func(n *atomic.Int32) { n.Add(1) }, &cleaned)
	}
	cleanups.Collect(10 * time.Second)
	fmt.Println(cleaned.Load(), drained.Load() > 0)
	// Output: 8 true
}
