package driver

// PoisonByte is the byte allocators fill freed memory with when asked to
// poison it: a read after a free then sees a recognisable pattern rather
// than the old data.
const PoisonByte = 0xDB

// Checker is an optional capability of a backend's Device: a checking mode
// that makes missing synchronization show up as wrong answers (the host
// backend's GPUARR_HOST_CHECK, which delays stream work at random).
// Allocators above poison the blocks they recycle while it is on, with
// PoisonByte as the backend gives it.
type Checker interface {
	CheckingMode() bool
	PoisonByte() byte
}
