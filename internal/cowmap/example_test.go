package cowmap_test

import (
	"fmt"

	"github.com/gpuarr/gpuarr/internal/cowmap"
)

// Lookups read a snapshot without a lock; a miss creates the value once,
// however many goroutines miss at the same time.
func Example() {
	var kernels cowmap.Map[string, int]
	for range 3 {
		v, created, err := kernels.LoadOrCreate("add_f32", func() (int, error) {
			return 42, nil // compile, load, ...: done once
		})
		fmt.Println(v, created, err)
	}
	v, ok := kernels.Load("add_f32")
	fmt.Println(v, ok, kernels.Len())
	// Output:
	// 42 true <nil>
	// 42 false <nil>
	// 42 false <nil>
	// 42 true 1
}
