package hosteval

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
)

// TestLargeElementwise covers the parallel path: several goroutines, each
// with its own frame, over a few million elements.
func TestLargeElementwise(t *testing.T) {
	dev := hostDevice(t)
	const n = 3_000_017
	f32 := dtype.Float32
	p := elementwise([]expr.Instr{input(0, f32), input(1, f32), bin(expr.OpMul, f32, 0, 1), konst(f32, 0.5),
		bin(expr.OpSub, f32, 2, 3)}, contiguous(f32, 2))
	a, b := make([]float32, n), make([]float32, n)
	for i := range a {
		a[i], b[i] = float32(i%1000)*0.25, float32(i%7)
	}
	c := call{n: n, out: alloc[float32](t, dev, n), ins: []inArg{{ptr: upload(t, dev, a)}, {ptr: upload(t, dev, b)}}}
	require.NoError(t, run(t, dev, p, c))
	got := download[float32](t, dev, c.out, n)
	for i := range got {
		if want := float32(a[i]*b[i]) - 0.5; got[i] != want {
			require.Equalf(t, want, got[i], "element %d", i)
		}
	}
}

// BenchmarkEval reports elements per second for a+b in float32 and a
// float32 sum, on one core and on all.
func BenchmarkEval(b *testing.B) {
	dev := hostDevice(b)
	const n = 1 << 22
	f32 := dtype.Float32
	vals := make([]float32, n)
	for i := range vals {
		vals[i] = float32(i % 100)
	}
	in := upload(b, dev, vals)
	out := alloc[float32](b, dev, n)
	cases := []struct {
		name string
		p    *expr.Program
		c    call
	}{
		{"add_f32", elementwise([]expr.Instr{input(0, f32), input(1, f32), bin(expr.OpAdd, f32, 0, 1)}, contiguous(f32, 2)),
			call{n: n, out: out, ins: []inArg{{ptr: in}, {ptr: in}}}},
		{"sum_f32", &expr.Program{Code: []expr.Instr{input(0, f32)}, Inputs: contiguous(f32, 1), Reduce: expr.Sum, ArgIndex: -1},
			call{out: out, groups: 1, glen: n, count: n, ins: []inArg{{ptr: in}}}},
	}
	for _, tc := range cases {
		for _, procs := range []int{1, runtime.GOMAXPROCS(0)} {
			b.Run(fmt.Sprintf("%s/procs=%d", tc.name, procs), func(b *testing.B) {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
				for b.Loop() {
					if err := run(b, dev, tc.p, tc.c); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Melem/s")
			})
		}
	}
}
