package gpuarr

type exclusiveOption struct{}

func (exclusiveOption) isOption()      {}
func (exclusiveOption) String() string { return "gpuarr.Exclusive()" }
