package hosteval

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
	"github.com/gpuarr/gpuarr/internal/testutil"
)

// hostDevice returns the default device, skipping the test unless it is
// the host backend: these tests drive the host evaluator itself (on a GPU
// the same Programs run as PTX, which ptxgen's tests cover).
var hostDevice = testutil.HostDevice

// upload copies vals to fresh device memory freed at the end of the test.
func upload[T any](t testing.TB, dev *device.Device, vals []T) device.Ptr {
	t.Helper()
	p := alloc[T](t, dev, len(vals))
	require.NoError(t, device.Upload(dev.DefaultStream(), p, vals))
	return p
}

// alloc is room for n values of T (at least a byte), freed at the end of
// the test.
func alloc[T any](t testing.TB, dev *device.Device, n int) device.Ptr {
	t.Helper()
	var zero T
	return testutil.Alloc(t, dev, max(1, uint64(n)*uint64(unsafe.Sizeof(zero))))
}

func download[T any](t testing.TB, dev *device.Device, p device.Ptr, n int) []T {
	t.Helper()
	return testutil.Download[T](t, dev.DefaultStream(), p, n)
}

// call holds a launch's arguments by meaning; args orders them as the
// Program's Params say.
type call struct {
	out, out2, out3          device.Ptr
	outStrides               []int64
	n                        uint64
	groups, glen, bpg, count uint64
	dims                     []uint64
	ins                      []inArg
	scalars                  []any // as ParamType: int32, uint32, int64, uint64, float32, float64
}

type inArg struct {
	ptr     device.Ptr // or the seed of a random input
	stream  uint64
	strides []int64
}

func (c call) args(t testing.TB, p *expr.Program) []any {
	t.Helper()
	var as []any
	for _, pa := range p.Params() {
		var i, d int
		switch {
		case pa.Name == "out":
			as = append(as, c.out)
		case pa.Name == "out2":
			as = append(as, c.out2)
		case pa.Name == "out3":
			as = append(as, c.out3)
		case scan(pa.Name, "out_stride%d", &d):
			as = append(as, c.outStrides[d])
		case pa.Name == "n":
			as = append(as, c.n)
		case pa.Name == "groups":
			as = append(as, c.groups)
		case pa.Name == "glen":
			as = append(as, c.glen)
		case pa.Name == "bpg":
			as = append(as, c.bpg)
		case pa.Name == "count":
			as = append(as, c.count)
		case scan(pa.Name, "dim%d", &d):
			as = append(as, c.dims[d])
		case scan(pa.Name, "in%d_stride%d", &i, &d):
			as = append(as, c.ins[i].strides[d])
		case strings.HasSuffix(pa.Name, "_stream") && scan(pa.Name, "in%d_stream", &i):
			as = append(as, c.ins[i].stream)
		case scan(pa.Name, "in%d", &i):
			as = append(as, c.ins[i].ptr)
		case scan(pa.Name, "s%d", &i):
			as = append(as, c.scalars[i])
		default:
			t.Fatalf("unknown parameter %s", pa.Name)
		}
	}
	return as
}

// scan matches a whole parameter name against format.
func scan(name, format string, vals ...any) bool {
	n, err := fmt.Sscanf(name, format, vals...)
	return err == nil && n == len(vals) && fmt.Sprintf(format, deref(vals)...) == name
}

func deref(vals []any) []any {
	out := make([]any, len(vals))
	for i, v := range vals {
		out[i] = *v.(*int)
	}
	return out
}

var modules sync.Map // entry name → *device.Kernel

// run registers p's kernel, loads a one-entry PTX module declaring it
// and launches it through the device layer, as package gpuarr will; it
// returns the launch's (synchronized) error.
func run(t testing.TB, dev *device.Device, p *expr.Program, c call) error {
	t.Helper()
	name := p.EntryName()
	_, err := dev.RegisterHostKernel(name, Kernel(p))
	require.NoError(t, err)
	k, ok := modules.Load(name)
	if !ok {
		ptx := dev.PTXHeader() + ".visible .entry " + name + "(\n\t.param .u64 a\n)\n{\n\tret;\n}\n"
		mod, err := dev.LoadPTX(ptx)
		require.NoError(t, err)
		kern, err := mod.Kernel(name)
		require.NoError(t, err)
		k, _ = modules.LoadOrStore(name, kern)
	}
	s := dev.DefaultStream()
	if err := s.Launch(k.(*device.Kernel), device.Linear(max(c.n, c.groups, 1), 256), c.args(t, p)...); err != nil {
		return err
	}
	return s.Synchronize()
}

// Program builders.

func leaf(op expr.Op, t dtype.DType, aux int) expr.Instr {
	return expr.Instr{Op: op, T: t, A: -1, B: -1, C: -1, Aux: int32(aux)}
}

func input(i int, t dtype.DType) expr.Instr { return leaf(expr.OpInput, t, i) }

func konst(t dtype.DType, v float64) expr.Instr {
	in := leaf(expr.OpConst, t, 0)
	in.Const = v
	return in
}

func un(op expr.Op, t dtype.DType, a int) expr.Instr {
	return expr.Instr{Op: op, T: t, A: int32(a), B: -1, C: -1}
}

func bin(op expr.Op, t dtype.DType, a, b int) expr.Instr {
	return expr.Instr{Op: op, T: t, A: int32(a), B: int32(b), C: -1}
}

func tern(op expr.Op, t dtype.DType, a, b, c int) expr.Instr {
	return expr.Instr{Op: op, T: t, A: int32(a), B: int32(b), C: int32(c)}
}

// contiguous lists n contiguous memory inputs of type t.
func contiguous(t dtype.DType, n int) []expr.Input {
	ins := make([]expr.Input, n)
	for i := range ins {
		ins[i] = expr.Input{Kind: expr.Memory, T: t}
	}
	return ins
}

func elementwise(code []expr.Instr, ins []expr.Input) *expr.Program {
	return &expr.Program{Code: code, Inputs: ins, ArgIndex: -1}
}
