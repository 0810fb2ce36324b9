package memory

import (
	"github.com/gpuarr/gpuarr/device"
)

// Resource hands out device memory of one device in stream order. It is the
// one interface every allocator and adaptor implements, so they compose the
// way RMM's memory resources do: Caching(Limit(Direct(dev), 8<<30)).
//
// All methods are safe for concurrent use.
type Resource interface {
	// Device is the device whose memory the resource hands out.
	Device() *device.Device

	// Alloc returns a block of at least n bytes usable by work issued on s
	// after the call (nil s means the device's default stream). A zero n
	// gets the smallest block the resource hands out. Exhaustion gives an
	// error matching device.ErrOutOfMemory.
	Alloc(s *device.Stream, n uint64) (*Block, error)

	// Free returns b in the order of b's stream: work issued on that stream
	// before the call may still use it. Work on other streams that used b
	// must have been declared with RecordUse. A block must not be used or
	// freed again after Free.
	Free(b *Block) error

	// RecordUse declares that work on s (a stream other than b's) uses b:
	// b's free is then deferred until s has passed the point of the free.
	RecordUse(b *Block, s *device.Stream) error

	// Stats reports the resource's statistics now.
	Stats() Stats

	// EmptyCache returns every cached, unused byte upstream (to the driver).
	EmptyCache() error

	// Trim returns cached memory upstream until at most keep bytes stay
	// reserved, or nothing more can be returned.
	Trim(keep uint64) error
}

// Kinds of Resource, as Stats.Kind names them.
const (
	KindCaching    = "caching"
	KindDriverPool = "cuda"
	KindDirect     = "none"
)

// streamOrdered is implemented by resources whose blocks become usable in
// the order of the allocating stream (the driver's pool): a caching pool on
// top of one orders other streams after that point before they use a new
// segment. Adaptors forward it.
type streamOrdered interface{ streamOrdered() bool }

// upstream is embedded by the adaptors (Limit, Reclaiming, Statistics,
// Tracer.Wrap): it forwards every Resource method an adaptor does not
// override to the resource below, and reports that resource's stream
// ordering, so a caching pool above an adaptor still sees a driver pool
// underneath.
type upstream struct{ Resource }

func (u upstream) streamOrdered() bool { return isStreamOrdered(u.Resource) }

func isStreamOrdered(r Resource) bool {
	so, ok := r.(streamOrdered)
	return ok && so.streamOrdered()
}

// checkStream resolves a nil stream to dev's default stream and refuses a
// stream of another device.
func checkStream(call string, dev *device.Device, s *device.Stream) (*device.Stream, error) {
	if s == nil {
		return dev.DefaultStream(), nil
	}
	if s.Device() != dev {
		return nil, device.Errorf(call, device.InvalidValue, "stream of %s used with a resource of %s", s.Device(), dev)
	}
	return s, nil
}

func invalid(call, format string, args ...any) error {
	return device.Errorf(call, device.InvalidValue, format, args...)
}
