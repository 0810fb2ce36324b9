package layout_test

import (
	"errors"
	"fmt"

	"github.com/gpuarr/gpuarr/internal/arg"
	"github.com/gpuarr/gpuarr/internal/layout"
)

// NumPy's broadcasting and the strides that read an operand at the
// broadcast shape (0 where it stretches).
func Example() {
	sh, err := layout.Broadcast([]int{3, 1}, []int{4})
	fmt.Println(sh, err)
	fmt.Println(layout.RowMajorStrides([]int{3, 4}), layout.BroadcastStrides([]int{4}, []int{1}, sh))
	_, err = layout.Broadcast([]int{3}, []int{4})
	fmt.Println(errors.Is(err, arg.ErrShape))
	// Output:
	// [3 4] <nil>
	// [4 1] [0 1]
	// true
}
