// Package fusion is the fusion compiler, one wing of four packages: it
// turns an expression tree over arrays into one kernel per tree shape and
// launches it; expr is the program the kernels compute (the op table, the
// types and the semantics both back ends share); ptxgen writes a program
// as PTX for the CUDA driver's JIT; hosteval runs it in Go on the host
// backend.
//
// Package gpuarr builds trees of Nodes (Leaf, Scalar, Const, Random,
// Unary, Apply: broadcasting with NumPy's rules) and materializes them
// with EvalInto (elementwise) or Reduce (any axes, fused map-reduce). Both
// claim their arrays through internal/lifetime, so they are ordered like
// every array operation. Lowering (lower.go) turns a tree into an
// expr.Program and its parameters (addresses, dims, strides, scalar
// values); the program's key finds its kernel in the device's cache
// (kernels.go), compiled on first use: ptxgen's PTX loaded by the driver,
// bound on the host backend to hosteval's evaluation of the same program.
// An expression whose operands are contiguous arrays of the result's
// shape skips the lowering: a signature built in one walk finds its plan
// (plan.go). Example evaluates x·a + y twice with one kernel.
//
// # Adding an elementwise function
//
//  1. expr/ops.go: an Op constant in its arity's group, and its row in the
//     op table (name, arity, operand class; Math for a function the back
//     ends implement in a math library). Validate, listings and the
//     program key follow from the row.
//  2. ptxgen: for a Math op, the PTX functions name_f32 and name_f64
//     (mathlib_*.go, registered in mathlib.go's tables); otherwise a case
//     in ops.go's op emitter.
//  3. hosteval: for a Math op, its Go function in mathfn.go's unaryMath or
//     binaryMath; otherwise a case in ops.go's kernels.
//  4. A test: the accuracy and special values against a reference
//     (ptxgen's mathlib tests model the PTX on the host; the GPU tests run
//     it), and gpuarr's expression tests on both backends.
//  5. gpuarr/ops.go: the one-line public function, with its doc comment.
//
// A reduction is a row of expr.ReduceOp with its accumulator (AccType),
// identity and final conversion (FinalType), emitted in ptxgen/reduce.go
// and folded in hosteval/reduce.go.
//
// # Adding an element type
//
// The types are package dtype's (device/dtype). A type the programs
// compute with is in expr.Computes (expr.Stores for arrays of it), in
// ptxgen's register classes and PTX types (ops.go: ty, memType, bits;
// gen.go: classOf) and conversions (cast), and in hosteval's kernels,
// which switch on the type (ops.go: unaryFor, binaryFor; cast.go). Arrays
// of it need gpuarr.Numeric and dtype.ElemOf to name its Go type, and the
// NumPy goldens a row of it.
//
// This package owns the lowering, the plan and kernel caches per device
// and their counters. It does not own arrays or their memory
// (internal/lifetime), order streams (internal/tracking) or know the
// public API (gpuarr).
package fusion
