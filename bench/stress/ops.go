package main

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/internal/testkernels"
)

// elem is the element types the trials use: one the fill and copy kernels
// take (uint32), one the vadd kernel takes (float32) and an 8-byte one.
type elem interface{ uint32 | float32 | int64 }

// env is what every trial shares: one devEnv per device (the first is the
// default device, where every kind but the collective runs), a capture
// stream per worker, and the collective's communicator.
type env struct {
	devs    []*devEnv
	capture []*device.Stream // one per worker: a capture must have its stream to itself
	coll    collectiveEnv
	unified availability
}

// devEnv is one device's share: the test kernels, the streams, and one
// read-only 0, 1, 2, … array per element type (the expression writes read
// views of it from every stream at once).
type devEnv struct {
	dev     *device.Device
	ks      *testkernels.Set
	streams []*device.Stream
	iotaU32 *gpuarr.Array[uint32]
	iotaF32 *gpuarr.Array[float32]
	iotaI64 *gpuarr.Array[int64]
}

// availability says whether a kind can run on this machine, and why not.
type availability struct {
	ok  bool
	why string
}

// one is a single-thread launch (the spin kernel uses thread 0).
var one = device.LaunchConfig{Grid: device.Dim3{X: 1}, Block: device.Dim3{X: 1}}

func linear(n int) device.LaunchConfig { return device.Linear(uint64(n), 128) }

func iotaOf[T elem](e *devEnv) *gpuarr.Array[T] {
	var a any
	switch any(*new(T)).(type) {
	case uint32:
		a = e.iotaU32
	case float32:
		a = e.iotaF32
	case int64:
		a = e.iotaI64
	}
	return a.(*gpuarr.Array[T])
}

func newIota[T elem](dev *device.Device) (*gpuarr.Array[T], error) {
	v := make([]T, maxElems)
	for i := range v {
		v[i] = T(i)
	}
	return gpuarr.FromSlice(v, gpuarr.Shape{maxElems}, gpuarr.OnDevice(dev))
}

func toT[T elem](v []int64) []T {
	out := make([]T, len(v))
	for i, x := range v {
		out[i] = T(x)
	}
	return out
}

// spin holds stream s back for ns nanoseconds of device time: a spin
// kernel on a scratch element, released at once (its memory goes back to
// the pool in s's order, after the kernel).
func (e *devEnv) spin(s *device.Stream, ns uint64) error {
	if ns == 0 {
		return nil
	}
	d, err := gpuarr.Empty[uint32](gpuarr.Shape{1}, gpuarr.On(s))
	if err != nil {
		return err
	}
	err = gpuarr.Launch(e.ks.SpinWrite, one, gpuarr.Out(d), uint32(0), ns, gpuarr.On(s))
	return firstErr(err, d.Release())
}

// writeInto gives x the contents of w on s, held back ns on the device
// (for wFill, the late part is element 0; for the others, the whole
// write).
func writeInto[T elem](e *devEnv, x *gpuarr.Array[T], s *device.Stream, w write, ns uint64) error {
	on := gpuarr.On(s)
	n := x.Len()
	switch w.method {
	case wFill:
		xu, ok := any(x).(*gpuarr.Array[uint32])
		if !ok {
			return fmt.Errorf("fill kernel on %T", x)
		}
		if err := gpuarr.Launch(e.ks.Fill, linear(n), gpuarr.Out(xu), uint32(w.v), uint64(n), on); err != nil {
			return err
		}
		return gpuarr.Launch(e.ks.SpinWrite, one, gpuarr.Out(xu), uint32(w.v+1), ns, on)
	case wVAdd:
		xf, ok := any(x).(*gpuarr.Array[float32])
		if !ok {
			return fmt.Errorf("vadd kernel on %T", x)
		}
		a, err := gpuarr.Full(gpuarr.Shape{n}, float32(w.v), on)
		if err != nil {
			return err
		}
		b, err := gpuarr.Full(gpuarr.Shape{n}, float32(w.k), on)
		if err != nil {
			return firstErr(err, a.Release())
		}
		err = e.spin(s, ns)
		if err == nil {
			err = gpuarr.Launch(e.ks.VAdd, linear(n), gpuarr.In(a), gpuarr.In(b), gpuarr.Out(xf), uint64(n), on)
		}
		return firstErr(err, a.Release(), b.Release())
	case wExpr:
		view, err := iotaOf[T](e).Slice(0, n)
		if err != nil {
			return err
		}
		err = e.spin(s, ns)
		if err == nil {
			err = gpuarr.EvalInto(x, gpuarr.FMA[T](view, gpuarr.Scalar(T(w.k)), gpuarr.Scalar(T(w.c))), on)
		}
		return firstErr(err, view.Release())
	case wCopy:
		src, err := gpuarr.FromSlice(toT[T](w.data), gpuarr.Shape{n}, on)
		if err != nil {
			return err
		}
		err = e.spin(s, ns)
		if err == nil {
			err = gpuarr.Copy(x, src, on)
		}
		return firstErr(err, src.Release())
	case wHost:
		if err := e.spin(s, ns); err != nil {
			return err
		}
		return x.CopyFromHost(toT[T](w.data), on)
	case wAddSelf:
		if err := e.spin(s, ns); err != nil {
			return err
		}
		return gpuarr.EvalInto(x, gpuarr.Add[T](x, gpuarr.Scalar(T(band))), on)
	}
	return fmt.Errorf("unknown write method %d", w.method)
}

// produce allocates an array of n elements on s and writes w into it;
// with alloc, an expression write allocates and writes in one Eval.
func produce[T elem](e *devEnv, n int, s *device.Stream, w write, ns uint64, alloc bool) (*gpuarr.Array[T], error) {
	on := gpuarr.On(s)
	if alloc && w.method == wExpr {
		view, err := iotaOf[T](e).Slice(0, n)
		if err != nil {
			return nil, err
		}
		var x *gpuarr.Array[T]
		err = e.spin(s, ns)
		if err == nil {
			x, err = gpuarr.Eval(gpuarr.FMA[T](view, gpuarr.Scalar(T(w.k)), gpuarr.Scalar(T(w.c))), on)
		}
		return x, firstErr(err, view.Release())
	}
	x, err := gpuarr.Empty[T](gpuarr.Shape{n}, on)
	if err != nil {
		return nil, err
	}
	if err := writeInto(e, x, s, w, ns); err != nil {
		return nil, firstErr(err, x.Release())
	}
	return x, nil
}

// reading is a read issued on a stream and not yet looked at: its result
// array (or the host copy already made), checked by collect.
type reading[T elem] struct {
	method readMethod
	y      *gpuarr.Array[T]
	host   []T
}

// read issues m's read of x on s (held back ns on the device first).
func read[T elem](e *devEnv, x *gpuarr.Array[T], s *device.Stream, m readMethod, ns uint64) (*reading[T], error) {
	if err := e.spin(s, ns); err != nil {
		return nil, err
	}
	on := gpuarr.On(s)
	n := x.Len()
	r := &reading[T]{method: m}
	var err error
	switch m {
	case rCopyKernel:
		xu, ok := any(x).(*gpuarr.Array[uint32])
		if !ok {
			return nil, fmt.Errorf("copy kernel on %T", x)
		}
		var y *gpuarr.Array[uint32]
		if y, err = gpuarr.Empty[uint32](gpuarr.Shape{n}, on); err == nil {
			r.y = any(y).(*gpuarr.Array[T])
			err = gpuarr.Launch(e.ks.Copy, linear(n), gpuarr.Out(y), gpuarr.In(xu), uint64(n), on)
		}
	case rVAdd:
		xf, ok := any(x).(*gpuarr.Array[float32])
		if !ok {
			return nil, fmt.Errorf("vadd kernel on %T", x)
		}
		var y *gpuarr.Array[float32]
		if y, err = gpuarr.Empty[float32](gpuarr.Shape{n}, on); err == nil {
			r.y = any(y).(*gpuarr.Array[T])
			err = gpuarr.Launch(e.ks.VAdd, linear(n), gpuarr.In(xf), gpuarr.In(xf), gpuarr.Out(y), uint64(n), on)
		}
	case rExpr:
		r.y, err = gpuarr.Eval(gpuarr.Add(gpuarr.Mul[T](x, gpuarr.Scalar(T(2))), gpuarr.Scalar(T(1))), on)
	case rCopy:
		if r.y, err = gpuarr.Empty[T](gpuarr.Shape{n}, on); err == nil {
			err = gpuarr.Copy(r.y, x, on)
		}
	case rClone:
		r.y, err = gpuarr.Clone(x, on)
	case rSum:
		r.y, err = gpuarr.SumAs[T](x, on) // in T (Sum refuses uint32 elements)
	case rHost:
		r.host, err = x.ToSlice()
	default:
		err = fmt.Errorf("unknown read method %d", m)
	}
	if err != nil {
		return nil, firstErr(err, r.release())
	}
	return r, nil
}

func (r *reading[T]) release() error {
	if r.y == nil {
		return nil
	}
	return r.y.Release()
}

// expected is what read method m gives for contents want.
func expected(m readMethod, want []int64) []int64 {
	switch m {
	case rVAdd:
		out := make([]int64, len(want))
		for i, v := range want {
			out[i] = 2 * v
		}
		return out
	case rExpr:
		out := make([]int64, len(want))
		for i, v := range want {
			out[i] = 2*v + 1
		}
		return out
	case rSum:
		var s int64
		for _, v := range want {
			s += v
		}
		return []int64{s}
	}
	return want
}

// collect reads the result on the host (no manual synchronization: the
// host read waits for the writer) and compares it with what m gives for
// want; it returns one line per wrong element (at most a few, then a
// count) and releases the result.
func (r *reading[T]) collect(what string, want []int64) ([]string, error) {
	got := r.host
	if r.y != nil {
		var err error
		if got, err = r.y.ToSlice(); err != nil {
			return nil, firstErr(err, r.release())
		}
		if err := r.release(); err != nil {
			return nil, err
		}
	}
	r.host = got
	return compare(fmt.Sprintf("%s (%s)", what, readNames[r.method]), got, expected(r.method, want)), nil
}

// diagnose says what a wrong read saw, given the contents a later write
// gave its array (late): those (the read ran after the write: an ordering
// miss) or neither (its memory was reused or corrupted). r must have been
// collected.
func (r *reading[T]) diagnose(late []int64) string {
	if late != nil && len(compare("", r.host, expected(r.method, late))) == 0 {
		return "the read saw the later write's contents: the read was not ordered before it"
	}
	return "the read saw neither the contents it was issued after nor the later write's: memory reused or corrupted"
}

// compare checks got against want exactly.
func compare[T elem](what string, got []T, want []int64) []string {
	if len(got) != len(want) {
		return []string{fmt.Sprintf("%s: %d elements, want %d", what, len(got), len(want))}
	}
	var out []string
	bad := 0
	for i := range got {
		if got[i] == T(want[i]) {
			continue
		}
		bad++
		if bad <= 4 {
			out = append(out, fmt.Sprintf("%s[%d] = %v, want %d", what, i, got[i], want[i]))
		}
	}
	if bad > 4 {
		out = append(out, fmt.Sprintf("%s: %d wrong elements of %d in all", what, bad, len(got)))
	}
	return out
}

// check reads x on the host and compares it with want.
func check[T elem](what string, x *gpuarr.Array[T], want []int64) ([]string, error) {
	got, err := x.ToSlice()
	if err != nil {
		return nil, err
	}
	return compare(what, got, want), nil
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
