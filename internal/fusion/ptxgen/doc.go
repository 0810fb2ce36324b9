// Package ptxgen turns an expr.Program into PTX text for the CUDA
// driver's JIT: one .entry per module, named p.EntryName(), taking exactly
// p.Params(), preceded by the caller's header and by the tables of the
// math library functions (mathlib.go) the program uses, whose bodies the
// entry holds as copies (mathlib_inline.go). Generate writes an
// elementwise or reduction kernel, GenerateScan a scan's (expr.Scan).
// Both validate the program first and refuse what they cannot compile
// with an error naming the problem. Example generates one.
//
// The kernels compute what package expr's declarations define (expr.Op,
// expr.Castable, expr.InputKind, expr.ReduceOp), bit for bit where those
// ask for it, as package hosteval does on the host. What a caller must
// know to launch them:
//
//   - An elementwise kernel takes a 1-D launch of any shape; a grid-stride
//     loop covers any n. With Vector V > 1 each thread loads
//     VectorsPerThread vectors of V elements before it computes any, so
//     ⌈n/(V·VectorsPerThread)⌉ threads cover n in one pass. out may alias
//     an input element for element.
//   - A reduction kernel takes a 1-D grid of blocks whose size is a
//     multiple of 32, at most 1024; a Final kernel needs bpg = 1. Float
//     sums run in float64 per thread over about glen/(bpg·ntid) elements,
//     then in a tree, which package gpuarr's Sum turns into its bound.
//   - A scan kernel is one pass with a decoupled look-back over tiles of
//     expr.Scan.Tile elements and needs expr.ScanStateBytes of zeroed
//     scratch.
//
// How each is built: registers and the storage types, gen.go's register
// classes; the loops, elementwise.go; the block and warp combination and
// the Columns layout, reduce.go; scans, scan.go; the math functions,
// mathlib.go.
package ptxgen
