// Package kernels is the wing of generated kernels that take arrays, not
// expressions: sorting, selection, gathers and scatters, joins and
// histograms. Each kernel is a generator (a kind and its variant: element
// sizes and types, modes, algorithm constants) that writes PTX text with
// Go code, as package ptxgen does for expressions, and a Go twin with the
// same parameters and effect on memory that a host device runs in its
// place (cache.go). Kernels compile once per variant and device.
//
// The operations here (Gather.Run, ...) are what package gpuarr's public
// functions call once they have checked their arguments and allocated the
// results: each claims its arrays through internal/lifetime (so it is
// ordered like every operation), takes its temporaries from the pool on
// its stream (lifetime.Temp), and checks indices on the device through
// internal/indexcheck. Example runs a Take that way.
//
// Tests run each kernel's PTX in internal/ptxsim as well as its twin
// (HostKernelHook), so CI checks the code a GPU runs.
//
// This package owns the generators, their twins and the per-device
// kernel cache. It does not know gpuarr's options or public types, and it
// allocates only through internal/lifetime.
package kernels
