package philox_test

import (
	"fmt"

	"github.com/gpuarr/gpuarr/internal/philox"
)

// Counter-based: element i of stream 0 of seed 42 is a pure function of
// (seed, i, stream), so any element is computed without the ones before
// it, on the GPU and here alike.
func Example() {
	a := philox.Uniform32(42, 7, 0)
	b := philox.Uniform32(42, 7, 0)
	c := philox.Uniform32(42, 8, 0)
	fmt.Println(a == b, a == c, a >= 0 && a < 1)
	// Output: true false true
}
