package fft

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/internal/arrayhook"
)

// This file turns a transform over chosen axes of a contiguous row-major
// array into library calls (device.FFTPlan, device.Stream.FFT), and is
// the package's one door to arrayhook.
//
// The transformed axes are split into chunks: runs of consecutive axes,
// at most device.MaxFFTRank long. A chunk [lo, hi] of an array is one
// plan over its axes, with the axes before it (outer) and after it
// (inner) as the batch: when inner is 1 the batch is outer transforms
// one after the other, one call; otherwise the transforms are strided
// (stride inner) and one plan covers either the inner ones (one call per
// outer index) or the outer ones (one call per inner index), whichever
// makes fewer calls. No axis is ever moved, so a transform of the last
// axes of a contiguous array is one call per chunk.
//
// The real inverses zero the imaginary parts of the terms that must be
// real before the library sees them (NumPy's irfft ignores them; cuFFT's
// result would depend on them), and IRFFTN is IFFT along all but the last
// axis and IRFFT along the last, as NumPy's irfftn, so inputs that are not
// Hermitian give NumPy's results too. Plans are made once per shape, type,
// batch and layout and cached per device (the least recently used idle
// plan goes past a bound); the stream and the workspace are set per call.
// cuFFT allocates no workspace of its own: each call's workspace is an
// array from the caching pool on the call's stream, released once the
// call is queued. A plan's own tables (twiddle factors) are cuFFT's
// memory.

// chunk is the axes lo..hi, transformed by one plan.
type chunk struct{ lo, hi int }

// chunks cuts the sorted axes into chunks, each run of consecutive axes
// from its end (so a run's last axes go together).
func chunks(axes []int) []chunk {
	var out []chunk
	for i := len(axes) - 1; i >= 0; {
		hi := axes[i]
		lo := hi
		i--
		for i >= 0 && axes[i] == lo-1 && hi-lo+1 < device.MaxFFTRank {
			lo--
			i--
		}
		out = append(out, chunk{lo, hi})
	}
	return out
}

// stage is one plan and the element offsets (input, output) of its calls.
type stage struct {
	plan    device.FFTPlan
	inverse bool
	offs    [][2]int
}

func prod(v []int) int {
	n := 1
	for _, d := range v {
		n *= d
	}
	return n
}

// stageFor lays out chunk ch of a transform of kind k (complex type ct)
// from an array of shape ish to one of shape osh (equal but for the real
// side of R2C and C2R, whose complex side's last chunk axis has n/2+1
// elements).
func stageFor(k device.FFTKind, ct device.DType, ish, osh []int, ch chunk, inverse bool) stage {
	p := device.FFTPlan{Kind: k, Type: ct, Rank: ch.hi - ch.lo + 1}
	logical := ish
	if k == device.C2R {
		logical = osh
	}
	copy(p.N[:], logical[ch.lo:ch.hi+1])
	outer, inner := prod(ish[:ch.lo]), prod(ish[ch.hi+1:])
	nIn, nOut := prod(ish[ch.lo:ch.hi+1]), prod(osh[ch.lo:ch.hi+1])
	st := stage{inverse: inverse}
	switch {
	case inner == 1:
		p.Batch, p.IStride, p.IDist, p.OStride, p.ODist = outer, 1, nIn, 1, nOut
		st.offs = [][2]int{{0, 0}}
	case outer <= inner:
		p.Batch, p.IStride, p.IDist, p.OStride, p.ODist = inner, inner, 1, inner, 1
		for o := range outer {
			st.offs = append(st.offs, [2]int{o * nIn * inner, o * nOut * inner})
		}
	default:
		p.Batch, p.IStride, p.IDist, p.OStride, p.ODist = outer, inner, nIn*inner, inner, nOut*inner
		for i := range inner {
			st.offs = append(st.offs, [2]int{i, i})
		}
	}
	st.plan = p
	return st
}

// c2cStages are the stages of the C2C transforms of the axes (sorted) of
// an array of shape sh.
func c2cStages(ct device.DType, sh []int, axes []int, inverse bool) []stage {
	var out []stage
	for _, ch := range chunks(axes) {
		out = append(out, stageFor(device.C2C, ct, sh, sh, ch, inverse))
	}
	return out
}

// execute issues the stages as one tracked use: the first stage reads
// src and writes dst, the others transform dst in place (src and dst are
// one array when same; srcWritten says the library overwrites src, as
// cuFFT's C2R does). The workspace is the largest any plan asks, one
// array from the pool of s's device, written on s and released once
// queued.
func execute[A, B gpuarr.Element](call string, s *device.Stream, src *gpuarr.Array[A], dst *gpuarr.Array[B], same, srcWritten bool, stages []stage) error {
	if len(stages) == 0 {
		return nil
	}
	var need uint64
	for i := range stages {
		n, err := s.FFTWorkspace(&stages[i].plan)
		if err != nil {
			return err
		}
		need = max(need, n)
	}
	uses := []arrayhook.Use{arrayhook.ReadsWrites(dst, s)}
	switch {
	case same:
	case srcWritten:
		uses = append(uses, arrayhook.ReadsWrites(src, s))
	default:
		uses = append(uses, arrayhook.Reads(src, s))
	}
	var work *gpuarr.Array[uint8]
	if need > 0 {
		var err error
		if work, err = arrayhook.Workspace(call, s, int(need)); err != nil {
			return fmt.Errorf("the FFT's %d-byte workspace: %w", need, err)
		}
		defer work.Release()
		uses = append(uses, arrayhook.Writes(work, s))
	}
	return arrayhook.Track(call, uses, func() error {
		ip, op := arrayhook.DevicePtr(src), arrayhook.DevicePtr(dst)
		var wp device.Ptr
		if work != nil {
			wp = arrayhook.DevicePtr(work)
		}
		for i := range stages {
			st := &stages[i]
			in := ip
			if i > 0 {
				in = op
			}
			ei, eo := st.plan.ElemSizes()
			for _, o := range st.offs {
				c := device.FFTCall{Plan: st.plan, Inverse: st.inverse,
					In: in.Add(uint64(o[0]) * ei), Out: op.Add(uint64(o[1]) * eo), Work: wp, WorkBytes: need}
				if err := s.FFT(&c); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// streamOf is the stream the options name (dev's default stream
// without one). A capturing stream is refused: the library's calls are
// not recorded into graphs.
func streamOf(opts []gpuarr.Option, dev *device.Device) (*device.Stream, error) {
	s, err := arrayhook.StreamOf(opts, dev)
	if err == nil && s.IsCapturing() {
		return nil, fmt.Errorf("a stream of %s that is capturing: FFT library calls are not recorded into graphs; run them outside the capture: %w", s.Device(), device.ErrStreamCapture)
	}
	return s, err
}

func on(s *device.Stream) gpuarr.Option { return gpuarr.On(s) }

// contiguous reports whether a's elements are row-major without gaps.
func contiguous[T gpuarr.Element](a *gpuarr.Array[T]) bool {
	sh, st := a.Shape(), a.Strides()
	want := 1
	for i := len(sh) - 1; i >= 0; i-- {
		if sh[i] != 1 && st[i] != want {
			return false
		}
		want *= sh[i]
	}
	return true
}

// with is sh with the extents of axes replaced by lens.
func with(sh gpuarr.Shape, axes, lens []int) gpuarr.Shape {
	out := append(gpuarr.Shape(nil), sh...)
	for i, a := range axes {
		out[a] = lens[i]
	}
	return out
}

// scaler multiplies an operand by a constant in one fused pass, or is
// nil for the factor 1.
type scaler[T gpuarr.Element] func(gpuarr.Operand[T]) gpuarr.Operand[T]

// complexScale multiplies each part of a complex operand by f (exact for
// infinities, unlike a complex product by f+0i).
func complexScale[C gpuarr.ComplexFloat](f float64) scaler[C] {
	if f == 1 {
		return nil
	}
	return func(x gpuarr.Operand[C]) gpuarr.Operand[C] {
		if dtype.Of[C]() == dtype.Complex64 {
			k := gpuarr.Scalar(float32(f))
			return gpuarr.Complex[C](gpuarr.Mul(gpuarr.Real[float32](x), k), gpuarr.Mul(gpuarr.Imag[float32](x), k))
		}
		k := gpuarr.Scalar(f)
		return gpuarr.Complex[C](gpuarr.Mul(gpuarr.Real[float64](x), k), gpuarr.Mul(gpuarr.Imag[float64](x), k))
	}
}

// realScale multiplies a real operand by f.
func realScale[R gpuarr.Float](f float64) scaler[R] {
	if f == 1 {
		return nil
	}
	return func(x gpuarr.Operand[R]) gpuarr.Operand[R] { return gpuarr.Mul(x, gpuarr.Scalar(R(f))) }
}

// prepare is a new contiguous array of shape sh holding x cut or padded
// with zeros to sh (which differs from x's shape only along axes), times
// the scaler's factor: one pass, after a zero fill when it pads.
func prepare[T gpuarr.Element](x *gpuarr.Array[T], sh gpuarr.Shape, sc scaler[T], s *device.Stream) (*gpuarr.Array[T], error) {
	xs := x.Shape()
	pad := false
	src := make([]gpuarr.Index, len(sh))
	dst := make([]gpuarr.Index, len(sh))
	empty := false
	for i := range sh {
		src[i], dst[i] = gpuarr.Colon, gpuarr.Colon
		if xs[i] != sh[i] {
			m := min(xs[i], sh[i])
			src[i], dst[i] = gpuarr.S(0, m), gpuarr.S(0, m)
			pad = pad || sh[i] > xs[i]
			empty = empty || m == 0
		}
	}
	var w *gpuarr.Array[T]
	var err error
	if pad {
		w, err = gpuarr.Zeros[T](sh, on(s))
	} else {
		w, err = gpuarr.Empty[T](sh, on(s))
	}
	if err != nil || empty || w.Len() == 0 {
		return w, err
	}
	xv, err := x.Index(src...)
	if err != nil {
		w.Release()
		return nil, err
	}
	defer xv.Release()
	wv, err := w.Index(dst...)
	if err != nil {
		w.Release()
		return nil, err
	}
	defer wv.Release()
	var e gpuarr.Operand[T] = xv
	if sc != nil {
		e = sc(xv)
	}
	if err := gpuarr.EvalInto(wv, e, on(s)); err != nil {
		w.Release()
		return nil, err
	}
	return w, nil
}

// scaleInPlace multiplies a by the scaler's factor.
func scaleInPlace[T gpuarr.Element](a *gpuarr.Array[T], sc scaler[T], s *device.Stream) error {
	if sc == nil || a.Len() == 0 {
		return nil
	}
	return gpuarr.EvalInto(a, sc(a), on(s))
}

// sortedActive is the axes (sorted) whose length is more than 1: a
// transform of one point is the identity.
func sortedActive(axes, lens []int, skip int) []int {
	var out []int
	for i, a := range axes {
		if lens[i] > 1 && a != skip {
			out = append(out, a)
		}
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// complexOf is the complex type of R's parts.
func complexOf[R gpuarr.Float]() device.DType {
	if dtype.Of[R]() == dtype.Float32 {
		return dtype.Complex64
	}
	return dtype.Complex128
}
