// Command gonum is a gonum program ported to the GPU with a diff of a few
// lines: a principal component analysis whose covariance product
// (mat.Dense.Mul, the O(n·d²) step) runs as one cuBLAS DGEMM, while the
// rest — centering, scaling, gonum's symmetric eigensolver — stays the
// same gonum code on the CPU, over the same memory. The result is checked
// against the unported program's.
//
//	go run ./examples/gonum [-n samples] [-d features] [-k components]
//
// The gonum original (pca is unchanged by the port):
//
//	x := mat.NewDense(n, d, data)
//	cov := mat.NewDense(d, d, nil)
//	vals, vecs, err := pca(x, cov, k)
//
// The port:
//
//	blas64.Use(bridge.Implementation{})
//	xa, _ := unified.FromSlice(data, gpuarr.Shape{n, d})
//	ca, _ := unified.Empty[float64](gpuarr.Shape{d, d})
//	err := bridge.BorrowAll([]*gpuarr.Array[float64]{xa, ca}, func(m []*mat.Dense) error {
//		x, cov := m[0], m[1]
//		vals, vecs, err = pca(x, cov, k)
//		return err
//	})
//
// It runs on a GPU when one is usable and on the host backend otherwise.
package main

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"

	"gonum.org/v1/gonum/blas/blas64"
	native "gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/gonum/mat"

	bridge "github.com/gpuarr/gpuarr/gonum"
	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/unified"
)

func main() {
	n := flag.Int("n", 20000, "samples")
	d := flag.Int("d", 256, "features")
	k := flag.Int("k", 3, "principal components to print")
	flag.Parse()
	res, err := run(*n, *d, *k)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gonum:", err)
		os.Exit(1)
	}
	fmt.Printf("gonum: PCA of %d×%d on %s (%d products on the device): variances %.4f, matching gonum's: OK\n",
		*n, *d, res.Device, res.DeviceGemms, res.Variances)
}

type result struct {
	Device      string
	DeviceGemms uint64
	Variances   []float64
}

// pca is the gonum program: it centers the columns of x in place, makes
// cov = xᵀ·x/(n-1), and returns the k largest eigenvalues of cov
// (the variances along the principal axes, largest first) and their
// eigenvectors as columns.
func pca(x, cov *mat.Dense, k int) ([]float64, *mat.Dense, error) {
	n, d := x.Dims()
	for j := range d {
		col := mat.Col(nil, j, x)
		var mean float64
		for _, v := range col {
			mean += v
		}
		mean /= float64(n)
		for i := range n {
			x.Set(i, j, col[i]-mean)
		}
	}
	cov.Mul(x.T(), x)
	cov.Scale(1/float64(n-1), cov)
	sym := mat.NewSymDense(d, nil)
	for i := range d {
		for j := i; j < d; j++ {
			sym.SetSym(i, j, cov.At(i, j))
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(sym, true) {
		return nil, nil, fmt.Errorf("the eigensolver did not converge")
	}
	vals := eig.Values(nil) // ascending
	var all mat.Dense
	eig.VectorsTo(&all)
	top := make([]float64, k)
	vecs := mat.NewDense(d, k, nil)
	for c := range k {
		top[c] = vals[d-1-c]
		vecs.SetCol(c, mat.Col(nil, d-1-c, &all))
	}
	return top, vecs, nil
}

// samples are n points in d dimensions with a few strong directions.
func samples(n, d int) []float64 {
	rng := rand.New(rand.NewPCG(1, 2))
	data := make([]float64, n*d)
	for i := range n {
		a, b := 5*rng.NormFloat64(), 2*rng.NormFloat64()
		for j := range d {
			data[i*d+j] = a*math.Sin(float64(j+1)) + b*math.Cos(float64(2*j+1)) + 0.3*rng.NormFloat64() + float64(j%7)
		}
	}
	return data
}

// run does the analysis twice, as the gonum original and as the port, and
// compares them.
func run(n, d, k int) (result, error) {
	if n < 2 || d < 1 || k < 1 || k > d {
		return result{}, fmt.Errorf("n=%d d=%d k=%d: want n ≥ 2, d ≥ 1, 1 ≤ k ≤ d", n, d, k)
	}
	data := samples(n, d)

	// The original.
	blas64.Use(native.Implementation{})
	wantVals, wantVecs, err := pca(mat.NewDense(n, d, append([]float64(nil), data...)), mat.NewDense(d, d, nil), k)
	if err != nil {
		return result{}, err
	}

	// The port.
	blas64.Use(bridge.Implementation{})
	defer blas64.Use(native.Implementation{})
	xa, err := unified.FromSlice(data, gpuarr.Shape{n, d})
	if err != nil {
		return result{}, err
	}
	defer xa.Release()
	ca, err := unified.Empty[float64](gpuarr.Shape{d, d})
	if err != nil {
		return result{}, err
	}
	defer ca.Release()
	before := bridge.DeviceGemms()
	var vals []float64
	var vecs *mat.Dense
	err = bridge.BorrowAll([]*gpuarr.Array[float64]{xa, ca}, func(m []*mat.Dense) error {
		x, cov := m[0], m[1]
		var err error
		vals, vecs, err = pca(x, cov, k)
		return err
	})
	if err != nil {
		return result{}, err
	}

	for c := range k {
		if math.Abs(vals[c]-wantVals[c]) > 1e-9*math.Abs(wantVals[c]) {
			return result{}, fmt.Errorf("variance %d is %v, gonum's %v", c, vals[c], wantVals[c])
		}
		// An eigenvector's sign is arbitrary.
		dot := mat.Dot(vecs.ColView(c), wantVecs.ColView(c))
		if math.Abs(math.Abs(dot)-1) > 1e-6 {
			return result{}, fmt.Errorf("component %d differs from gonum's (|cos| = %v)", c, math.Abs(dot))
		}
	}
	return result{Device: xa.Device().String(), DeviceGemms: bridge.DeviceGemms() - before, Variances: vals}, nil
}
