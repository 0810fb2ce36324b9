package gpuarr

import (
	"fmt"
)

// Roll is a copy of a with its elements shifted by shift positions along
// the axes Axis options name, those pushed off one end coming back at
// the other (NumPy's roll): Roll(x, 1, Axis(0)) moves every row down one
// and the last row to the top. Without an Axis it rolls the elements in
// row-major order and keeps a's shape. A negative shift rolls the other
// way. The result is a new contiguous array (the copies run as strided
// kernels, one per piece that moves).
func Roll[T Numeric](a *Array[T], shift int, opts ...Option) (*Array[T], error) {
	const call = "Roll"
	if err := a.check(call); err != nil {
		return nil, err
	}
	s, err := streamTaking(call, opts, a.c.Device(), optAxis)
	if err != nil {
		return nil, err
	}
	sh := a.c.Shape()
	var axes []int
	for _, o := range opts {
		if ax, ok := o.(axisOption); ok {
			axes = append(axes, int(ax))
		}
	}
	set, err := normAxes(call, axes, len(sh), a.c.Describe())
	if err != nil {
		return nil, err
	}
	out, err := newArray[T](call, sh, s)
	if err != nil {
		return nil, err
	}
	src, dst := a, out
	if len(axes) == 0 {
		// The flat roll: both as vectors (a copy of a when a is strided).
		if src, err = a.Ravel(); err == nil {
			defer src.Release()
			if dst, err = out.Reshape(Shape{-1}); err == nil {
				defer dst.Release()
				set = 1
			}
		}
		if err != nil {
			_ = out.Release()
			return nil, fmt.Errorf("gpuarr.%s: %w", call, err)
		}
	}
	if err := rollInto(call, dst, src, shift, set, On(s)); err != nil {
		_ = out.Release()
		return nil, err
	}
	return out, nil
}

// rollInto copies src rolled by shift along the axes in set into dst
// (same shape): for each axis a piece either moves forward (positions
// 0:n−r to r:n) or wraps (n−r:n to 0:r), so 2^len(axes) pieces, the empty
// ones skipped.
func rollInto[T Numeric](call string, dst, src *Array[T], shift int, set uint64, opt Option) error {
	sh := src.c.Shape()
	var axes []int
	for d := range sh {
		if set&(1<<d) != 0 {
			axes = append(axes, d)
		}
	}
	for piece := 0; piece < 1<<len(axes); piece++ {
		di, si := make([]Index, len(sh)), make([]Index, len(sh))
		for d := range sh {
			di[d], si[d] = Colon, Colon
		}
		empty := false
		for j, d := range axes {
			n := sh[d]
			r := 0
			if n > 0 {
				r = ((shift % n) + n) % n
			}
			if piece&(1<<j) == 0 {
				di[d], si[d] = S(r, n), S(0, n-r)
				empty = empty || n-r == 0
			} else {
				di[d], si[d] = S(0, r), S(n-r, n)
				empty = empty || r == 0
			}
		}
		if empty {
			continue
		}
		dv, err := dst.Index(di...)
		if err != nil {
			return err
		}
		sv, err := src.Index(si...)
		if err != nil {
			_ = dv.Release()
			return err
		}
		err = EvalInto(dv, sv, opt)
		_ = dv.Release()
		_ = sv.Release()
		if err != nil {
			return fmt.Errorf("gpuarr.%s: %w", call, err)
		}
	}
	return nil
}
