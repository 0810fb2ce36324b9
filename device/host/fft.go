package host

import (
	"math/cmplx"
	"runtime/debug"

	"gonum.org/v1/gonum/dsp/fourier"

	"github.com/gpuarr/gpuarr/device/driver"
	"github.com/gpuarr/gpuarr/device/dtype"
)

// The Fourier transforms run gonum's dsp/fourier (FFTPACK) in complex128
// (complex64 data is widened and the result rounded once) on the stream's
// goroutine, in stream order like a kernel, under the rules a kernel
// follows: live memory of this device or of a peer with access enabled.
// Each transform of a batch is gathered into the call's workspace (one
// complex128 per point: what FFTWorkspace reports), transformed one
// dimension at a time and scattered to the output, so in-place C2C
// transforms work as on CUDA. Real data takes the complex transforms too
// (R2C keeps the first N/2+1 coefficients; C2R rebuilds each last-axis
// line's Hermitian spectrum from them, ignoring the imaginary parts of
// the coefficients that must be real, as NumPy's irfft does):
// FFTPACK's real transforms lose accuracy for large prime factors, its
// complex ones do not. HideSymbol("libcufft") makes the calls
// fail as on a machine without cuFFT.

const fftCall = "cufftExec"

// fftLibHidden reports a hidden FFT library the way the CUDA backend
// reports a missing one.
func (d *device) fftLibHidden() error {
	if err := d.symbol("libcufft"); err != nil {
		return &driver.Error{Plain: true, Call: "dlopen " + driver.FFTLibrary, Code: driver.NotSupported,
			Detail: "hidden on " + d.String() + " by HideSymbol(\"libcufft\")"}
	}
	return nil
}

// fftWork is the workspace an execution of p needs: one complex128 per
// point of a transform.
func fftWork(p *driver.FFTPlan) uint64 { return uint64(p.Len()) * 16 }

// FFTWorkspace reports the workspace FFT needs; see driver.FFT.
func (s *stream) FFTWorkspace(p *driver.FFTPlan) (uint64, error) {
	if err := s.dev.fftLibHidden(); err != nil {
		return 0, err
	}
	return fftWork(p), nil
}

// FFT queues the transforms; see driver.FFT.
func (s *stream) FFT(c *driver.FFTCall) error {
	if err := s.dev.fftLibHidden(); err != nil {
		return err
	}
	p := c.Plan
	if need := fftWork(&p); c.WorkBytes < need {
		return driver.Errorf(fftCall, driver.InvalidValue, "%v: a %d-byte workspace, %d needed", &p, c.WorkBytes, need)
	}
	in, out := p.Spans()
	ei, eo := p.ElemSizes()
	for _, x := range []struct {
		what string
		p    driver.Ptr
		n    uint64
		al   uint64
	}{{"input", c.In, in, ei}, {"output", c.Out, out, eo}, {"workspace", c.Work, c.WorkBytes, 1}} {
		if x.n == 0 {
			continue
		}
		if uint64(x.p)%x.al != 0 {
			return errorf(fftCall, driver.MisalignedAddress, "%v: the %s at %v is not %d-byte aligned", &p, x.what, x.p, x.al)
		}
		if err := span(fftCall, x.p, x.n); err != nil {
			return err
		}
	}
	cc := *c
	dev := s.dev
	return s.enqueue(fftCall, func() error { return dev.fft(&cc) })
}

// fft runs the batch of c; a gonum panic becomes the stream's error
// rather than the process's.
func (d *device) fft(c *driver.FFTCall) (err error) {
	m := &solveMem{d: d, call: fftCall}
	defer m.release()
	defer func() {
		if r := recover(); r != nil {
			err = driver.Errorf(fftCall, driver.InvalidValue, "gonum refused %v on %s: %v\n%s", &c.Plan, d, r, debug.Stack())
		}
	}()
	p := &c.Plan
	ni, no := p.Spans()
	work, err := m.bytes("workspace", c.Work, c.WorkBytes)
	if err != nil {
		return err
	}
	in, err := m.bytes("input", c.In, ni)
	if err != nil {
		return err
	}
	out, err := m.bytes("output", c.Out, no)
	if err != nil {
		return err
	}
	w := floats[complex128](work)[:p.Len()]
	x := newFFTRun(p, c.Inverse)
	for b := range p.Batch {
		x.gather(w, in, b)
		x.transform(w)
		x.scatter(out, w, b)
	}
	return nil
}

// fftRun is one batch's transforms: the plan, its direction and gonum's
// transforms for each dimension's length.
type fftRun struct {
	p       *driver.FFTPlan
	inverse bool
	n       []int
	inExt   []int // the input's extents (the complex side of C2R halved)
	cplx    map[int]*fourier.CmplxFFT
	line    []complex128
}

func newFFTRun(p *driver.FFTPlan, inverse bool) *fftRun {
	n := append([]int(nil), p.N[:p.Rank]...)
	x := &fftRun{p: p, inverse: inverse || p.Kind == driver.C2R, n: n, cplx: map[int]*fourier.CmplxFFT{}}
	x.inExt = append([]int(nil), n...)
	last := n[len(n)-1]
	if p.Kind == driver.C2R {
		x.inExt[len(n)-1] = last/2 + 1
	}
	longest := 0
	for _, d := range n {
		longest = max(longest, d)
		if x.cplx[d] == nil {
			x.cplx[d] = fourier.NewCmplxFFT(d)
		}
	}
	x.line = make([]complex128, longest)
	return x
}

// gather loads transform b of the input into w, row-major over the
// input's extents (C2R: the halved layout, within w's first elements).
func (x *fftRun) gather(w []complex128, in []byte, b int) {
	p := x.p
	cnt := 1
	for _, e := range x.inExt {
		cnt *= e
	}
	base := b * p.IDist
	switch {
	case p.Kind == driver.R2C && p.Type == dtype.Complex64:
		v := floats[float32](in)
		for l := range cnt {
			w[l] = complex(float64(v[base+l*p.IStride]), 0)
		}
	case p.Kind == driver.R2C:
		v := floats[float64](in)
		for l := range cnt {
			w[l] = complex(v[base+l*p.IStride], 0)
		}
	case p.Type == dtype.Complex64:
		v := floats[complex64](in)
		for l := range cnt {
			w[l] = complex128(v[base+l*p.IStride])
		}
	default:
		v := floats[complex128](in)
		for l := range cnt {
			w[l] = v[base+l*p.IStride]
		}
	}
}

// transform applies the transform in place on w.
func (x *fftRun) transform(w []complex128) {
	dims := len(x.n)
	if x.p.Kind == driver.C2R {
		dims-- // the last dimension is the real inverse, in scatter
	}
	ext := x.inExt
	for d := range dims {
		inner := 1
		for _, e := range ext[d+1:] {
			inner *= e
		}
		outer := 1
		for _, e := range ext[:d] {
			outer *= e
		}
		n := ext[d]
		if n == 1 {
			continue
		}
		f, line := x.cplx[n], x.line[:n]
		for o := range outer {
			for i := range inner {
				at := o*n*inner + i
				for k := range n {
					line[k] = w[at+k*inner]
				}
				if x.inverse {
					f.Sequence(line, line)
				} else {
					f.Coefficients(line, line)
				}
				for k := range n {
					w[at+k*inner] = line[k]
				}
			}
		}
	}
}

// scatter stores transform b from w into the output: R2C keeps the first
// N/2+1 coefficients of each last-dimension line, C2R runs the real
// inverse on each line of coefficients.
func (x *fftRun) scatter(out []byte, w []complex128, b int) {
	p := x.p
	last := x.n[len(x.n)-1]
	lines := p.Len() / last
	base := b * p.ODist
	switch p.Kind {
	case driver.C2C:
		if p.Type == dtype.Complex64 {
			v := floats[complex64](out)
			for l := range p.Len() {
				v[base+l*p.OStride] = complex64(w[l])
			}
		} else {
			v := floats[complex128](out)
			for l := range p.Len() {
				v[base+l*p.OStride] = w[l]
			}
		}
	case driver.R2C:
		h := last/2 + 1
		v64, v128 := floats[complex64](out), floats[complex128](out)
		for r := range lines {
			for k := range h {
				o := base + (r*h+k)*p.OStride
				if p.Type == dtype.Complex64 {
					v64[o] = complex64(w[r*last+k])
				} else {
					v128[o] = w[r*last+k]
				}
			}
		}
	case driver.C2R:
		h := last/2 + 1
		v32, v64 := floats[float32](out), floats[float64](out)
		f, line := x.cplx[last], x.line[:last]
		for r := range lines {
			// The full Hermitian spectrum of the line's coefficients, whose
			// first (and for even N last) must be real, then the complex
			// inverse: FFTPACK's real inverse loses accuracy for large
			// prime factors, its complex one does not.
			coef := w[r*h : (r+1)*h]
			for k := range last {
				if k < h {
					line[k] = coef[k]
				} else {
					line[k] = cmplx.Conj(coef[last-k])
				}
			}
			line[0] = complex(real(line[0]), 0)
			if last%2 == 0 {
				line[last/2] = complex(real(line[last/2]), 0)
			}
			if last > 1 {
				f.Sequence(line, line)
			}
			for k, c := range line {
				o := base + (r*last+k)*p.OStride
				if p.Type == dtype.Complex64 {
					v32[o] = float32(real(c))
				} else {
					v64[o] = real(c)
				}
			}
		}
	}
}
