package mathcoef_test

import (
	"fmt"
	"math"

	"github.com/gpuarr/gpuarr/internal/fusion/mathcoef"
)

// horner evaluates the polynomial with coefficients c (lowest order first)
// at x.
func horner(c []float64, x float64) float64 {
	r := 0.0
	for i := len(c) - 1; i >= 0; i-- {
		r = r*x + c[i]
	}
	return r
}

// A table is used as its comment says: Exp2QF64 approximates 2^f as
// 1 + f·Q(f) on [−½, ½], which both back ends evaluate by Horner's
// scheme; here it agrees with math.Exp2 to within a few float64 ulps.
func Example() {
	worst := 0.0
	for i := -50; i <= 50; i++ {
		f := float64(i) / 100
		got := 1 + f*horner(mathcoef.Exp2QF64, f)
		want := math.Exp2(f)
		worst = max(worst, math.Abs(got-want)/want)
	}
	fmt.Println(len(mathcoef.Exp2QF64), "terms; within 4 ulps:", worst <= 4*0x1p-53)
	// Output: 12 terms; within 4 ulps: true
}
