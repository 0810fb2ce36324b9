// Package readme holds the test that compiles every Go block of the
// repository's README.md, so the README's code stays code.
//
// A block that starts with a package clause is a whole file. Any other
// block is a fragment: its leading import lines go to the top of a file,
// the rest becomes the body of a function, followed by return nil. The
// function's signature is func() error unless an HTML comment on the line
// before the block gives it, naming the variables the fragment uses
// without declaring them:
//
//	<!-- readme-check: func(x, y *gpuarr.Array[float32]) error -->
//
// The packages a fragment names (fmt, gpuarr, device, collective,
// unified, memory, gcpressure) are imported for it. Errors are reported
// at README.md's lines.
package readme
