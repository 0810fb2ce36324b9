// Package mathcoef holds what the two back ends' elementwise math
// functions share: the minimax polynomial coefficients (coef.go, written
// by coef.py, a weighted Remez exchange in mpmath) and the irrational
// constants split for double-double arithmetic, with the bits of 2/π
// (consts.go, computed with math/big). internal/fusion/ptxgen emits them
// as PTX literals; internal/fusion/hosteval evaluates the same
// polynomials in Go for its float64 functions. Example evaluates one.
package mathcoef

//go:generate /usr/bin/python3 coef.py
