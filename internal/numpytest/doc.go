// Package numpytest is gpuarr's differential suite against NumPy: golden
// cases written by a NumPy generator (gen/gen.py) and a Go test that runs
// them through gpuarr's public API on the default device (the host
// backend in CI, CUDA in the GPU bundle). The package has no API; its
// tests are the suite. NumPy is needed only to regenerate the goldens.
//
// # The cases
//
// testdata/<family>.json.gz, one file per family, written by gen/gen.py:
// golden_test.go describes the format and decodes it; its op names and
// attributes are the interpreter table's (interp_test.go).
//
// # The runner
//
// TestNumPy decodes each case and evaluates its tree with the interpreter
// table (interp_test.go): per element type, a map from op to a row that
// calls gpuarr. A case whose op or element type has no row yet is
// pending: counted per function and per missing op and logged (go test
// -v), not run. Every other case must pass; the test also fails when
// fewer cases run than executedFloor (numpy_test.go), or a row of the
// table has no golden cases (TestInterpreterTable).
//
// Adding a function: its generator entry (NumPy's answer for random
// operands, under the op name its row will have), regenerate, then its row
// in interp_test.go; raise executedFloor to the new count. Adding an
// element type: a row of gen/numerics.py's TYPES (the families draw from
// its type lists), and in interp_test.go its entry in types and in the
// conversion lists.
//
// # Tolerances
//
// Results are compared exactly (the same bits, any NaN matching any NaN)
// unless the root op has a rule in tolerance_test.go, which states each
// rule and why it holds.
//
// # Intended differences
//
// A case with "diff" holds NumPy's answer where gpuarr's package doc
// (gpuarr/numpy.go) documents another. Its entry in differences_test.go
// computes gpuarr's answer from the operands (Go's truncating integer Div,
// saturating float→integer Cast, the truncated integer Mean), expects the
// row's error (Sum of narrow integers, Mean of no elements) and checks the
// alternative the row names (SumAs[int64] is NumPy's sum), or writes out
// the Cast a Go user needs where NumPy promotes; it also checks NumPy's
// answer against what the row says NumPy does. A row no golden case
// covers has an api check instead (differences_api_test.go): gpuarr's
// public API on small arrays, NumPy's answer written in; a row whose
// difference is that a call does not compile is type-checked against
// gpuarr's declared constraints (differences_compile_test.go).
// TestDifferencesCoverTheTable keeps the entries and the table's rows one
// to one.
package numpytest
