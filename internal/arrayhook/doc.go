// Package arrayhook is what packages that extend gpuarr's arrays use and
// the arrays' users do not: the sibling packages' door to an Array's
// handle. unified builds managed arrays on EmptyFrom and lends their
// memory to the CPU with PrepareHostAccess and HostLease; collective and
// linalg issue library calls on arrays with Track (Reads, Writes,
// ReadsWrites, DevicePtr) and resolve gpuarr's options with StreamOf;
// UseMemory orders any other work on an array's memory.
//
// Every hook orders its work like gpuarr's own operations (internal/tracking)
// and keeps the arrays it touches alive until that work is done
// (internal/lifetime). A gpuarr.Array[T] is its lifetime.Handle and
// nothing else, so this package reaches the handle by a pointer
// conversion whose sizes are checked when it compiles (handle.go).
//
//	err := arrayhook.Track("Scale", []arrayhook.Use{arrayhook.ReadsWrites(x, s)},
//		func() error { return s.Launch(k, cfg, arrayhook.DevicePtr(x), uint64(x.Len())) })
//
// Example runs a launch that way.
package arrayhook
