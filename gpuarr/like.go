package gpuarr

// The Like constructors make an array of a's shape and element type, on
// a's device unless an option says otherwise (NumPy's zeros_like, …); a
// is only read for its shape and device, never its elements.

// EmptyLike is Empty with a's shape, on a's device.
func EmptyLike[T Numeric](a *Array[T], opts ...Option) (*Array[T], error) {
	if err := a.check("EmptyLike"); err != nil {
		return nil, err
	}
	return Empty[T](a.Shape(), likeOpts(a, opts)...)
}

// ZerosLike is Zeros with a's shape, on a's device.
func ZerosLike[T Numeric](a *Array[T], opts ...Option) (*Array[T], error) {
	if err := a.check("ZerosLike"); err != nil {
		return nil, err
	}
	return Zeros[T](a.Shape(), likeOpts(a, opts)...)
}

// OnesLike is Ones with a's shape, on a's device.
func OnesLike[T Numeric](a *Array[T], opts ...Option) (*Array[T], error) {
	if err := a.check("OnesLike"); err != nil {
		return nil, err
	}
	return Ones[T](a.Shape(), likeOpts(a, opts)...)
}

// FullLike is Full with a's shape and value v, on a's device.
func FullLike[T Numeric](a *Array[T], v T, opts ...Option) (*Array[T], error) {
	if err := a.check("FullLike"); err != nil {
		return nil, err
	}
	return Full(a.Shape(), v, likeOpts(a, opts)...)
}

// likeOpts puts a's device before the caller's options (the last one
// counts, so the caller's win).
func likeOpts[T Numeric](a *Array[T], opts []Option) []Option {
	return append([]Option{OnDevice(a.c.Device())}, opts...)
}
