package kernels

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/internal/arg"
	"github.com/gpuarr/gpuarr/internal/indexcheck"
	"github.com/gpuarr/gpuarr/internal/lifetime"
)

// The kernel generators, by kind.
const (
	kGather kind = iota
	kScatter
	kRadixUp
	kRadixDown
	kBlockSort
	kSearch
	kResolve
	kOrdered
	kRowCopy
	kPad
	kBincount
	kHistogram
	kTopKPass
	kTopKCollect
	kTopKFinish
	kRadixHist
	kOnesweep
	numKinds
)

// wrap names call in a launch's error.
func wrap(call string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("gpuarr.%s: %w", call, err)
}

// blocksPerSM bounds grid-stride launches: enough resident blocks to hide
// memory latency, few enough that each thread loops a while.
const blocksPerSM = 16

func maxBlocks(dev *device.Device) int {
	return max(64, dev.Info().Multiprocessors*blocksPerSM)
}

// grid1D covers n items, per items each thread takes per step, with
// blocks of block threads, capped for a grid-stride loop.
func grid1D(dev *device.Device, n, block, per int) device.LaunchConfig {
	bx := max(1, (n+block*per-1)/(block*per))
	return device.LaunchConfig{Grid: device.Dim3{X: uint32(min(bx, maxBlocks(dev)))}, Block: device.Dim3{X: uint32(block)}}
}

// grid2D covers cols along x (per items per thread per step) and rows
// along y, capped for grid-stride loops both ways.
func grid2D(dev *device.Device, cols, rows, block, per int) device.LaunchConfig {
	limit := maxBlocks(dev)
	gx := min(max(1, (cols+block*per-1)/(block*per)), limit)
	gy := min(max(1, rows), max(1, limit/gx), 65535)
	return device.LaunchConfig{Grid: device.Dim3{X: uint32(gx), Y: uint32(gy)}, Block: device.Dim3{X: uint32(block)}}
}

// ErrCheckInCapture is the error of an operation that checks indices on
// the device inside a stream capture: a graph's replays could not report
// what they find.
var ErrCheckInCapture = fmt.Errorf("an operation that checks its indices on the device cannot be captured into a graph "+
	"(a replay could not report a bad index): use gpuarr.Clip() or gpuarr.Wrap(), whose indices are always in range, "+
	"or run it outside the capture: %w", device.ErrStreamCapture)

// launchChecked claims o's arrays and runs launch, which queues the
// operation's kernels on s; with checked, the indices are checked on the
// device: launch gets the check's slot (else 0) and the check is queued
// behind the kernels (internal/indexcheck).
func launchChecked(call string, s *device.Stream, o *lifetime.Claim, checked bool, site indexcheck.Site, launch func(slot device.Ptr) error) error {
	var chk *indexcheck.Check
	if checked {
		if s.IsCapturing() {
			return fmt.Errorf("gpuarr.%s: %w", call, ErrCheckInCapture)
		}
		var err error
		if chk, err = indexcheck.Reserve(s, site); err != nil {
			return err
		}
	}
	if err := o.Begin(true); err != nil {
		if chk != nil {
			chk.Cancel()
		}
		return err
	}
	var slot device.Ptr
	if chk != nil {
		slot = chk.Ptr()
	}
	err := launch(slot)
	if err == nil && chk != nil {
		err = chk.Issued(s)
	} else if chk != nil {
		chk.Cancel()
	}
	o.End()
	return wrap(call, err)
}

// errArgument is ErrArgument with call and a message.
func errArgument(call, format string, args ...any) error {
	return fmt.Errorf("gpuarr.%s: %s: %w", call, fmt.Sprintf(format, args...), arg.ErrArgument)
}
