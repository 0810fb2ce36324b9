package gpuarr

import "fmt"

type (
	minLengthOption int
	rangeOption     struct{ lo, hi float64 }
)

func (minLengthOption) isOption() {}
func (rangeOption) isOption()     {}

func (o minLengthOption) String() string { return fmt.Sprintf("gpuarr.MinLength(%d)", int(o)) }
func (o rangeOption) String() string     { return fmt.Sprintf("gpuarr.Range(%g, %g)", o.lo, o.hi) }
