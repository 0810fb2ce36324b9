package units_test

import (
	"fmt"

	"github.com/gpuarr/gpuarr/internal/units"
)

// Sizes in the environment's notation, and back.
func Example() {
	for _, s := range []string{"4GiB", "512MB", "1.5 KiB", "4 gigs"} {
		n, err := units.ParseSize(s)
		fmt.Println(n, err == nil)
	}
	fmt.Println(units.FormatBytes(3 << 30))
	// Output:
	// 4294967296 true
	// 512000000 true
	// 1536 true
	// 0 false
	// 3.0 GiB
}
