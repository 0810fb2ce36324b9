package main

import (
	"fmt"
	"reflect"

	"github.com/gpuarr/gpuarr/bench/report"
	"github.com/gpuarr/gpuarr/unified"
)

// A loop's speed on these CPUs depends on where its code lands: the same
// instructions run up to 1.7× slower when the loop straddles an
// instruction-fetch boundary (a plain slice loop too, less often: it is
// two instructions shorter). One placement of each loop measures the
// linker's luck as much as the accessor. benchPlacements therefore times
// copies of the At(i) loop and of the s[i] loop, each copy a function of
// its own (they differ only in a call after the loop, so the linker puts
// each at another address), and pairs copy k with copy k.

// placedLoops returns the copies: plains[k] sums s[lo:hi] by index,
// ats[k] the same elements through v.At.
func placedLoops(s []float64, v unified.View[float64]) (plains, ats []func(lo, hi int) float64) {
	plains = []func(lo, hi int) float64{
		func(lo, hi int) float64 { t := sumIndex(s, lo, hi); placementPad(0); return t },
		func(lo, hi int) float64 {
			var t float64
			for i := lo; i < hi; i++ {
				t += s[i]
			}
			placementPad(1)
			return t
		},
		func(lo, hi int) float64 {
			var t float64
			for i := lo; i < hi; i++ {
				t += s[i]
			}
			placementPad(2)
			placementPad(2)
			return t
		},
		func(lo, hi int) float64 {
			x := placementPad(3)
			var t float64
			for i := lo; i < hi; i++ {
				t += s[i]
			}
			return t + x
		},
		func(lo, hi int) float64 {
			x := placementPad(4) + placementPad(4)
			var t float64
			for i := lo; i < hi; i++ {
				t += s[i]
			}
			return t + x
		},
		func(lo, hi int) float64 {
			var t float64
			for i := lo; i < hi; i++ {
				t += s[i]
			}
			placementPad(5)
			placementPad(5)
			placementPad(5)
			return t
		},
	}
	ats = []func(lo, hi int) float64{
		func(lo, hi int) float64 { t := sumAt(v, lo, hi); placementPad(0); return t },
		func(lo, hi int) float64 {
			var t float64
			for i := lo; i < hi; i++ {
				t += v.At(i)
			}
			placementPad(1)
			return t
		},
		func(lo, hi int) float64 {
			var t float64
			for i := lo; i < hi; i++ {
				t += v.At(i)
			}
			placementPad(2)
			placementPad(2)
			return t
		},
		func(lo, hi int) float64 {
			x := placementPad(3)
			var t float64
			for i := lo; i < hi; i++ {
				t += v.At(i)
			}
			return t + x
		},
		func(lo, hi int) float64 {
			x := placementPad(4) + placementPad(4)
			var t float64
			for i := lo; i < hi; i++ {
				t += v.At(i)
			}
			return t + x
		},
		func(lo, hi int) float64 {
			var t float64
			for i := lo; i < hi; i++ {
				t += v.At(i)
			}
			placementPad(5)
			placementPad(5)
			placementPad(5)
			return t
		},
	}
	return plains, ats
}

//go:noinline
func sumIndex(s []float64, lo, hi int) float64 {
	var t float64
	for i := lo; i < hi; i++ {
		t += s[i]
	}
	return t
}

//go:noinline
func sumAt(v unified.View[float64], lo, hi int) float64 {
	var t float64
	for i := lo; i < hi; i++ {
		t += v.At(i)
	}
	return t
}

// placementPad is the call that makes each copy a different function.
//
//go:noinline
func placementPad(k int) float64 { return float64(k) * 0 }

// benchPlacements adds the paired rounds over all copies (the row the
// At(i) target is judged on when one placement is not to decide it) and a
// row per copy, named by where its code starts modulo 64 bytes.
func benchPlacements(rep *report.Report, reps, n int, s []float64, v unified.View[float64]) {
	plains, ats := placedLoops(s, v)
	k := len(plains)
	rounds := reps * 4 * k
	p, u, ratio := make([]float64, rounds), make([]float64, rounds), make([]float64, rounds)
	perCopy := make([][]float64, k)
	for i := range k { // warm up
		sink += plains[i](0, n) + ats[i](0, n)
	}
	for r := range rounds {
		c, q := r%k, (r/k)%4
		lo, hi := q*n/4, (q+1)*n/4
		p[r], u[r] = timePair(hi-lo, (r/k)%2 == 1, func() float64 { return plains[c](lo, hi) }, func() float64 { return ats[c](lo, hi) })
		ratio[r] = u[r] / p[r]
		perCopy[c] = append(perCopy[c], ratio[r])
	}
	name := fmt.Sprintf("CPU read per element, float64 (1 Mi elements): element access: At(i) vs s[i], %d code placements of each loop", k)
	add(rep, name, "plain Go slice", p, nil)
	add(rep, name, "unified", u, nil)
	rep.Last().Metrics["vs_ref"] = report.Summarize(ratio).P50
	rep.Last().Judge("vs_ref", report.AtMost, 1.2)
	for c := range k {
		pe, ae := reflect.ValueOf(plains[c]).Pointer()%64, reflect.ValueOf(ats[c]).Pointer()%64
		sum := report.Summarize(perCopy[c])
		rep.Add("At(i) vs s[i] per code placement", map[string]string{"path": fmt.Sprintf("copy %d: s[i] loop's code at %d, At(i) loop's at %d (mod 64 bytes)", c, pe, ae)},
			map[string]float64{"vs_ref": sum.P50})
	}
	rep.Note("Code placements: %d copies of the At(i) loop and of the s[i] loop, each its own function (so at its own address; the per-copy rows give where each starts modulo 64 bytes), %d paired rounds over quarters, copy k against copy k; vs_ref is the median of the rounds' ratios (per copy: of that copy's).", k, rounds)
}
