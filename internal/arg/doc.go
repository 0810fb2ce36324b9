// Package arg is what package gpuarr's API shares with the layers under it
// (internal/lifetime, internal/fusion) and the packages beside it that
// take arrays (unified, collective, linalg through internal/arrayhook):
// the sentinel errors every array error wraps, and how a call's options
// name the stream it runs on.
//
// It owns no state and checks nothing itself: each function turns its
// arguments into an error value or a stream (Example).
package arg
