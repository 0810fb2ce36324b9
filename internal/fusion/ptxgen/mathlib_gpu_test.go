package ptxgen

import (
	endian "encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/hostkernel"
)

// Each library function evaluated by a kernel over arrays of arguments on
// the default device. On a GPU this runs the PTX, which must reproduce its
// Go model bit for bit (NaN payloads aside) and meet the accuracy promises
// against Go's math package; on the host backend the entry runs the model
// itself, so there the test checks the model and the plumbing.

// mlModels are the Go models on raw bits (a float32 in the low 32 bits) of
// the functions that have one; mlModel falls back to the interpreter
// (mathlib_sim_test.go) for the others.
var mlModels = map[string]func(a, b, c uint64) uint64{
	"exp_f32":          unaryF32(expF32Model),
	"log_f32":          unaryF32(logF32Model),
	"log2_f32":         unaryF32(log2F32Model),
	"log10_f32":        unaryF32(log10F32Model),
	"log1p_f32":        unaryF32(log1pF32Model),
	"atan_f32":         unaryF32(atanF32Model),
	"exp_f64":          unaryF64(expF64Model),
	"log_f64":          unaryF64(logF64Model),
	"cos2pi_f64":       unaryF64(cos2piModel),
	"fmod_f32":         binaryF32(func(a, b float32) float32 { return float32(math.Mod(float64(a), float64(b))) }), // exact
	"fmod_f64":         binaryF64(math.Mod),
	"rand_uniform_f32": func(a, b, c uint64) uint64 { return uint64(math.Float32bits(uniformF32Model(a, b, c))) },
	"rand_uniform_f64": func(a, b, c uint64) uint64 { return math.Float64bits(uniformF64Model(a, b, c)) },
	"rand_normal_f32":  func(a, b, c uint64) uint64 { return uint64(math.Float32bits(normalF32Model(a, b, c))) },
	"rand_normal_f64":  func(a, b, c uint64) uint64 { return math.Float64bits(normalF64Model(a, b, c)) },
}

// mlModel is function name's reference implementation on raw bits: its Go
// model, or the PTX interpreter.
func mlModel(name string) func(a, b, c uint64) uint64 {
	if m, ok := mlModels[name]; ok {
		return m
	}
	n := len(mathSigs[name].args)
	pool := sync.Pool{New: func() any {
		lib, err := simLibOnce()
		if err != nil {
			panic(err)
		}
		return newSimMachine(lib)
	}}
	return func(a, b, c uint64) uint64 {
		m := pool.Get().(*simMachine)
		defer pool.Put(m)
		return m.Call(name, []uint64{a, b, c}[:n]...)
	}
}

func unaryF32(f func(float32) float32) func(a, b, c uint64) uint64 {
	return func(a, _, _ uint64) uint64 { return uint64(math.Float32bits(f(math.Float32frombits(uint32(a))))) }
}

func unaryF64(f func(float64) float64) func(a, b, c uint64) uint64 {
	return func(a, _, _ uint64) uint64 { return math.Float64bits(f(math.Float64frombits(a))) }
}

func binaryF32(f func(a, b float32) float32) func(a, b, c uint64) uint64 {
	return func(a, b, _ uint64) uint64 {
		return uint64(math.Float32bits(f(math.Float32frombits(uint32(a)), math.Float32frombits(uint32(b)))))
	}
}

func binaryF64(f func(a, b float64) float64) func(a, b, c uint64) uint64 {
	return func(a, b, _ uint64) uint64 {
		return math.Float64bits(f(math.Float64frombits(a), math.Float64frombits(b)))
	}
}

func mlSize(t string) int {
	if t == "f32" {
		return 4
	}
	return 8
}

// mlEvalPTX is a module with entry gpuarr_mleval_<name>(out, in0, in1, in2,
// n): out[i] = name(in0[i], …) for i < n.
func mlEvalPTX(name string) (entry, ptx string, err error) {
	s := mathSigs[name]
	entry = "gpuarr_mleval_" + name
	defs, err := FuncDefs([]string{name})
	if err != nil {
		return "", "", err
	}
	var b strings.Builder
	b.WriteString(mlHeader + "\n" + defs + "\n")
	fmt.Fprintf(&b, ".visible .entry %s(.param .u64 out, .param .u64 in0, .param .u64 in1, .param .u64 in2, .param .u64 n)\n{\n", entry)
	b.WriteString("\t.reg .b32 %et, %en, %ec;\n\t.reg .b64 %ei, %ecount, %eaddr, %ebase;\n\t.reg .pred %edone;\n")
	regType := map[string]string{"f32": "f32", "f64": "f64", "u64": "b64"}
	args := make([]string, len(s.args))
	for i, t := range s.args {
		args[i] = fmt.Sprintf("%%earg%d", i)
		fmt.Fprintf(&b, "\t.reg .%s %s;\n", regType[t], args[i])
	}
	fmt.Fprintf(&b, "\t.reg .%s %%eres;\n", s.ret)
	b.WriteString("\tmov.u32 %et, %tid.x;\n\tmov.u32 %en, %ntid.x;\n\tmov.u32 %ec, %ctaid.x;\n")
	b.WriteString("\tmul.wide.u32 %ei, %ec, %en;\n\tcvt.u64.u32 %eaddr, %et;\n\tadd.u64 %ei, %ei, %eaddr;\n")
	b.WriteString("\tld.param.u64 %ecount, [n];\n\tsetp.ge.u64 %edone, %ei, %ecount;\n\t@%edone bra $Lend;\n")
	for i, t := range s.args {
		fmt.Fprintf(&b, "\tld.param.u64 %%ebase, [in%d];\n\tcvta.to.global.u64 %%ebase, %%ebase;\n", i)
		fmt.Fprintf(&b, "\tmad.lo.u64 %%eaddr, %%ei, %d, %%ebase;\n\tld.global.%s %s, [%%eaddr];\n", mlSize(t), t, args[i])
	}
	b.WriteString(CallFunc(name, "%eres", args...))
	b.WriteString("\tld.param.u64 %ebase, [out];\n\tcvta.to.global.u64 %ebase, %ebase;\n")
	fmt.Fprintf(&b, "\tmad.lo.u64 %%eaddr, %%ei, %d, %%ebase;\n\tst.global.%s [%%eaddr], %%eres;\n", mlSize(s.ret), s.ret)
	b.WriteString("$Lend:\n\tret;\n}\n")
	return entry, b.String(), nil
}

// mlHostKernel runs the model: the host backend's stand-in for the entry.
func mlHostKernel(name string) hostkernel.Kernel {
	s, model := mathSigs[name], mlModel(name)
	return func(l *hostkernel.Launch) error {
		n := l.Args.U64(4)
		var in [3][]byte
		for i, t := range s.args {
			b, err := hostkernel.View[byte](l, l.Args.Ptr(1+i), n*uint64(mlSize(t)))
			if err != nil {
				return err
			}
			in[i] = b
		}
		out, err := hostkernel.View[byte](l, l.Args.Ptr(0), n*uint64(mlSize(s.ret)))
		if err != nil {
			return err
		}
		l.ParallelFor(n, func(lo, hi uint64) {
			for i := lo; i < hi; i++ {
				var a [3]uint64
				for k, t := range s.args {
					a[k] = getBits(in[k], i, mlSize(t))
				}
				putBits(out, i, mlSize(s.ret), model(a[0], a[1], a[2]))
			}
		})
		return nil
	}
}

func getBits(b []byte, i uint64, size int) uint64 {
	if size == 4 {
		return uint64(endian.LittleEndian.Uint32(b[i*4:]))
	}
	return endian.LittleEndian.Uint64(b[i*8:])
}

func putBits(b []byte, i uint64, size int, v uint64) {
	if size == 4 {
		endian.LittleEndian.PutUint32(b[i*4:], uint32(v))
	} else {
		endian.LittleEndian.PutUint64(b[i*8:], v)
	}
}

// mlEval evaluates name on the device over the argument columns (raw bits)
// and returns the results' bits.
func mlEval(t *testing.T, dev *device.Device, name string, cols ...[]uint64) []uint64 {
	t.Helper()
	s := mathSigs[name]
	require.Len(t, cols, len(s.args))
	n := len(cols[0])
	entry, ptx, err := mlEvalPTX(name)
	require.NoError(t, err)
	if dev.RunsHostKernels() {
		_, err := dev.RegisterHostKernel(entry, mlHostKernel(name))
		require.NoError(t, err)
	}
	mod, err := dev.LoadPTX(ptx)
	require.NoError(t, err, "PTX:\n%s", mlNumbered(ptx))
	defer func() { assert.NoError(t, mod.Close()) }()
	k, err := mod.Kernel(entry)
	require.NoError(t, err)
	st := dev.DefaultStream()

	upload := func(size int, vals []uint64) device.Ptr {
		buf := make([]byte, n*size)
		for i, v := range vals {
			putBits(buf, uint64(i), size, v)
		}
		p, err := dev.Alloc(uint64(len(buf)))
		require.NoError(t, err)
		t.Cleanup(func() { _ = dev.Free(p) })
		require.NoError(t, device.Upload(st, p, buf))
		return p
	}
	var ptrs [3]device.Ptr
	for i, t := range s.args {
		ptrs[i] = upload(mlSize(t), cols[i])
	}
	for i := len(s.args); i < 3; i++ {
		ptrs[i] = ptrs[0]
	}
	out := upload(mlSize(s.ret), make([]uint64, n))
	require.NoError(t, st.Launch(k, device.Linear(uint64(n), 256), out, ptrs[0], ptrs[1], ptrs[2], uint64(n)))
	raw := make([]byte, n*mlSize(s.ret))
	require.NoError(t, device.Download(st, raw, out))
	got := make([]uint64, n)
	for i := range got {
		got[i] = getBits(raw, uint64(i), mlSize(s.ret))
	}
	return got
}

// mlSameBits compares results with their models' bits (any NaN equals any
// NaN) and reports the first few mismatches.
func mlSameBits(t *testing.T, name string, cols [][]uint64, got []uint64) {
	t.Helper()
	model, size := mlModel(name), mlSize(mathSigs[name].ret)
	isNaN := func(v uint64) bool {
		if size == 4 {
			return math.IsNaN(float64(math.Float32frombits(uint32(v))))
		}
		return math.IsNaN(math.Float64frombits(v))
	}
	steps, approx := mlApproxSteps[name]
	bad, off := 0, 0
	for i := range got {
		var a [3]uint64
		for k := range cols {
			a[k] = cols[k][i]
		}
		want := model(a[0], a[1], a[2])
		if got[i] != want && !(isNaN(got[i]) && isNaN(want)) {
			if approx && size == 4 && !isNaN(got[i]) && !isNaN(want) && stepsApart32(uint32(got[i]), uint32(want)) <= steps {
				off++
				continue
			}
			if bad < 5 {
				t.Errorf("%s%x = %#x, model %#x", name, a[:len(cols)], got[i], want)
			}
			bad++
		}
	}
	if approx {
		t.Logf("%s: %d of %d results differ from the interpreter's, by at most %d steps (its .approx instructions are the GPU's own)", name, off, len(got), steps)
	}
	assert.Zero(t, bad, "%s: results that differ from the model, of %d", name, len(got))
}

// mlApproxSteps lists the functions whose results follow the GPU's own
// .approx instructions (not corrected to a rounding: tanhWide32, erf's
// e^{−a²} and 1/(a + 2), erfc's 1/(a + 2), pow's 1/(2 + f), atanh's
// quotient, logSum32's c/u in acosh and atanh),
// with how many steps a device's result may lie from the interpreter's,
// whose .approx models err within the bounds measured on the GPUs (two
// models of rcp.approx a step either side of the rounding give erf, erfc
// and pow results up to 2 steps apart, atanh's 3, acosh's none in 3·10^5
// arguments).
var mlApproxSteps = map[string]int64{"tanh_f32": 3, "erf_f32": 3, "erfc_f32": 3, "pow_f32": 3, "atanh_f32": 4, "acosh_f32": 2}

// stepsApart32 is how many float32 steps lie between a and b (finite, or
// infinite of one sign).
func stepsApart32(a, b uint32) int64 {
	key := func(u uint32) int64 {
		if u&0x80000000 != 0 {
			return -int64(u & 0x7FFFFFFF)
		}
		return int64(u)
	}
	d := key(a) - key(b)
	if d < 0 {
		d = -d
	}
	return d
}

func mlDevice(t *testing.T) (*device.Device, bool) {
	dev, err := device.Default()
	require.NoError(t, err)
	return dev, dev.Backend() != "host"
}

func f32Bits(xs []float32) []uint64 {
	out := make([]uint64, len(xs))
	for i, x := range xs {
		out[i] = uint64(math.Float32bits(x))
	}
	return out
}

func f64Bits(xs []float64) []uint64 {
	out := make([]uint64, len(xs))
	for i, x := range xs {
		out[i] = math.Float64bits(x)
	}
	return out
}

func TestMathlibDeviceUnaryF32(t *testing.T) {
	dev, gpu := mlDevice(t)
	stride := uint32(16381)
	if gpu {
		stride = 257 // 16.7M inputs
	}
	xs := inputs32(rand.New(rand.NewPCG(11, 12)), stride, 100000, -20, 20)
	col := f32Bits(xs)
	for name, ref := range map[string]func(float64) float64{"exp_f32": refExp, "log_f32": refLog, "tanh_f32": math.Tanh} {
		t.Run(name, func(t *testing.T) {
			got := mlEval(t, dev, name, col)
			mlSameBits(t, name, [][]uint64{col}, got)
			var acc mlAccuracy
			for i, x := range xs {
				acc.add(ulpErr32(math.Float32frombits(uint32(got[i])), ref(float64(x))), "x=%g", x)
			}
			t.Logf("%s on %s: worst %.3f ulp at %s", name, dev, acc.worst, acc.at)
			assert.LessOrEqual(t, acc.worst, 4.0, "worst at %s", acc.at)
		})
	}
}

func TestMathlibDeviceUnaryF64(t *testing.T) {
	dev, gpu := mlDevice(t)
	n := 50000
	if gpu {
		n = 2000000
	}
	xs := inputs64(rand.New(rand.NewPCG(13, 14)), n, -30, 30, 709.782712893384, -745.1332191019411, -708.4, 0.55, 22, 0.1)
	col := f64Bits(xs)
	for name, ref := range map[string]func(float64) float64{"exp_f64": refExp, "log_f64": refLog, "tanh_f64": math.Tanh} {
		t.Run(name, func(t *testing.T) {
			got := mlEval(t, dev, name, col)
			mlSameBits(t, name, [][]uint64{col}, got)
			var acc mlAccuracy
			for i, x := range xs {
				acc.add(relErr64(math.Float64frombits(got[i]), ref(x)), "x=%v", x)
			}
			t.Logf("%s on %s: worst relative error %.3g at %s", name, dev, acc.worst, acc.at)
			assert.LessOrEqual(t, acc.worst, 1e-14, "worst at %s", acc.at)
		})
	}
	t.Run("cos2pi_f64", func(t *testing.T) {
		rng := rand.New(rand.NewPCG(15, 16))
		us := []float64{0, 0.125, 0.25, 0.5, 0.75, 0.875, 1 - 0x1p-53}
		for range n {
			us = append(us, float64(rng.Uint64()>>11)*0x1p-53)
		}
		got := mlEval(t, dev, "cos2pi_f64", f64Bits(us))
		mlSameBits(t, "cos2pi_f64", [][]uint64{f64Bits(us)}, got)
		for i, u := range us {
			require.InDelta(t, math.Cos(2*math.Pi*u), math.Float64frombits(got[i]), 2e-15, "cos(2π·%v)", u)
		}
	})
}

func TestMathlibDeviceRandom(t *testing.T) {
	dev, gpu := mlDevice(t)
	n := 20000
	if gpu {
		n = 1000000
	}
	rng := rand.New(rand.NewPCG(19, 20))
	seeds, ctrs, streams := []uint64{0, math.MaxUint64, 0xa4093822299f31d0}, []uint64{0, math.MaxUint64, 0x85a308d3243f6a88},
		[]uint64{0, math.MaxUint64, 0x0370734413198a2e}
	for i := range n {
		seeds = append(seeds, rng.Uint64()>>(i%64))
		ctrs = append(ctrs, uint64(i)) // consecutive elements, as a kernel draws them
		streams = append(streams, rng.Uint64()>>(i%3*30))
	}
	for _, name := range []string{"rand_uniform_f32", "rand_uniform_f64", "rand_normal_f32", "rand_normal_f64"} {
		t.Run(name, func(t *testing.T) {
			got := mlEval(t, dev, name, seeds, ctrs, streams)
			mlSameBits(t, name, [][]uint64{seeds, ctrs, streams}, got)
			var sum, sumSq float64
			for i, g := range got {
				v := math.Float64frombits(g)
				if mathSigs[name].ret == "f32" {
					v = float64(math.Float32frombits(uint32(g)))
				}
				require.False(t, math.IsNaN(v) || math.IsInf(v, 0), "%s(%d) = %v", name, i, v)
				if strings.Contains(name, "uniform") {
					require.True(t, v >= 0 && v < 1, "%s(%d) = %v in [0, 1)", name, i, v)
				}
				sum, sumSq = sum+v, sumSq+v*v
			}
			mean, m := sum/float64(len(got)), float64(len(got))
			variance := sumSq/m - mean*mean
			if strings.Contains(name, "uniform") {
				assert.InDelta(t, 0.5, mean, 5/math.Sqrt(12*m))
				assert.InDelta(t, 1.0/12, variance, 0.01)
			} else {
				assert.InDelta(t, 0, mean, 5/math.Sqrt(m))
				assert.InDelta(t, 1, variance, 0.05)
			}
		})
	}
}

// TestMathlibDeviceTanF32: float32 tan's division is div.rn.f32's fast
// path without its slow-path branch (quot32); on a GPU its bits must equal
// the interpreter's (which runs quot32 with an rcp.approx one ulp off) over
// every 4099th float and the floats nearest odd multiples of π/2, where
// the divisor is smallest, and stay within tan's 4-ulp bound.
func TestMathlibDeviceTanF32(t *testing.T) {
	dev, gpu := mlDevice(t)
	stride := uint32(1 << 20)
	if gpu {
		stride = 4099
	}
	var edges []float32
	for k := 1; k < 1<<17; k = k*3 + 1 {
		x := float32(float64(k) * math.Pi / 2)
		edges = append(edges, x, -x, math.Nextafter32(x, 0), math.Nextafter32(x, 2*x))
	}
	xs := inputs32(rand.New(rand.NewPCG(13, 14)), stride, 20000, -4, 4, edges...)
	col := f32Bits(xs)
	got := mlEval(t, dev, "tan_f32", col)
	mlSameBits(t, "tan_f32", [][]uint64{col}, got)
	var acc mlAccuracy
	for i, x := range xs {
		acc.add(ulpErr32(math.Float32frombits(uint32(got[i])), math.Tan(float64(x))), "x=%g", x)
	}
	t.Logf("tan_f32 on %s over %d inputs: worst %.3f ulp at %s", dev, len(xs), acc.worst, acc.at)
	assert.LessOrEqual(t, acc.worst, 4.0, "worst at %s", acc.at)
}

// TestMathlibTanhF32AtOne: tanh(±1) is the correctly rounded value on the
// device too (the polynomial's, bit-exact everywhere), not the wide
// path's, whose bits are the GPU's own.
func TestMathlibTanhF32AtOne(t *testing.T) {
	dev, _ := mlDevice(t)
	xs := []float32{1, -1, math.Nextafter32(1, 0), math.Nextafter32(-1, 0)}
	got := mlEval(t, dev, "tanh_f32", f32Bits(xs))
	for i, x := range xs {
		want := float32(math.Tanh(float64(x)))
		assert.Equal(t, math.Float32bits(want), uint32(got[i]), "tanh(%v) = %v, want %v", x, math.Float32frombits(uint32(got[i])), want)
	}
}
