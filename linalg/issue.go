package linalg

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/internal/arrayhook"
)

// This file is the package's one door to the hooks internal/arrayhook
// offers packages that issue work of their own on gpuarr's arrays
// (StreamOf, Track, Reads, Writes, ReadsWrites, DevicePtr), and to the
// device's solver and BLAS calls.

// streamOf is the stream the options name (dev's default stream
// without one). A capturing stream is refused: the libraries allocate and
// synchronize in ways a graph cannot record, and the functions that read
// info words back could not.
func streamOf(opts []gpuarr.Option, dev *device.Device) (*device.Stream, error) {
	s, err := arrayhook.StreamOf(opts, dev)
	if err == nil && s.IsCapturing() {
		return nil, fmt.Errorf("a stream of %s that is capturing: solver and BLAS library calls are not recorded into graphs; run them outside the capture: %w", s.Device(), device.ErrStreamCapture)
	}
	return s, err
}

func reads[T gpuarr.Numeric](a *gpuarr.Array[T], s *device.Stream) arrayhook.Use {
	return arrayhook.Reads(a, s)
}

func writes[T gpuarr.Numeric](a *gpuarr.Array[T], s *device.Stream) arrayhook.Use {
	return arrayhook.Writes(a, s)
}

func readsWrites[T gpuarr.Numeric](a *gpuarr.Array[T], s *device.Stream) arrayhook.Use {
	return arrayhook.ReadsWrites(a, s)
}

// ptr is the device address of a's first element. It is used inside a
// tracked issue, and outside one only for buffer-size queries and pointer
// arrays of arrays the caller holds (a's address does not change while it
// is held; neither use reads the memory before the tracked issue runs).
func ptr[T gpuarr.Numeric](a *gpuarr.Array[T]) device.Ptr { return arrayhook.DevicePtr(a) }

// step is one routine issued for n matrices (n = 1 for a batched routine):
// call(i) is its call for matrix i.
type step struct {
	n    int
	call func(i int) device.SolverCall
}

// issue runs steps on s, in order, as one tracked use of the arrays in
// uses: every call of a step before the next step. The workspace is the
// largest any step's first call asks (the calls of one step have one
// shape), one array from the pool of s's device written on s and released
// once queued, so it counts against the limits and the eager collection
// like any array and the pool reuses it in s's order (device memory
// whatever the default memory: arrayhook.Workspace).
func issue(call string, s *device.Stream, uses []arrayhook.Use, steps ...step) error {
	var need uint64
	for _, st := range steps {
		if st.n == 0 {
			continue
		}
		c := st.call(0)
		n, err := s.SolverWorkspace(&c)
		if err != nil {
			return err
		}
		need = max(need, n)
	}
	var work *gpuarr.Array[uint8]
	if need > 0 {
		var err error
		if work, err = arrayhook.Workspace(call, s, int(need)); err != nil {
			return fmt.Errorf("the solver's %d-byte workspace: %w", need, err)
		}
		defer work.Release()
		uses = append(uses, writes(work, s))
	}
	err := arrayhook.Track(call, uses, func() error {
		var wp device.Ptr
		if work != nil {
			wp = ptr(work)
		}
		for _, st := range steps {
			for i := range st.n {
				c := st.call(i)
				c.Work, c.WorkBytes = wp, need
				if err := s.Solve(&c); err != nil {
					return err
				}
			}
		}
		return nil
	})
	return err
}

// gemms issues one BLAS product per matrix of a batch, as one tracked use
// of uses, with the BLAS workspace from the pool like issue's.
func gemms(call string, s *device.Stream, uses []arrayhook.Use, n int, gemm func(i int) device.Gemm) error {
	if n == 0 {
		return nil
	}
	var work *gpuarr.Array[uint8]
	if need := s.BLASWorkspace(); need > 0 {
		var err error
		if work, err = arrayhook.Workspace(call, s, int(need)); err != nil {
			return fmt.Errorf("the BLAS workspace: %w", err)
		}
		defer work.Release()
		uses = append(uses, writes(work, s))
	}
	err := arrayhook.Track(call, uses, func() error {
		for i := range n {
			g := gemm(i)
			if work != nil {
				g.Work, g.WorkBytes = ptr(work), uint64(work.Len())
			}
			if err := s.Gemm(g); err != nil {
				return err
			}
		}
		return nil
	})
	return err
}

// copies issues device-to-device copies as one tracked use of uses.
func copies(call string, s *device.Stream, uses []arrayhook.Use, n int, cp func(i int) (dst, src device.Ptr, bytes uint64)) error {
	err := arrayhook.Track(call, uses, func() error {
		for i := range n {
			dst, src, bytes := cp(i)
			if bytes == 0 {
				continue
			}
			if err := s.CopyDtoD(dst, src, bytes); err != nil {
				return err
			}
		}
		return nil
	})
	return err
}
