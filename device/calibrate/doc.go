// Package calibrate gives the benchmark programs the references they
// measure the binding against: the same driver calls made in C loops inside
// the CUDA shim, and an empty cgo call. It is benchmark scaffolding, kept
// out of product builds: the references exist only in builds tagged
// gpuarrbench (make gpu-bundle builds the benchmark programs so); without
// the tag every function reports ErrUnavailable.
//
// It lives under device/ because only device/ may reach a backend (make
// test checks that no other package imports device/cuda or device/host).
package calibrate
