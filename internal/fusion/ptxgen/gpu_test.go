package ptxgen

import (
	le "encoding/binary"
	"fmt"
	"math"
	"math/big"
	"os"
	"strconv"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
)

// These tests launch generated kernels; they need a CUDA device
// (GPUARR_DEVICE=cuda) and are skipped on the host backend, which runs
// registered Go kernels rather than PTX.

func cudaDevice(t testing.TB) *device.Device {
	dev, err := device.Default()
	require.NoError(t, err)
	if dev.Backend() != "cuda" {
		t.Skip("needs a CUDA device (GPUARR_DEVICE=cuda)")
	}
	return dev
}

// launchSpec describes one launch of a generated kernel.
type launchSpec struct {
	inputs  [][]byte  // per input: its bytes (nil for Random)
	strides [][]int64 // per strided input
	dims    []uint64
	seeds   [][2]uint64 // per Random input: seed, stream
	scalars []any
	n       uint64 // elementwise
	groups  uint64 // reduction
	glen    uint64
	bpg     uint64
	count   uint64 // Mean's divisor; 0: glen
	outLen  int    // bytes
	out2Len int
	out3Len int
	out3    *[]byte // receives out3 (moments' Partial stage)
	grid    uint32
	block   uint32
	// OutStrided: out's strides, and its first element's offset (in
	// elements) into the outLen-byte buffer.
	outStrides []int64
	outFirst   int
	// inFirst: per input, its first element's offset (in elements) into
	// its buffer (nil: 0), for negative strides.
	inFirst []int
}

// run generates p, launches it once and returns out and out2.
func run(t *testing.T, dev *device.Device, p *expr.Program, ls launchSpec) (out, out2 []byte) {
	t.Helper()
	ptx, err := Generate(p, dev.PTXHeader())
	require.NoError(t, err)
	m, err := dev.LoadPTX(ptx)
	require.NoError(t, err, "%s", numberLines(ptx))
	defer m.Close()
	k, err := m.Kernel(p.EntryName())
	require.NoError(t, err)
	s := dev.DefaultStream()
	alloc := func(b []byte, n int) device.Ptr {
		ptr, err := dev.Alloc(uint64(max(n, 8)))
		require.NoError(t, err)
		t.Cleanup(func() { dev.Free(ptr) })
		if b != nil {
			require.NoError(t, device.Upload(s, ptr, b))
		}
		return ptr
	}
	// Poison the outputs so that unwritten elements show.
	poison := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = 0xA5
		}
		return b
	}
	outP := alloc(poison(ls.outLen), ls.outLen)
	var args []any
	args = append(args, outP.Add(uint64(ls.outFirst*p.OutType().Size())))
	var out2P, out3P device.Ptr
	if p.Reduce == expr.NoReduce {
		args = append(args, ls.n)
	} else {
		if p.HasOut2() {
			out2P = alloc(poison(ls.out2Len), ls.out2Len)
			args = append(args, out2P)
		}
		if p.HasOut3() {
			out3P = alloc(poison(ls.out3Len), ls.out3Len)
			args = append(args, out3P)
		}
		count := ls.count
		if count == 0 {
			count = ls.glen
		}
		args = append(args, ls.groups, ls.glen, ls.bpg, count)
	}
	for _, d := range ls.dims {
		args = append(args, d)
	}
	for _, st := range ls.outStrides {
		args = append(args, st)
	}
	for i, in := range p.Inputs {
		switch in.Kind {
		case expr.Random:
			args = append(args, ls.seeds[i][0], ls.seeds[i][1])
		case expr.Iota:
		default:
			base := alloc(ls.inputs[i], len(ls.inputs[i]))
			if ls.inFirst != nil {
				base = base.Add(uint64(ls.inFirst[i] * in.T.Size()))
			}
			args = append(args, base)
		}
		if in.Strided {
			for _, st := range ls.strides[i] {
				args = append(args, st)
			}
		}
	}
	args = append(args, ls.scalars...)
	block := max(ls.block, 256)
	grid := ls.grid
	if grid == 0 {
		grid = 7
	}
	require.NoError(t, s.Launch(k, device.LaunchConfig{Grid: device.Dim3{X: grid}, Block: device.Dim3{X: block}}, args...))
	require.NoError(t, s.Synchronize())
	out = make([]byte, ls.outLen)
	require.NoError(t, device.Download(s, out, outP))
	if out2P != 0 {
		out2 = make([]byte, ls.out2Len)
		require.NoError(t, device.Download(s, out2, out2P))
	}
	if out3P != 0 && ls.out3 != nil {
		*ls.out3 = make([]byte, ls.out3Len)
		require.NoError(t, device.Download(s, *ls.out3, out3P))
	}
	return out, out2
}

func bytesOf[T any](xs []T) []byte {
	if len(xs) == 0 {
		return nil
	}
	return append([]byte(nil), unsafe.Slice((*byte)(unsafe.Pointer(&xs[0])), len(xs)*int(unsafe.Sizeof(xs[0])))...)
}

func fromBytes[T any](b []byte) []T {
	var z T
	n := len(b) / int(unsafe.Sizeof(z))
	out := make([]T, n)
	copy(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(out))), len(b)), b)
	return out
}

func TestGPUElementwise(t *testing.T) {
	dev := cudaDevice(t)
	stubMath(t)

	t.Run("add_f32_vec4", func(t *testing.T) {
		for _, n := range []int{0, 1, 3, 4, 1000003} {
			a, b := make([]float32, n), make([]float32, n)
			for i := range a {
				a[i], b[i] = float32(i)*0.5, float32(n-i)
			}
			for _, v := range []int{1, 4} {
				for _, idx64 := range []bool{false, true} {
					p := binary(expr.OpAdd, dtype.Float32)
					p.Vector, p.Index64 = v, idx64
					out, _ := run(t, dev, p, launchSpec{inputs: [][]byte{bytesOf(a), bytesOf(b)}, n: uint64(n), outLen: 4 * n, grid: 5})
					got := fromBytes[float32](out)
					for i := range got {
						require.Equal(t, a[i]+b[i], got[i], "n %d v %d i %d", n, v, i)
					}
				}
			}
		}
	})

	t.Run("int_div", func(t *testing.T) {
		a8 := []int8{-128, -128, 127, 7, -7, 7, -7, 0, 5, -128}
		b8 := []int8{-1, 1, -1, 2, 2, -2, -2, 0, 0, 0}
		p := binary(expr.OpDiv, dtype.Int8)
		out, _ := run(t, dev, p, launchSpec{inputs: [][]byte{bytesOf(a8), bytesOf(b8)}, n: uint64(len(a8)), outLen: len(a8)})
		for i, x := range fromBytes[int8](out) {
			want := int8(0)
			if b8[i] != 0 {
				want = a8[i] / b8[i]
			}
			assert.Equal(t, want, x, "%d / %d", a8[i], b8[i])
		}
		a64 := []int64{math.MinInt64, math.MinInt64, 9, -9, 3}
		b64 := []int64{-1, 2, -4, 0, 7}
		p = binary(expr.OpDiv, dtype.Int64)
		out, _ = run(t, dev, p, launchSpec{inputs: [][]byte{bytesOf(a64), bytesOf(b64)}, n: uint64(len(a64)), outLen: 8 * len(a64)})
		for i, x := range fromBytes[int64](out) {
			want := int64(0)
			if b64[i] != 0 {
				want = a64[i] / b64[i]
			}
			assert.Equal(t, want, x, "%d / %d", a64[i], b64[i])
		}
		au := []uint16{65535, 7, 0, 100}
		bu := []uint16{2, 0, 3, 7}
		p = binary(expr.OpDiv, dtype.Uint16)
		out, _ = run(t, dev, p, launchSpec{inputs: [][]byte{bytesOf(au), bytesOf(bu)}, n: 4, outLen: 8})
		for i, x := range fromBytes[uint16](out) {
			want := uint16(0)
			if bu[i] != 0 {
				want = au[i] / bu[i]
			}
			assert.Equal(t, want, x)
		}
	})

	t.Run("wrap_narrow", func(t *testing.T) {
		a := []uint8{200, 255, 0, 17}
		b := []uint8{100, 1, 1, 15}
		for _, c := range []struct {
			op expr.Op
			f  func(x, y uint8) uint8
		}{{expr.OpAdd, func(x, y uint8) uint8 { return x + y }}, {expr.OpSub, func(x, y uint8) uint8 { return x - y }},
			{expr.OpMul, func(x, y uint8) uint8 { return x * y }}} {
			out, _ := run(t, dev, binary(c.op, dtype.Uint8), launchSpec{inputs: [][]byte{bytesOf(a), bytesOf(b)}, n: 4, outLen: 4})
			for i, x := range out {
				assert.Equal(t, c.f(a[i], b[i]), x, "%s %d %d", c.op, a[i], b[i])
			}
		}
		// int8: (a·b + 100) compared to 0, as an int16 0/1 (checks normalization before a comparison).
		x := []int8{100, -100, 10, -128}
		y := []int8{2, 2, 3, -1}
		p := &expr.Program{
			Inputs: []expr.Input{mem(dtype.Int8), mem(dtype.Int8)},
			Code: []expr.Instr{in(dtype.Int8, 0), in(dtype.Int8, 1), bin(expr.OpMul, dtype.Int8, 0, 1), cst(dtype.Int8, 0),
				bin(expr.OpLt, dtype.Bool, 2, 3), un(expr.OpCast, dtype.Int16, 4), un(expr.OpAbs, dtype.Int8, 0),
				un(expr.OpCast, dtype.Int16, 6), bin(expr.OpMul, dtype.Int16, 5, 7)},
		}
		out, _ := run(t, dev, p, launchSpec{inputs: [][]byte{bytesOf(x), bytesOf(y)}, n: 4, outLen: 8})
		for i, v := range fromBytes[int16](out) {
			prod := x[i] * y[i]
			abs := x[i]
			if abs < 0 {
				abs = -abs
			}
			want := int16(0)
			if prod < 0 {
				want = int16(abs)
			}
			assert.Equal(t, want, v, "%d·%d", x[i], y[i])
		}
	})

	t.Run("minmax_nan_ne", func(t *testing.T) {
		nan := float32(math.NaN())
		a := []float32{1, nan, 3, -0.5, nan}
		b := []float32{2, 1, nan, -0.25, nan}
		for _, op := range []expr.Op{expr.OpMin, expr.OpMax} {
			out, _ := run(t, dev, binary(op, dtype.Float32), launchSpec{inputs: [][]byte{bytesOf(a), bytesOf(b)}, n: 5, outLen: 20})
			got := fromBytes[float32](out)
			for i := range a {
				switch {
				case a[i] != a[i] || b[i] != b[i]:
					assert.True(t, got[i] != got[i], "%s(%v, %v) = %v", op, a[i], b[i], got[i])
				case op == expr.OpMin:
					assert.Equal(t, min(a[i], b[i]), got[i])
				default:
					assert.Equal(t, max(a[i], b[i]), got[i])
				}
			}
		}
		p := &expr.Program{
			Inputs: []expr.Input{mem(dtype.Float32), mem(dtype.Float32)},
			Code: []expr.Instr{in(dtype.Float32, 0), in(dtype.Float32, 1), bin(expr.OpNe, dtype.Bool, 0, 1),
				un(expr.OpCast, dtype.Uint8, 2)},
		}
		out, _ := run(t, dev, p, launchSpec{inputs: [][]byte{bytesOf(a), bytesOf(b)}, n: 5, outLen: 5})
		for i := range a {
			want := uint8(0)
			if a[i] != b[i] {
				want = 1
			}
			assert.Equal(t, want, out[i], "%v != %v", a[i], b[i])
		}
	})

	t.Run("casts", func(t *testing.T) {
		nan := math.NaN()
		xs := []float64{nan, 1e300, -1e300, 200.9, -200.9, -0.7, 3.99, 127.5, -128.9, 65535.2, 0}
		for _, to := range []dtype.DType{dtype.Int8, dtype.Uint8, dtype.Int16, dtype.Uint16, dtype.Int32, dtype.Uint32, dtype.Int64, dtype.Uint64} {
			p := &expr.Program{Inputs: []expr.Input{mem(dtype.Float64)}, Code: []expr.Instr{in(dtype.Float64, 0), un(expr.OpCast, to, 0)}}
			out, _ := run(t, dev, p, launchSpec{inputs: [][]byte{bytesOf(xs)}, n: uint64(len(xs)), outLen: len(xs) * to.Size()})
			for i, x := range xs {
				want := constInt(to, x)
				var got uint64
				switch to.Size() {
				case 1:
					got = uint64(out[i])
					want &= 0xff
				case 2:
					got = uint64(le.LittleEndian.Uint16(out[2*i:]))
					want &= 0xffff
				case 4:
					got = uint64(le.LittleEndian.Uint32(out[4*i:]))
					want &= 0xffffffff
				default:
					got = le.LittleEndian.Uint64(out[8*i:])
				}
				assert.Equal(t, want, got, "%v → %s", x, to)
			}
		}
		// int8 → uint64, int16, float32; uint32 → int8; bool → float
		ys := []int8{-1, -128, 127, 0}
		p := &expr.Program{Inputs: []expr.Input{mem(dtype.Int8)}, Code: []expr.Instr{in(dtype.Int8, 0), un(expr.OpCast, dtype.Uint64, 0)}}
		out, _ := run(t, dev, p, launchSpec{inputs: [][]byte{bytesOf(ys)}, n: 4, outLen: 32})
		for i, v := range fromBytes[uint64](out) {
			assert.Equal(t, uint64(int64(ys[i])), v)
		}
		us := []uint32{0xFFFFFFFF, 0x80, 0x7F, 300}
		p = &expr.Program{Inputs: []expr.Input{mem(dtype.Uint32)}, Code: []expr.Instr{in(dtype.Uint32, 0), un(expr.OpCast, dtype.Int8, 0),
			un(expr.OpCast, dtype.Float32, 1)}}
		out, _ = run(t, dev, p, launchSpec{inputs: [][]byte{bytesOf(us)}, n: 4, outLen: 16})
		for i, v := range fromBytes[float32](out) {
			assert.Equal(t, float32(int8(us[i])), v)
		}
	})

	t.Run("strided", func(t *testing.T) {
		// out[i,j] = a[j,i] (transpose view) + b[j] (broadcast over rows) · s0, rank 2, 3×5.
		const R, C = 3, 5
		a := make([]float32, R*C) // stored as C×R
		for i := range a {
			a[i] = float32(i)
		}
		b := []int8{1, -2, 3, -4, 5}
		for _, idx64 := range []bool{false, true} {
			p := &expr.Program{
				Rank: 2, Index64: idx64,
				Inputs:  []expr.Input{strided(dtype.Float32), strided(dtype.Int8)},
				Scalars: []dtype.DType{dtype.Float32},
				Code: []expr.Instr{in(dtype.Float32, 0), in(dtype.Int8, 1), un(expr.OpCast, dtype.Float32, 1), sc(dtype.Float32, 0),
					tern(expr.OpFMA, dtype.Float32, 2, 3, 0)},
			}
			out, _ := run(t, dev, p, launchSpec{inputs: [][]byte{bytesOf(a), bytesOf(b)}, dims: []uint64{R, C},
				strides: [][]int64{{1, R}, {0, 1}}, scalars: []any{float32(0.5)}, n: R * C, outLen: 4 * R * C, grid: 2, block: 256})
			got := fromBytes[float32](out)
			for i := range R {
				for j := range C {
					assert.Equal(t, float32(math.FMA(float64(b[j]), 0.5, float64(a[j*R+i]))), got[i*C+j], "[%d,%d]", i, j)
				}
			}
		}
	})
}

func TestGPUReduce(t *testing.T) {
	dev := cudaDevice(t)
	stubMath(t)

	t.Run("sum_f32", func(t *testing.T) {
		for _, n := range []int{0, 1, 5, 1 << 20, 1000003} {
			a := make([]float32, n)
			var want float64
			for i := range a {
				a[i] = float32(i%1000) * 0.25
				want += float64(a[i])
			}
			for _, v := range []int{1, 4} {
				p := unary(expr.OpNeg, dtype.Float32)
				p.Vector, p.Reduce, p.ArgIndex, p.Index64 = v, expr.Sum, -1, n%2 == 1
				out, _ := run(t, dev, p, launchSpec{inputs: [][]byte{bytesOf(a)}, groups: 1, glen: uint64(n), bpg: 1, outLen: 4, grid: 20})
				assert.InEpsilon(t, float32(-want)-1, fromBytes[float32](out)[0]-1, 1e-6, "n %d v %d", n, v)
				// Partial sums over several parts add up to the same.
				for _, bpg := range []uint64{3, 64} {
					p.Stage = expr.Partial
					out, _ := run(t, dev, p, launchSpec{inputs: [][]byte{bytesOf(a)}, groups: 1, glen: uint64(n), bpg: bpg, outLen: 8 * int(bpg), grid: 20})
					var got float64
					for _, x := range fromBytes[float64](out) {
						got += x
					}
					assert.InEpsilon(t, -want-1, got-1, 1e-12, "n %d v %d bpg %d", n, v, bpg)
				}
			}
		}
	})

	t.Run("groups", func(t *testing.T) {
		// 5 groups of 333 int16 values: min, max, sum (wrapping), mean, prod, partial sums.
		const G, L = 5, 333
		a := make([]int16, G*L)
		for i := range a {
			a[i] = int16((i*7919)%2001 - 1000)
		}
		for _, r := range []expr.ReduceOp{expr.Min, expr.Max, expr.Sum, expr.Mean, expr.Prod} {
			p := unary(expr.OpAbs, dtype.Int16)
			p.Code[1].Op = expr.OpNeg
			p.Reduce, p.ArgIndex = r, -1
			out, _ := run(t, dev, p, launchSpec{inputs: [][]byte{bytesOf(a)}, groups: G, glen: L, bpg: 1, outLen: 2 * G, grid: 3})
			got := fromBytes[int16](out)
			for g := range G {
				var mn, mx, sum, prod int64 = math.MaxInt64, math.MinInt64, 0, 1
				for k := range L {
					x := int64(-a[g*L+k])
					mn, mx, sum, prod = min(mn, x), max(mx, x), sum+x, prod*x
				}
				want := map[expr.ReduceOp]int16{expr.Min: int16(mn), expr.Max: int16(mx), expr.Sum: int16(sum),
					expr.Mean: int16(sum / L), expr.Prod: int16(prod)}[r]
				assert.Equal(t, want, got[g], "%s group %d", r, g)
			}
		}
		p := unary(expr.OpNeg, dtype.Int16)
		p.Reduce, p.Stage, p.ArgIndex = expr.Sum, expr.Partial, -1
		out, _ := run(t, dev, p, launchSpec{inputs: [][]byte{bytesOf(a)}, groups: G, glen: L, bpg: 3, outLen: 8 * G * 3, grid: 4})
		got := fromBytes[int64](out)
		for g := range G {
			var sum int64
			for k := range L {
				sum += int64(-a[g*L+k])
			}
			assert.Equal(t, sum, got[3*g]+got[3*g+1]+got[3*g+2], "group %d", g)
		}
	})

	t.Run("wide_mean", func(t *testing.T) {
		// Integer means are exact (128-bit sums): int64 values whose sum
		// overflows 64 bits, in one stage and over partials (low words,
		// high words), into int64 (truncated), float64 and float32; and
		// int8 values into int8 by groups.
		const half = math.MaxInt64 / 2
		for _, n := range []int{4, 5, 3001, 100_003} {
			a := make([]int64, n)
			s := new(big.Int)
			for i := range a {
				a[i] = half - int64(i%1000)
				if i%2 == 1 {
					a[i] = math.MaxInt64 - int64(i%777)
				}
				s.Add(s, big.NewInt(a[i]))
			}
			// FinalType's formula: q + r/c in float64 (S > 0 here).
			q, r := new(big.Int).QuoRem(s, big.NewInt(int64(n)), new(big.Int))
			wantQ := q.Int64()
			wantF := float64(q.Uint64()) + float64(r.Uint64())/float64(n)
			for _, rt := range []dtype.DType{dtype.Int64, dtype.Float64, dtype.Float32} {
				check := func(out []byte, what string) {
					switch rt {
					case dtype.Int64:
						assert.Equal(t, wantQ, fromBytes[int64](out)[0], "n %d %s", n, what)
					case dtype.Float64:
						assert.Equal(t, wantF, fromBytes[float64](out)[0], "n %d %s", n, what)
					default:
						assert.Equal(t, float32(wantF), fromBytes[float32](out)[0], "n %d %s", n, what)
					}
				}
				for _, v := range []int{1, 2} {
					p := &expr.Program{Vector: v, Reduce: expr.Mean, ArgIndex: -1, Result: rt, Inputs: []expr.Input{mem(dtype.Int64)},
						Code: []expr.Instr{in(dtype.Int64, 0)}}
					out, _ := run(t, dev, p, launchSpec{inputs: [][]byte{bytesOf(a)}, groups: 1, glen: uint64(n), bpg: 1, outLen: 8, grid: 3})
					check(out, fmt.Sprintf("%s v%d one stage", rt, v))
					for _, bpg := range []int{3, 40} {
						p.Stage = expr.Partial
						lo, hi := run(t, dev, p, launchSpec{inputs: [][]byte{bytesOf(a)}, groups: 1, glen: uint64(n), bpg: uint64(bpg),
							outLen: 8 * bpg, out2Len: 8 * bpg, grid: 4})
						p.Stage = expr.Final
						f := &expr.Program{Reduce: expr.Mean, ArgIndex: 1, Result: rt, Inputs: []expr.Input{mem(dtype.Uint64), mem(dtype.Int64)},
							Code: []expr.Instr{in(dtype.Uint64, 0)}}
						out, _ := run(t, dev, f, launchSpec{inputs: [][]byte{lo, hi}, groups: 1, glen: uint64(bpg), bpg: 1, count: uint64(n), outLen: 8, grid: 1})
						check(out, fmt.Sprintf("%s v%d bpg %d", rt, v, bpg))
					}
				}
			}
		}
		const G, L = 7, 999
		a := make([]int8, G*L)
		for i := range a {
			a[i] = int8(100 - i%3)
			if i/L == 3 {
				a[i] = int8(-128 + i%5)
			}
		}
		p := &expr.Program{Reduce: expr.Mean, ArgIndex: -1, Inputs: []expr.Input{mem(dtype.Int8)}, Code: []expr.Instr{in(dtype.Int8, 0)}}
		out, _ := run(t, dev, p, launchSpec{inputs: [][]byte{bytesOf(a)}, groups: G, glen: L, bpg: 1, outLen: G, grid: 3})
		for g := range G {
			var sum int64
			for k := range L {
				sum += int64(a[g*L+k])
			}
			assert.Equal(t, int8(sum/L), fromBytes[int8](out)[g], "group %d", g)
		}
	})

	t.Run("result_type", func(t *testing.T) {
		// Final stages write Result: a float32 sum rounded from float64,
		// an int64 sum wrapped to int8, a float32 mean into float64.
		a := make([]float32, 5000)
		var want float64
		for i := range a {
			a[i] = float32(i%100) * 0.125
			want += float64(a[i])
		}
		p := &expr.Program{Reduce: expr.Sum, ArgIndex: -1, Result: dtype.Float64, Inputs: []expr.Input{mem(dtype.Float32)}, Code: []expr.Instr{in(dtype.Float32, 0)}}
		out, _ := run(t, dev, p, launchSpec{inputs: [][]byte{bytesOf(a)}, groups: 1, glen: 5000, bpg: 1, outLen: 8, grid: 2})
		assert.Equal(t, want, fromBytes[float64](out)[0])
		p.Reduce = expr.Mean
		out, _ = run(t, dev, p, launchSpec{inputs: [][]byte{bytesOf(a)}, groups: 1, glen: 5000, bpg: 1, outLen: 8, grid: 2})
		assert.Equal(t, want/5000, fromBytes[float64](out)[0])
		b := make([]int64, 300)
		var bs int64
		for i := range b {
			b[i] = int64(i * 1001)
			bs += b[i]
		}
		q := &expr.Program{Reduce: expr.Sum, ArgIndex: -1, Result: dtype.Int8, Inputs: []expr.Input{mem(dtype.Int64)}, Code: []expr.Instr{in(dtype.Int64, 0)}}
		out, _ = run(t, dev, q, launchSpec{inputs: [][]byte{bytesOf(b)}, groups: 1, glen: 300, bpg: 1, outLen: 1, grid: 2})
		assert.Equal(t, int8(bs), fromBytes[int8](out)[0])
	})

	t.Run("arg", func(t *testing.T) {
		nan := float32(math.NaN())
		const L = 3000
		mk := func(f func(k int) float32) []float32 {
			a := make([]float32, L)
			for k := range a {
				a[k] = f(k)
			}
			return a
		}
		cases := []struct {
			name       string
			a          []float32
			amin, amax int64
		}{
			{"ties", mk(func(k int) float32 { return float32(k%10) - 5 }), 0, 9},
			{"nan", mk(func(k int) float32 {
				if k == 1234 || k == 2000 {
					return nan
				}
				return float32(k)
			}), 1234, 1234},
			{"inf", mk(func(int) float32 { return float32(math.Inf(1)) }), 0, 0},
			{"last", mk(func(k int) float32 { return float32(-k) }), L - 1, 0},
		}
		for _, c := range cases {
			for _, v := range []int{1, 2, 4} {
				for _, r := range []expr.ReduceOp{expr.ArgMin, expr.ArgMax} {
					want := c.amin
					if r == expr.ArgMax {
						want = c.amax
					}
					p := &expr.Program{Vector: v, Reduce: r, ArgIndex: -1, Index64: v == 2, Inputs: []expr.Input{mem(dtype.Float32)},
						Code: []expr.Instr{in(dtype.Float32, 0)}}
					out, _ := run(t, dev, p, launchSpec{inputs: [][]byte{bytesOf(c.a)}, groups: 1, glen: L, bpg: 1, outLen: 8, grid: 3})
					assert.Equal(t, want, fromBytes[int64](out)[0], "%s %s v%d", c.name, r, v)

					// Two stages: partials (values, positions), then Final with ArgIndex.
					for _, bpg := range []int{6, 40} {
						p.Stage = expr.Partial
						vals, pos := run(t, dev, p, launchSpec{inputs: [][]byte{bytesOf(c.a)}, groups: 1, glen: L, bpg: uint64(bpg),
							outLen: 4 * bpg, out2Len: 8 * bpg, grid: 4})
						f := &expr.Program{Reduce: r, ArgIndex: 1, Inputs: []expr.Input{mem(dtype.Float32), mem(dtype.Int64)},
							Code: []expr.Instr{in(dtype.Float32, 0)}}
						out, _ = run(t, dev, f, launchSpec{inputs: [][]byte{vals, pos}, groups: 1, glen: uint64(bpg), bpg: 1, outLen: 8, grid: 1})
						assert.Equal(t, want, fromBytes[int64](out)[0], "%s %s v%d two stages bpg %d", c.name, r, v, bpg)
					}
				}
			}
		}
		// Empty group: -1.
		p := &expr.Program{Reduce: expr.ArgMax, ArgIndex: -1, Inputs: []expr.Input{mem(dtype.Float32)}, Code: []expr.Instr{in(dtype.Float32, 0)}}
		out, _ := run(t, dev, p, launchSpec{inputs: [][]byte{make([]byte, 8)}, groups: 1, glen: 0, bpg: 1, outLen: 8, grid: 1})
		assert.Equal(t, int64(-1), fromBytes[int64](out)[0])
	})
}

// minBandwidthGBps is TestGPUBandwidth's floor for the generated a+b
// (vectorized) and sum kernels at the default size: a third of what
// bench/kernels measured for the same generated kernels on H100s
// (3053–3063 GB/s for a + b, 3021 for Sum: 7836dca:bench/results/h100/run-0c0a349
// to run-7f980c5) and under a quarter of an H200's (4372 and 4239:
// 68e3962:bench/results/h200/kernels.json). Only a kernel that no longer streams
// memory (scalar or uncoalesced loads, a grid that idles most SMs) falls
// below it; a GPU slower than an A100 would need a lower one.
const minBandwidthGBps = 1000

// TestGPUBandwidth times a+b and sum on float32 (2²⁸ elements by default,
// PTXGEN_BENCH_LOG2N to change), logs the bandwidth of each launch shape
// and, at the default size, requires the best a+b (vectorized) and the
// best sum to reach minBandwidthGBps.
func TestGPUBandwidth(t *testing.T) {
	dev := cudaDevice(t)
	lg := 28
	if s := os.Getenv("PTXGEN_BENCH_LOG2N"); s != "" {
		v, err := strconv.Atoi(s)
		require.NoError(t, err, "PTXGEN_BENCH_LOG2N")
		lg = v
	}
	n := uint64(1) << lg
	s := dev.DefaultStream()
	bufs := make([]device.Ptr, 3)
	for i := range bufs {
		p, err := dev.Alloc(4 * n)
		require.NoError(t, err)
		defer dev.Free(p)
		bufs[i] = p
	}
	sm := dev.Info().Multiprocessors
	// time1 returns the best of 20 launches in GB/s.
	time1 := func(name string, p *expr.Program, bytes float64, cfg device.LaunchConfig, args ...any) float64 {
		ptx, err := Generate(p, dev.PTXHeader())
		require.NoError(t, err)
		m, err := dev.LoadPTX(ptx)
		require.NoError(t, err)
		defer m.Close()
		k, err := m.Kernel(p.EntryName())
		require.NoError(t, err)
		require.NoError(t, s.Launch(k, cfg, args...))
		require.NoError(t, s.Synchronize())
		best := time.Duration(math.MaxInt64)
		for range 20 {
			start := time.Now()
			require.NoError(t, s.Launch(k, cfg, args...))
			require.NoError(t, s.Synchronize())
			best = min(best, time.Since(start))
		}
		gbps := bytes / best.Seconds() / 1e9
		t.Logf("%s grid %d: %v, %.0f GB/s", name, cfg.Grid.X, best, gbps)
		return gbps
	}
	add := binary(expr.OpAdd, dtype.Float32)
	add.Vector = 4
	var bestAdd, bestSum float64
	for _, grid := range []uint32{uint32(sm) * 8, uint32(sm) * 32, uint32(n / 4 / 256)} {
		bestAdd = max(bestAdd, time1("add f32 v4", add, 12*float64(n), device.LaunchConfig{Grid: device.Dim3{X: grid}, Block: device.Dim3{X: 256}}, bufs[2], n, bufs[0], bufs[1]))
	}
	add1 := binary(expr.OpAdd, dtype.Float32)
	time1("add f32 v1", add1, 12*float64(n), device.Linear(n, 256), bufs[2], n, bufs[0], bufs[1])
	sum := &expr.Program{Vector: 4, Reduce: expr.Sum, Stage: expr.Partial, ArgIndex: -1, Inputs: []expr.Input{mem(dtype.Float32)}, Code: []expr.Instr{in(dtype.Float32, 0)}}
	for _, bpg := range []uint64{uint64(sm) * 4, uint64(sm) * 8, uint64(sm) * 16} {
		bestSum = max(bestSum, time1("sum f32 v4 partial bpg "+strconv.Itoa(int(bpg)), sum, 4*float64(n),
			device.LaunchConfig{Grid: device.Dim3{X: uint32(bpg)}, Block: device.Dim3{X: 256}}, bufs[2], uint64(1), n, bpg, n, bufs[0]))
	}
	if lg != 28 {
		t.Logf("PTXGEN_BENCH_LOG2N=%d: the %d GB/s floor applies to 2^28 elements only", lg, minBandwidthGBps)
		return
	}
	assert.GreaterOrEqual(t, bestAdd, float64(minBandwidthGBps), "best a+b (vectorized), GB/s on %s", dev)
	assert.GreaterOrEqual(t, bestSum, float64(minBandwidthGBps), "best sum (partial), GB/s on %s", dev)
}

// TestGPUMathAndRandom runs the real math library (mathlib.go) through
// generated kernels: exp, and Philox uniform and normal values whose
// counter is the random input's strided offset.
func TestGPUMathAndRandom(t *testing.T) {
	dev := cudaDevice(t)
	const R, C = 37, 29
	a := make([]float32, R*C)
	for i := range a {
		a[i] = float32(i%50)*0.37 - 9
	}
	seed, stream := uint64(0x1234_5678_9abc_def0), uint64(7)
	for _, idx64 := range []bool{false, true} {
		p := &expr.Program{
			Rank: 2, Index64: idx64,
			Inputs: []expr.Input{mem(dtype.Float32), {Kind: expr.Random, T: dtype.Float32, Strided: true}},
			Code: []expr.Instr{in(dtype.Float32, 0), un(expr.OpExp, dtype.Float32, 0), {Op: expr.OpRandom, T: dtype.Float32, Aux: 1},
				bin(expr.OpAdd, dtype.Float32, 1, 2)},
		}
		// The random input is read transposed: counter = i + j·R.
		out, _ := run(t, dev, p, launchSpec{inputs: [][]byte{bytesOf(a), nil}, dims: []uint64{R, C}, strides: [][]int64{nil, {1, R}},
			seeds: [][2]uint64{{}, {seed, stream}}, n: R * C, outLen: 4 * R * C, grid: 3})
		got := fromBytes[float32](out)
		for i := range R {
			for j := range C {
				k := i*C + j
				want := expF32Model(a[k]) + uniformF32Model(seed, uint64(i+j*R), stream)
				require.Equal(t, want, got[k], "[%d,%d] index64 %t", i, j, idx64)
			}
		}
		q := &expr.Program{
			Rank: 1, Index64: idx64,
			Inputs: []expr.Input{{Kind: expr.Random, T: dtype.Float64, Normal: true, Strided: true}},
			Code:   []expr.Instr{{Op: expr.OpRandom, T: dtype.Float64, Aux: 0}},
		}
		// Every other counter: stride 2.
		out, _ = run(t, dev, q, launchSpec{dims: []uint64{1000}, strides: [][]int64{{2}}, seeds: [][2]uint64{{seed, stream}}, n: 1000, outLen: 8000, grid: 2})
		for i, x := range fromBytes[float64](out) {
			assert.InEpsilon(t, normalF64Model(seed, uint64(2*i), stream), x, 1e-14, "normal %d", i)
		}
	}
}

// TestGPUStridedOutAndIota writes through negative out strides (the
// reversed transpose of a C×R buffer), reads an input through negative
// strides and adds an Iota input's positions, with 32- and 64-bit
// index arithmetic.
func TestGPUStridedOutAndIota(t *testing.T) {
	dev := cudaDevice(t)
	const R, C = 7, 13
	a := make([]float64, R*C)
	for i := range a {
		a[i] = float64(i) * 0.5
	}
	for _, idx64 := range []bool{false, true} {
		p := &expr.Program{
			Rank: 2, Index64: idx64, OutStrided: true,
			Inputs: []expr.Input{strided(dtype.Float64), {Kind: expr.Iota, T: dtype.Int64, Strided: true}},
			Code: []expr.Instr{in(dtype.Float64, 0), {Op: expr.OpIota, T: dtype.Int64, Aux: 1, A: -1, B: -1, C: -1},
				un(expr.OpCast, dtype.Float64, 1), bin(expr.OpAdd, dtype.Float64, 0, 2)},
		}
		// Element [i, j] of the R×C space: a read backwards (a[R·C−1 − (i·C+j)]),
		// the iota of a [R 1] shape (its row i) broadcast over columns,
		// written to the C×R out buffer at [C−1−j, R−1−i].
		out, _ := run(t, dev, p, launchSpec{inputs: [][]byte{bytesOf(a), nil}, dims: []uint64{R, C},
			strides: [][]int64{{-C, -1}, {1, 0}}, n: R * C, outLen: 8 * R * C, grid: 3,
			outStrides: []int64{-1, -R}, outFirst: R*C - 1, inFirst: []int{R*C - 1, 0}})
		got := fromBytes[float64](out)
		for i := range R {
			for j := range C {
				want := a[R*C-1-(i*C+j)] + float64(i)
				require.Equal(t, want, got[(C-1-j)*R+(R-1-i)], "[%d,%d] index64 %t", i, j, idx64)
			}
		}
	}
}

// TestGPUMoments runs Var, Std and NanMean in one stage, in the vector
// path, and as partials (three words) finished by a Final stage over
// them, and NanMin and NanMax, against float64 references.
func TestGPUMoments(t *testing.T) {
	dev := cudaDevice(t)
	stubMath(t)
	const G, L = 3, 70001
	a := make([]float32, G*L)
	for i := range a {
		a[i] = 1e4 + float32((i*7919)%1000)*0.001
		if i%97 == 5 && i/L == 2 {
			a[i] = float32(math.NaN())
		}
	}
	ref := func(g int, skip bool) (mean, m2 float64, n int) {
		var s float64
		for _, v := range a[g*L : (g+1)*L] {
			if !(skip && v != v) {
				s += float64(v)
				n++
			}
		}
		mean = s / float64(n)
		for _, v := range a[g*L : (g+1)*L] {
			if !(skip && v != v) {
				m2 += (float64(v) - mean) * (float64(v) - mean)
			}
		}
		return mean, m2, n
	}
	prog := func(r expr.ReduceOp) *expr.Program {
		return &expr.Program{Reduce: r, ArgIndex: -1, Inputs: []expr.Input{mem(dtype.Float32)}, Code: []expr.Instr{in(dtype.Float32, 0)}}
	}
	for _, r := range []expr.ReduceOp{expr.Var, expr.Std, expr.NanMean} {
		count := uint64(L - 1) // Ddof 1
		out, _ := run(t, dev, prog(r), launchSpec{inputs: [][]byte{bytesOf(a)}, groups: G, glen: L, bpg: 1, count: count, outLen: 4 * G, grid: 2})
		for g, got := range fromBytes[float32](out) {
			mean, m2, _ := ref(g, r == expr.NanMean)
			switch {
			case r == expr.NanMean:
				assert.InEpsilon(t, mean, float64(got), 1e-6, "%s group %d", r, g)
			case g == 2:
				assert.True(t, math.IsNaN(float64(got)), "%s of a group with NaN", r)
			case r == expr.Var:
				assert.InEpsilon(t, m2/float64(count), float64(got), 1e-6, "%s group %d", r, g)
			default:
				assert.InEpsilon(t, math.Sqrt(m2/float64(count)), float64(got), 1e-6, "%s group %d", r, g)
			}
		}
		// Partials: three words per part; a Final stage over them.
		const bpg = 5
		p := prog(r)
		p.Stage = expr.Partial
		var third []byte
		s1, n := run(t, dev, p, launchSpec{inputs: [][]byte{bytesOf(a)}, groups: G, glen: L, bpg: bpg, count: count,
			outLen: 8 * G * bpg, out2Len: 8 * G * bpg, out3Len: 8 * G * bpg, out3: &third, grid: 7})
		f := &expr.Program{Reduce: r, ArgIndex: 1, Result: dtype.Float64,
			Inputs: []expr.Input{mem(dtype.Float64), mem(dtype.Float64), mem(dtype.Float64)}, Code: []expr.Instr{in(dtype.Float64, 0)}}
		out, _ = run(t, dev, f, launchSpec{inputs: [][]byte{s1, n, third}, groups: G, glen: bpg, bpg: 1, count: count, outLen: 8 * G, grid: 2})
		for g, got := range fromBytes[float64](out) {
			mean, m2, _ := ref(g, r == expr.NanMean)
			switch {
			case r == expr.NanMean:
				assert.InEpsilon(t, mean, got, 1e-12, "%s partials group %d", r, g)
			case g == 2:
				assert.True(t, math.IsNaN(got), "%s partials of a group with NaN", r)
			case r == expr.Var:
				assert.InEpsilon(t, m2/float64(count), got, 1e-9, "%s partials group %d", r, g)
			default:
				assert.InEpsilon(t, math.Sqrt(m2/float64(count)), got, 1e-9, "%s partials group %d", r, g)
			}
		}
	}
	// The vector path: one group, Var of the first group's values.
	p := prog(expr.Var)
	p.Vector = 4
	out, _ := run(t, dev, p, launchSpec{inputs: [][]byte{bytesOf(a[:L])}, groups: 1, glen: L, bpg: 1, count: L, outLen: 4, grid: 20})
	_, m2, _ := ref(0, false)
	assert.InEpsilon(t, m2/L, float64(fromBytes[float32](out)[0]), 1e-6, "vector path")
	// NanMin and NanMax: the third group has NaNs, a fourth is all NaN.
	b := append(append([]float32(nil), a...), make([]float32, L)...)
	for i := G * L; i < len(b); i++ {
		b[i] = float32(math.NaN())
	}
	for _, r := range []expr.ReduceOp{expr.NanMin, expr.NanMax} {
		out, _ := run(t, dev, prog(r), launchSpec{inputs: [][]byte{bytesOf(b)}, groups: G + 1, glen: L, bpg: 1, outLen: 4 * (G + 1), grid: 3})
		got := fromBytes[float32](out)
		for g := range G {
			want := float32(math.Inf(1))
			if r == expr.NanMax {
				want = float32(math.Inf(-1))
			}
			for _, v := range b[g*L : (g+1)*L] {
				if v == v {
					if r == expr.NanMin {
						want = min(want, v)
					} else {
						want = max(want, v)
					}
				}
			}
			assert.Equal(t, want, got[g], "%s group %d", r, g)
		}
		assert.True(t, math.IsNaN(float64(got[G])), "%s of all NaN", r)
	}
}

// TestGPUColumns runs Columns reductions (a part of every group per
// block, groups innermost in memory: strides [1, G] over a [glen G]
// buffer) in one stage and as partials, for Sum, ArgMax, Var and a Wide
// Mean, against host references, with 32- and 64-bit indexes.
func TestGPUColumns(t *testing.T) {
	dev := cudaDevice(t)
	stubMath(t)
	const G, L = 12, 20011 // 256 is no multiple of 12: some threads idle
	f := make([]float32, G*L)
	w := make([]int32, G*L)
	for i := range f {
		f[i] = float32((i*7919)%1013)*0.01 - 3
		w[i] = int32(i*2654435761) >> 3
	}
	at := func(g, k int) int { return k*G + g }
	for _, idx64 := range []bool{false, true} {
		for _, bpg := range []uint64{1, 9} {
			stage := expr.Final
			if bpg > 1 {
				stage = expr.Partial
			}
			spec := func(in []byte, outLen, out2Len, out3Len int, third *[]byte) launchSpec {
				return launchSpec{inputs: [][]byte{in}, dims: []uint64{G, L}, strides: [][]int64{{1, G}}, groups: G, glen: L, bpg: bpg,
					count: L, outLen: outLen, out2Len: out2Len, out3Len: out3Len, out3: third, grid: 5}
			}
			prog := func(r expr.ReduceOp, t dtype.DType) *expr.Program {
				return &expr.Program{Rank: 2, Index64: idx64, Columns: true, Reduce: r, Stage: stage, ArgIndex: -1,
					Inputs: []expr.Input{strided(t)}, Code: []expr.Instr{in(t, 0)}}
			}
			// Sum: Final writes float32, Partial float64 parts.
			out, _ := run(t, dev, prog(expr.Sum, dtype.Float32), spec(bytesOf(f), 8*G*int(bpg), 0, 0, nil))
			for g := range G {
				var want, got float64
				for k := range L {
					want += float64(f[at(g, k)])
				}
				if bpg == 1 {
					got = float64(fromBytes[float32](out)[g])
				} else {
					for _, x := range fromBytes[float64](out)[g*int(bpg) : (g+1)*int(bpg)] {
						got += x
					}
				}
				assert.InDelta(t, want, got, 1e-6*math.Abs(want)+1e-3, "sum group %d bpg %d index64 %t", g, bpg, idx64)
			}
			// ArgMax: positions (Partial: per part, the best of the parts).
			out, out2 := run(t, dev, prog(expr.ArgMax, dtype.Float32), spec(bytesOf(f), 8*G*int(bpg), 8*G*int(bpg), 0, nil))
			for g := range G {
				best := 0
				for k := range L {
					if f[at(g, k)] > f[at(g, best)] {
						best = k
					}
				}
				got := int64(-1)
				if bpg == 1 {
					got = fromBytes[int64](out)[g]
				} else {
					vals, pos := fromBytes[float32](out), fromBytes[int64](out2)
					bv := float32(math.Inf(-1))
					for p := g * int(bpg); p < (g+1)*int(bpg); p++ {
						if pos[p] >= 0 && (vals[p] > bv || vals[p] == bv && pos[p] < got) {
							bv, got = vals[p], pos[p]
						}
					}
				}
				assert.Equal(t, int64(best), got, "argmax group %d bpg %d", g, bpg)
			}
			// Var: three words per part.
			var third []byte
			out, out2 = run(t, dev, prog(expr.Var, dtype.Float32), spec(bytesOf(f), 8*G*int(bpg), 8*G*int(bpg), 8*G*int(bpg), &third))
			for g := range G {
				var mean, m2 float64
				for k := range L {
					mean += float64(f[at(g, k)])
				}
				mean /= L
				for k := range L {
					d := float64(f[at(g, k)]) - mean
					m2 += d * d
				}
				if bpg == 1 {
					assert.InEpsilon(t, m2/L, float64(fromBytes[float32](out)[g]), 1e-6, "var group %d", g)
					continue
				}
				var n float64
				for _, x := range fromBytes[float64](out2)[g*int(bpg) : (g+1)*int(bpg)] {
					n += x
				}
				assert.Equal(t, float64(L), n, "var counts group %d", g)
				assert.Len(t, third, 8*G*int(bpg))
			}
			// A Wide Mean of int32 (Final only: exact, truncated).
			if bpg == 1 {
				out, _ = run(t, dev, prog(expr.Mean, dtype.Int32), spec(bytesOf(w), 4*G, 0, 0, nil))
				for g := range G {
					var s int64
					for k := range L {
						s += int64(w[at(g, k)])
					}
					assert.Equal(t, int32(s/L), fromBytes[int32](out)[g], "mean group %d", g)
				}
			}
		}
	}
}
