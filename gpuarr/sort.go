package gpuarr

type (
	descendingOption struct{}
	smallestOption   struct{}
	rightOption      struct{}
)

func (descendingOption) isOption() {}
func (smallestOption) isOption()   {}
func (rightOption) isOption()      {}

func (descendingOption) String() string { return "gpuarr.Descending()" }
func (smallestOption) String() string   { return "gpuarr.Smallest()" }
func (rightOption) String() string      { return "gpuarr.Right()" }
