// Package philox is the Go reference of the counter-based random numbers
// gpuarr's fused kernels generate: Philox4x32-10 (Salmon et al., "Parallel
// random numbers: as easy as 1, 2, 3", with Random123's constants) and the
// conversions to uniform and normal floats that package internal/fusion/expr's
// doc defines. The host backend's evaluator (internal/fusion/hosteval) calls it
// per element and tests compare the PTX back end against it. It owns no
// state and touches no device. Example draws from one stream.
package philox
