package device

import (
	"math"

	"github.com/gpuarr/gpuarr/device/driver"
)

// FFTKind is the kind of a batch of Fourier transforms; see driver.FFTKind.
type FFTKind = driver.FFTKind

// FFTPlan is the shape and layout of a batch of Fourier transforms; see
// driver.FFTPlan.
type FFTPlan = driver.FFTPlan

// FFTCall is one execution of an FFTPlan; see driver.FFTCall.
type FFTCall = driver.FFTCall

// The transform kinds (see driver's constants of the same names).
const (
	C2C = driver.C2C
	R2C = driver.R2C
	C2R = driver.C2R
)

// MaxFFTRank is the most dimensions one FFTPlan transforms.
const MaxFFTRank = driver.MaxFFTRank

// FFTWorkspace is the device workspace, in bytes, that an execution of p
// needs. On CUDA it makes cuFFT's plan (or finds it in the device's plan
// cache); it reads no data. Without an FFT library the error matches
// ErrNotSupported and names it; a bad plan matches ErrInvalidValue.
func (s *Stream) FFTWorkspace(p *FFTPlan) (uint64, error) {
	const call = "Stream.FFTWorkspace"
	if err := s.check(call); err != nil {
		return 0, err
	}
	if err := checkFFTPlan(call, p); err != nil {
		return 0, err
	}
	f, ok := s.drv.(driver.FFT)
	if !ok {
		return 0, driver.Errorf(call, driver.NotSupported, "the %s backend has no FFT (%s)", s.dev.Backend(), driver.FFTLibrary)
	}
	if p.Batch == 0 {
		return 0, nil
	}
	return f.FFTWorkspace(p)
}

// FFT queues the transforms of c on s (cuFFT on CUDA, gonum's
// dsp/fourier on the host) and returns once they are queued. A plan with
// no transform (Batch 0) does nothing. Errors as FFTWorkspace's; a
// missing pointer, an in-place R2C or C2R, an in-place C2C whose layouts
// differ, a direction R2C or C2R does not have, or a workspace shorter
// than needed matches ErrInvalidValue.
func (s *Stream) FFT(c *FFTCall) error {
	const call = "Stream.FFT"
	if err := s.check(call); err != nil {
		return err
	}
	if c == nil {
		return invalid(call, "nil call")
	}
	p := &c.Plan
	if err := checkFFTPlan(call, p); err != nil {
		return err
	}
	f, ok := s.drv.(driver.FFT)
	if !ok {
		return driver.Errorf(call, driver.NotSupported, "the %s backend has no FFT (%s)", s.dev.Backend(), driver.FFTLibrary)
	}
	if p.Batch == 0 {
		return nil
	}
	switch {
	case c.In == 0 || c.Out == 0:
		return invalid(call, "%v: a null data pointer", p)
	case p.Kind == driver.R2C && c.Inverse, p.Kind == driver.C2R && !c.Inverse:
		return invalid(call, "%v: Inverse=%v: R2C is forward and C2R inverse", p, c.Inverse)
	case c.In == c.Out && p.Kind != driver.C2C:
		return invalid(call, "%v: in place: R2C and C2R are out-of-place only", p)
	case c.In == c.Out && (p.IStride != p.OStride || p.IDist != p.ODist):
		return invalid(call, "%v: in place with different input and output layouts", p)
	case c.WorkBytes > 0 && c.Work == 0:
		return invalid(call, "%v: a %d-byte workspace at a null pointer", p, c.WorkBytes)
	}
	return f.FFT(c)
}

// checkFFTPlan refuses what the libraries would reject or misread.
func checkFFTPlan(call string, p *FFTPlan) error {
	if p == nil {
		return invalid(call, "nil plan")
	}
	if p.Kind < driver.C2C || p.Kind > driver.C2R {
		return invalid(call, "transform kind %v", p.Kind)
	}
	if p.Type != Complex64 && p.Type != Complex128 {
		return invalid(call, "%v: element type %v: want Complex64 or Complex128 (the real side has its part type)", p.Kind, p.Type)
	}
	if p.Rank < 1 || p.Rank > MaxFFTRank {
		return invalid(call, "%v: rank %d: want 1 to %d", p.Kind, p.Rank, MaxFFTRank)
	}
	for i, n := range p.N {
		if i < p.Rank && (n < 1 || n > math.MaxInt32) {
			return invalid(call, "%v: N[%d]=%d: want 1 to 2³¹−1", p.Kind, i, n)
		}
		if i >= p.Rank && n != 0 {
			return invalid(call, "%v: N[%d]=%d beyond rank %d: want 0", p.Kind, i, n, p.Rank)
		}
	}
	if p.Batch < 0 || p.IStride < 1 || p.OStride < 1 || p.IDist < 0 || p.ODist < 0 {
		return invalid(call, "%v: batch, strides or distances out of range (batch ≥ 0, strides ≥ 1, distances ≥ 0)", p)
	}
	const lim = math.MaxInt64 / 16
	ni, no := p.Extents()
	if float64(p.Batch)*float64(max(p.IDist, p.ODist))+float64(max(ni, no))*float64(max(p.IStride, p.OStride)) > lim {
		return invalid(call, "%v: the layout spans more than 2⁵⁹ elements", p)
	}
	return nil
}
