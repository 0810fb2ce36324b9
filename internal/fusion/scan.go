package fusion

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/device/hostkernel"
	"github.com/gpuarr/gpuarr/internal/arg"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
	"github.com/gpuarr/gpuarr/internal/fusion/hosteval"
	"github.com/gpuarr/gpuarr/internal/fusion/ptxgen"
	"github.com/gpuarr/gpuarr/internal/lifetime"
	"github.com/gpuarr/gpuarr/internal/tracking"
)

// Scans (Cumsum and its kin) and compactions (mask selection) are fused
// like reductions: the expression is computed inside the scan kernel
// (expr.Scan), one pass reading each operand once and writing each
// result once, with the single-pass decoupled look-back of ptxgen's scan
// kernel. Their temporaries (the look-back's tile descriptors) come from
// the pool on the operation's stream.

// ScanHostKernelHook, when set (by tests, before any scan kernel is
// compiled), chooses what a host device runs for a scan kernel: given the
// entry, its PTX and the host evaluator's kernel. See internal/kernels'
// HostKernelHook.
var ScanHostKernelHook func(entry, ptx string, twin hostkernel.Kernel) hostkernel.Kernel

// Scan computes scan op of root into out on s: along axis k of root's
// shape (out has that shape), or, with k < 0, over root flattened (out
// has root's element count). Errors name call.
func Scan(call string, op expr.ScanOp, exclusive bool, out *lifetime.Handle, root *Node, k int, s *device.Stream) error {
	space := root.Shape()
	n := out.Len()
	if n == 0 {
		return nil
	}
	var reduced uint64
	rowLen, inner := n, 1
	if k >= 0 {
		reduced = 1 << k
		rowLen = space[k]
		for _, e := range space[k+1:] {
			inner *= e
		}
	}
	l, err := lowerTree(root, space, reduced, false, nil)
	if err != nil {
		return fmt.Errorf("gpuarr.%s: %w", call, err)
	}
	defer l.free()
	l.prog.Vector = 1
	sc := expr.Scan{Op: op, Exclusive: exclusive, Segmented: rowLen < n, StridedOut: inner > 1, Flag: -1}
	return l.launchScan(call, s, sc, out, n, rowLen, inner, 0)
}

// Compact stores, in row-major order over space (to which value and flag
// broadcast), the value of every element whose flag is true (or, with
// positions, its flat position as an int64; value is then unused) into
// out, writing at most capacity elements (the caller counted them).
// Errors name call.
func Compact(call string, out *lifetime.Handle, value, flag *Node, positions bool, space []int, capacity int, s *device.Stream) error {
	if capacity == 0 {
		return nil
	}
	n := 1
	for _, e := range space {
		n *= e
	}
	var fi int32
	l, err := lowerWith(space, 0, nil, func(l *lowered) error {
		fk, err := l.build(flag)
		if err != nil {
			return err
		}
		fi = l.whole(fk)
		if positions {
			l.op1(expr.OpCast, dtype.Uint8, fi)
			return nil
		}
		vk, err := l.build(value)
		if err != nil {
			return err
		}
		l.finish(vk, false) // the value last (a copy when it was built with the flag)
		return nil
	})
	if err != nil {
		return fmt.Errorf("gpuarr.%s: %w", call, err)
	}
	defer l.free()
	l.prog.Vector = 1
	sc := expr.Scan{Op: expr.ScanCompact, Flag: fi, Positions: positions}
	return l.launchScan(call, s, sc, out, n, n, 1, capacity)
}

// scanBlock is the scan kernels' block size (ptxgen's); scanBlocksPerSM
// blocks of it fill a multiprocessor's 2048 threads.
const (
	scanBlock       = 256
	scanBlocksPerSM = 8
)

func (l *lowered) launchScan(call string, s *device.Stream, sc expr.Scan, out *lifetime.Handle, n, rowLen, inner, capacity int) error {
	st := stateOf(s.Device())
	l.key = sc.AppendKey(l.key[:0], &l.prog)
	k, err := st.scanKernel(&l.prog, sc, l.key)
	if err != nil {
		return fmt.Errorf("gpuarr.%s: %w", call, err)
	}
	tile := sc.Tile(&l.prog)
	state, err := lifetime.Temp(call, s, dtype.Uint8, []int{expr.ScanStateBytes(n, tile)})
	if err != nil {
		return err
	}
	defer state.Done()
	a := l.args
	a.Reset()
	ok := a.Append(device.ArgPtr, uint64(out.Ptr())) && a.Append(device.ArgU64, uint64(n)) &&
		a.Append(device.ArgU64, uint64(rowLen)) && a.Append(device.ArgU64, uint64(inner)) &&
		a.Append(device.ArgPtr, uint64(state.Ptr())) && a.Append(device.ArgU64, uint64(capacity)) && l.appendLeafArgs(a)
	if !ok {
		return fmt.Errorf("gpuarr.%s: the expression has too many operands for one kernel's parameters: %w", call, arg.ErrArgument)
	}
	// Each block scans tiles until none are left: enough blocks to fill
	// every multiprocessor, at most one per tile.
	tiles := (n + tile - 1) / tile
	blocks := min(tiles, max(1, s.Device().Info().Multiprocessors)*scanBlocksPerSM)
	cfg := device.LaunchConfig{Grid: device.Dim3{X: uint32(blocks)}, Block: device.Dim3{X: scanBlock}}
	o := lifetime.Claim{Call: call}
	l.addReads(&o, s)
	o.Add(out, tracking.Write, s)
	o.Add(state, tracking.Write, s)
	if err := o.Begin(true); err != nil {
		return err
	}
	err = s.Memset8(state.Ptr(), 0, uint64(state.Len()))
	if err == nil {
		err = s.LaunchArgs(k, cfg, a)
	}
	o.End()
	if err != nil {
		return fmt.Errorf("gpuarr.%s: %w", call, err)
	}
	return nil
}

// scanKernel returns the device's kernel for scan sc of p (key is their
// key), compiling it on first use, in the cache of the fused kernels.
func (st *devState) scanKernel(p *expr.Program, sc expr.Scan, key []byte) (*device.Kernel, error) {
	if e := st.kernels.m.Snapshot()[string(key)]; e != nil {
		kernelStats.hits.Add(1)
		return e.k, nil
	}
	e, err := st.compileOnce(key, func() (*device.Kernel, error) { return compileScan(st.dev, cloneProgram(p), sc) })
	if err != nil {
		return nil, err
	}
	return e.k, nil
}

// compileScan generates the PTX of scan sc over p and loads it; a device
// that runs kernels written in Go binds package hosteval's scan to the
// entry's name first.
func compileScan(dev *device.Device, p *expr.Program, sc expr.Scan) (*device.Kernel, error) {
	src, err := ptxgen.GenerateScan(p, sc, dev.PTXHeader())
	if err != nil {
		return nil, fmt.Errorf("generating the kernel: %w\n%s", err, p)
	}
	name := sc.EntryName(p)
	if dev.RunsHostKernels() {
		k := hosteval.ScanKernel(p, sc)
		if ScanHostKernelHook != nil {
			k = ScanHostKernelHook(name, src, k)
		}
		if _, err := dev.RegisterHostKernel(name, k); err != nil {
			return nil, fmt.Errorf("binding kernel %s on %s: %w", name, dev, err)
		}
	}
	mod, err := dev.LoadPTX(src)
	if err != nil {
		return nil, fmt.Errorf("loading kernel %s on %s: %w", name, dev, err)
	}
	return mod.Kernel(name)
}
