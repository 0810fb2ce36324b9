// Package readme holds the tests that keep the repository's README.md
// true: every Go block compiles, the Environment tables list every
// GPUARR_* variable the code, its tests and its scripts read (and nothing
// else), and the Layout table has a row for every package (tables_test.go
// says how variables are found).
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
