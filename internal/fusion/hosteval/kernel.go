package hosteval

import (
	"fmt"
	"math"
	"math/bits"
	"unsafe"

	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/device/hostkernel"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
)

// Kernel compiles p into a host kernel taking p.Params() in order. A
// program it cannot run (a bad operand, an op that does not apply to its
// type, ...) gives a kernel whose every launch fails with an error naming
// the problem: the failure then surfaces where launch errors do.
func Kernel(p *expr.Program) hostkernel.Kernel {
	if p == nil {
		return func(*hostkernel.Launch) error { return fmt.Errorf("hosteval: nil program") }
	}
	pr, err := compile(p)
	if err != nil {
		err = fmt.Errorf("hosteval: cannot run %s: %w\n%s", p.EntryName(), err, p)
		return func(*hostkernel.Launch) error { return err }
	}
	return pr.run
}

// Check reports the error a Program's kernel would fail every launch
// with, or nil when the host can run it.
func Check(p *expr.Program) error {
	if p == nil {
		return fmt.Errorf("hosteval: nil program")
	}
	if _, err := compile(p); err != nil {
		return fmt.Errorf("hosteval: cannot run %s: %w", p.EntryName(), err)
	}
	return nil
}

// launch is one launch's parameters and memory.
type launch struct {
	n         uint64 // elements in the iteration space
	out, out2 unsafe.Pointer

	groups, glen, count uint64
	parts, partLen      uint64 // units per group and positions per unit

	dims    []int64
	in      []inputArgs
	scalars []uint64 // bits of each scalar in its type (see bitsOf)
}

type inputArgs struct {
	ptr          unsafe.Pointer // contiguous: element 0; strided: the lowest element reachable
	span         int            // strided: elements viewable from ptr
	origin       int64          // strided: the base's offset from ptr
	strides      []int64
	seed, stream uint64 // random inputs
}

func (pr *program) run(l *hostkernel.Launch) error {
	ls, err := pr.bind(l)
	if err != nil {
		return fmt.Errorf("hosteval %s: %w", pr.entry, err)
	}
	if pr.red != nil {
		pr.reduce(l, ls)
		return nil
	}
	outSize := uintptr(pr.src.OutType().Size())
	l.ParallelFor(ls.n, func(lo, hi uint64) {
		fr := pr.getFrame(ls)
		for pos := lo; pos < hi; pos += chunk {
			n := int(min(chunk, hi-pos))
			fr.col[pr.out] = unsafe.Add(ls.out, uintptr(pos)*outSize)
			pr.evalChunk(fr, ls, pos, n)
		}
		pr.putFrame(fr)
	})
	return nil
}

// bind reads the arguments in Params order and views the memory they name.
func (pr *program) bind(l *hostkernel.Launch) (*launch, error) {
	p, args := pr.src, &l.Args
	if args.N != len(pr.params) {
		return nil, fmt.Errorf("%d arguments, want %d (%v)", args.N, len(pr.params), pr.params)
	}
	for i, pa := range pr.params {
		if !args.Kind[i].Carries(pa.T) {
			return nil, fmt.Errorf("argument %d (%s) is a %s, want %s", i, pa.Name, args.Kind[i], pa.T)
		}
	}
	next := 0
	u64 := func() uint64 { next++; return args.U64(next - 1) }

	ls := &launch{}
	out, out2 := hostkernel.Ptr(u64()), hostkernel.Ptr(0)
	outCount := uint64(0)
	if pr.red == nil {
		ls.n = u64()
		outCount = ls.n
	} else {
		if p.HasOut2() {
			out2 = hostkernel.Ptr(u64())
		}
		ls.groups, ls.glen = u64(), u64()
		bpg := u64()
		ls.count = u64()
		hi, n := bits.Mul64(ls.groups, ls.glen)
		if hi != 0 {
			return nil, fmt.Errorf("groups %d × glen %d overflows", ls.groups, ls.glen)
		}
		ls.n = n
		ls.parts, ls.partLen = 1, ls.glen
		if p.Stage == expr.Partial {
			if bpg == 0 && ls.groups > 0 {
				return nil, fmt.Errorf("bpg is 0: a Partial stage needs at least one part per group")
			}
			ls.parts = bpg
			if bpg > 0 {
				ls.partLen = ls.glen/bpg + min(ls.glen%bpg, 1)
			}
		}
		hi, outCount = bits.Mul64(ls.groups, ls.parts)
		if hi != 0 {
			return nil, fmt.Errorf("groups %d × bpg %d overflows", ls.groups, bpg)
		}
	}

	next, err := pr.bindDims(args, ls, next)
	if err != nil {
		return nil, err
	}
	if ls.out, err = view(l, p.OutType(), out, outCount); err != nil {
		return nil, fmt.Errorf("out: %w", err)
	}
	if out2 != 0 || p.HasOut2() {
		if ls.out2, err = view(l, dtype.Int64, out2, outCount); err != nil {
			return nil, fmt.Errorf("out2: %w", err)
		}
	}

	if err := pr.bindInputs(l, ls, next); err != nil {
		return nil, err
	}
	return ls, nil
}

// bindDims reads the dims from argument next on into ls (whose n is set)
// and returns the next argument.
func (pr *program) bindDims(args *hostkernel.Args, ls *launch, next int) (int, error) {
	p := pr.src
	u64 := func() uint64 { next++; return args.U64(next - 1) }
	ls.dims = make([]int64, p.Rank)
	prod := uint64(1)
	for d := range ls.dims {
		v := u64()
		hi, lo := bits.Mul64(prod, v)
		if v > math.MaxInt64 || hi != 0 {
			return 0, fmt.Errorf("dim%d = %d is too large", d, v)
		}
		ls.dims[d], prod = int64(v), lo
	}
	if p.Rank > 0 && prod != ls.n {
		return 0, fmt.Errorf("dims %v hold %d elements, but the iteration space has %d", ls.dims, prod, ls.n)
	}

	return next, nil
}

// bindInputs reads the inputs and scalars from argument next on into ls
// and views the inputs' memory.
func (pr *program) bindInputs(l *hostkernel.Launch, ls *launch, next int) error {
	p, args := pr.src, &l.Args
	u64 := func() uint64 { next++; return args.U64(next - 1) }
	var err error
	ls.in = make([]inputArgs, len(p.Inputs))
	for i, in := range p.Inputs {
		a := &ls.in[i]
		base := u64()
		if in.Kind == expr.Random {
			a.seed, a.stream = base, u64()
		}
		if in.Strided {
			a.strides = make([]int64, p.Rank)
			for d := range a.strides {
				a.strides[d] = args.I64(next)
				next++
			}
		}
		if in.Kind != expr.Memory || !pr.inputs[i].used || ls.n == 0 {
			continue
		}
		if !in.Strided {
			if a.ptr, err = view(l, in.T, hostkernel.Ptr(base), ls.n); err != nil {
				return fmt.Errorf("input %d: %w", i, err)
			}
			continue
		}
		lo, hi, err := span(ls.dims, a.strides)
		if err != nil {
			return fmt.Errorf("input %d (strides %v over dims %v): %w", i, a.strides, ls.dims, err)
		}
		first := hostkernel.Ptr(base + uint64(lo)*uint64(in.T.Size())) // lo ≤ 0: wraps down
		a.span, a.origin = int(hi-lo+1), -lo
		if a.ptr, err = view(l, in.T, first, uint64(a.span)); err != nil {
			return fmt.Errorf("input %d (strides %v over dims %v): %w", i, a.strides, ls.dims, err)
		}
	}

	ls.scalars = make([]uint64, len(p.Scalars))
	for j, t := range p.Scalars {
		ls.scalars[j] = scalarBits(args, next, t)
		next++
	}
	return nil
}

// scalarBits converts scalar argument i, passed as expr.ParamType(t), to t
// (narrowing by truncation; Bool is x != 0).
func scalarBits(args *hostkernel.Args, i int, t dtype.DType) uint64 {
	switch t {
	case dtype.Bool:
		return bitsOf(args.U32(i) != 0)
	case dtype.Int8:
		return bitsOf(int8(args.I32(i)))
	case dtype.Int16:
		return bitsOf(int16(args.I32(i)))
	case dtype.Int32:
		return bitsOf(args.I32(i))
	case dtype.Uint8:
		return bitsOf(uint8(args.U32(i)))
	case dtype.Uint16:
		return bitsOf(uint16(args.U32(i)))
	case dtype.Uint32:
		return bitsOf(args.U32(i))
	case dtype.Float32:
		return bitsOf(args.F32(i))
	}
	return args.U64(i) // 64-bit integers and float64 travel as their bits
}

// view returns n elements of type t at p through hostkernel.View, which checks
// alignment, bounds, liveness and peer access.
func view(l *hostkernel.Launch, t dtype.DType, p hostkernel.Ptr, n uint64) (unsafe.Pointer, error) {
	if n == 0 {
		return nil, nil
	}
	var ptr unsafe.Pointer
	var err error
	switch t.Size() {
	case 1:
		var s []uint8
		s, err = hostkernel.View[uint8](l, p, n)
		ptr = unsafe.Pointer(unsafe.SliceData(s))
	case 2:
		var s []uint16
		s, err = hostkernel.View[uint16](l, p, n)
		ptr = unsafe.Pointer(unsafe.SliceData(s))
	case 4:
		var s []uint32
		s, err = hostkernel.View[uint32](l, p, n)
		ptr = unsafe.Pointer(unsafe.SliceData(s))
	default:
		var s []uint64
		s, err = hostkernel.View[uint64](l, p, n)
		ptr = unsafe.Pointer(unsafe.SliceData(s))
	}
	return ptr, err
}
