// Package expr is the intermediate form of gpuarr's fused kernels: a
// Program is a small SSA list of typed instructions evaluated once per
// element of an iteration space, optionally followed by a reduction. It
// has no device code and no state.
//
// Two back ends consume a Program and must agree on it, bit for bit where
// its contract says so: package ptxgen turns it into PTX text for the
// CUDA driver's JIT, and package hosteval runs it in Go on the host
// backend. Package fusion builds Programs from expression trees
// (broadcasting, views, casts) and launches them.
//
// The contract lives with the declarations it governs:
//
//   - Program: the iteration space, how inputs and the output are
//     addressed, and what a Vector program promises;
//   - Program.Params: the kernel's parameters, in order;
//   - Op and its table (ops.go): what each instruction computes, and the
//     arithmetic, comparison and special-value rules both back ends share;
//   - Castable: the conversions OpCast makes;
//   - InputKind: a Random input's Philox stream and its distributions;
//   - ReduceOp, Stage and FinalType: accumulators, NaN rules, moments,
//     identities, and the Partial and Final stages of a reduction;
//   - Scan: the same for a scan.
//
// dtype.DType names the types; Computes and Stores say which a program
// takes. Validate checks a Program against all of the above before either
// back end sees it. Example builds a Program and lists its kernel's
// parameters.
package expr
