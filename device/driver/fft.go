package driver

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device/dtype"
)

// FFTKind is the kind of a batch of discrete Fourier transforms.
type FFTKind uint8

const (
	// C2C: complex to complex, forward (exponent −2πi·jk/n) or inverse
	// (+2πi·jk/n), both unnormalized.
	C2C FFTKind = iota + 1
	// R2C: the forward transform of real data: the last dimension's
	// first N/2+1 coefficients (the others are their conjugates).
	R2C
	// C2R: the inverse of R2C, unnormalized: N/2+1 coefficients along the
	// last dimension make N real values. The imaginary parts of the
	// coefficients that must be real (index 0, and N/2 for even N) are
	// ignored on the host and undefined on CUDA: callers zero them.
	C2R
)

var fftKindNames = [...]string{"", "C2C", "R2C", "C2R"}

func (k FFTKind) String() string {
	if int(k) < len(fftKindNames) && k > 0 {
		return fftKindNames[k]
	}
	return fmt.Sprintf("FFTKind(%d)", int(k))
}

// MaxFFTRank is the most dimensions one FFTPlan transforms.
const MaxFFTRank = 3

// FFTPlan is the shape of a batch of transforms, cuFFT's advanced data
// layout without padding: Batch transforms of Rank dimensions N[0..Rank)
// (N[Rank:] zero). Type is the complex type (Complex64 or Complex128);
// the real side of R2C and C2R has its part type.
//
// Element (b, i₀, …, i_{Rank−1}) of the input is IDist·b + IStride·l
// elements from the input pointer, where l is the row-major index of
// (i₀, …) among the input's extents; likewise the output with OStride and
// ODist. The extents are N, except the complex side of R2C and C2R, whose
// last dimension has N[Rank−1]/2+1 elements. A plan is comparable: it
// names the library plan a backend caches.
type FFTPlan struct {
	Kind                           FFTKind
	Type                           dtype.DType
	Rank                           int
	N                              [MaxFFTRank]int
	Batch                          int
	IStride, IDist, OStride, ODist int
}

func (p *FFTPlan) String() string {
	return fmt.Sprintf("%v %v n=%v batch=%d in=(stride %d, dist %d) out=(stride %d, dist %d)",
		p.Type, p.Kind, p.N[:max(0, min(p.Rank, MaxFFTRank))], p.Batch, p.IStride, p.IDist, p.OStride, p.ODist)
}

// Len is the number of points of one transform: the product of N.
func (p *FFTPlan) Len() int {
	n := 1
	for _, d := range p.N[:p.Rank] {
		n *= d
	}
	return n
}

// Extents are the input's and the output's elements per transform (the
// products of their extents, as the layout above says).
func (p *FFTPlan) Extents() (in, out int) {
	n := p.Len()
	half := n / p.N[p.Rank-1] * (p.N[p.Rank-1]/2 + 1)
	switch p.Kind {
	case R2C:
		return n, half
	case C2R:
		return half, n
	}
	return n, n
}

// ElemSizes are the input's and the output's element sizes in bytes.
func (p *FFTPlan) ElemSizes() (in, out uint64) {
	c := uint64(p.Type.Size())
	switch p.Kind {
	case R2C:
		return c / 2, c
	case C2R:
		return c, c / 2
	}
	return c, c
}

// Spans are the bytes from the input and the output pointers to one past
// the last element the batch touches.
func (p *FFTPlan) Spans() (in, out uint64) {
	if p.Batch == 0 {
		return 0, 0
	}
	ni, no := p.Extents()
	ei, eo := p.ElemSizes()
	in = (uint64(p.Batch-1)*uint64(p.IDist) + uint64(ni-1)*uint64(p.IStride) + 1) * ei
	out = (uint64(p.Batch-1)*uint64(p.ODist) + uint64(no-1)*uint64(p.OStride) + 1) * eo
	return in, out
}

// FFTCall is one execution of a plan: In to Out (the same pointer, with
// the same layout, for an in-place C2C transform; otherwise the two must
// not overlap). R2C and C2R are out-of-place and, on CUDA, C2R overwrites
// its input. Inverse selects
// the inverse C2C transform; R2C is always forward and C2R inverse.
type FFTCall struct {
	Plan    FFTPlan
	Inverse bool
	In, Out Ptr
	// Work is the device workspace, WorkBytes long, of at least what
	// FFTWorkspace reported for the plan.
	Work      Ptr
	WorkBytes uint64
}

// FFT is an optional capability of a backend's Stream: batches of
// discrete Fourier transforms queued in stream order like kernels (cuFFT
// on CUDA, gonum's dsp/fourier on the host). A backend whose FFT library
// cannot be loaded still implements it and fails with NotSupported naming
// the library. Backends treat HideSymbol("libcufft") as hiding the whole
// library.
type FFT interface {
	// FFTWorkspace is the device workspace bytes an execution of p needs
	// (on CUDA: making the plan, or finding it in the device's cache; it
	// reads no data).
	FFTWorkspace(p *FFTPlan) (uint64, error)
	// FFT queues c on the stream.
	FFT(c *FFTCall) error
}

// FFTLibrary names the cuFFT sonames, as errors for a missing library say.
const FFTLibrary = "libcufft.so.12 or libcufft.so.11"
