package device

import (
	"github.com/gpuarr/gpuarr/device/driver"
)

// BeginCapture makes s record the work issued on it into a graph instead of
// running it, until EndCapture (CUDA stream capture, in RELAXED mode so the
// goroutine may move between OS threads). While s captures, anything that
// would wait on the host for it (Synchronize, Query, CopyDtoH, Synchronize
// of an event recorded in the capture) fails with an error matching
// ErrStreamCapture and invalidates the capture. Capturing a stream that
// already captures fails the same way.
func (s *Stream) BeginCapture() error {
	if err := s.check("Stream.BeginCapture"); err != nil {
		return err
	}
	if s.isDefault {
		// The default stream is shared by everything that names no stream:
		// capturing it would capture (and break) unrelated work.
		return invalid("Stream.BeginCapture", "the default stream of %s cannot capture; use a stream from NewStream", s.dev)
	}
	if !s.capturing.CompareAndSwap(false, true) {
		return driver.PlainErrorf("Stream.BeginCapture", driver.StreamCaptureUnsupported, "the stream of %s is already capturing", s.dev)
	}
	if err := s.drv.BeginCapture(); err != nil {
		s.capturing.Store(false)
		return err
	}
	return nil
}

// EndCapture stops capturing and returns the graph of the work captured
// since BeginCapture; none of it has run yet. A capture invalidated by a
// forbidden call ends with an error matching ErrStreamCapture. Without a
// BeginCapture, EndCapture fails with ErrInvalidValue.
func (s *Stream) EndCapture() (*Graph, error) {
	if err := s.check("Stream.EndCapture"); err != nil {
		return nil, err
	}
	if !s.capturing.Load() {
		return nil, invalid("Stream.EndCapture", "the stream of %s is not capturing (no BeginCapture)", s.dev)
	}
	g, err := s.drv.EndCapture()
	if err != nil {
		// The capture ends on most failures (an invalidated capture, a
		// graph that does not instantiate); ask the driver when unsure.
		if still, qerr := s.drv.Capturing(); qerr != nil || !still {
			s.capturing.Store(false)
		}
		return nil, err
	}
	s.capturing.Store(false)
	return &Graph{dev: s.dev, drv: g}, nil
}

// IsCapturing reports whether s is between BeginCapture and EndCapture. It
// reads a flag those two calls keep and makes no driver call, so tracking
// can check it on every operation.
func (s *Stream) IsCapturing() bool { return s.capturing.Load() }

// Graph is captured work, instantiated: each Launch runs all of it once.
// A Graph is safe for concurrent use.
type Graph struct {
	dev *Device
	drv driver.Graph
}

// Device is the device the graph runs on.
func (g *Graph) Device() *Device { return g.dev }

// Launch runs the graph once, in the order of s (a stream of its device).
func (g *Graph) Launch(s *Stream) error {
	if err := s.check("Graph.Launch"); err != nil {
		return err
	}
	if s.dev != g.dev {
		return invalid("Graph.Launch", "graph of %s launched on a stream of %s", g.dev, s.dev)
	}
	return g.drv.Launch(s.drv)
}

// LaunchJoined runs the graph once on stream on, in the order of stream
// caller (both of its device): before is recorded on caller and awaited by
// on, so the graph follows caller's work issued so far; after is recorded
// on on and awaited by caller, so caller's later work follows the graph.
// It is one driver round trip where the backend offers it. An error may
// come from any of the steps: the graph may then have been launched
// without caller waiting for it.
func (g *Graph) LaunchJoined(on, caller *Stream, before, after *Event) error {
	const call = "Graph.LaunchJoined"
	for _, s := range []*Stream{on, caller} {
		if err := s.check(call); err != nil {
			return err
		}
		if s.dev != g.dev {
			return invalid(call, "graph of %s launched in the order of a stream of %s", g.dev, s.dev)
		}
	}
	if err := caller.recordable(before); err != nil {
		return err
	}
	if err := on.recordable(after); err != nil {
		return err
	}
	if jl, ok := g.drv.(driver.JoinedLauncher); ok {
		return jl.LaunchJoined(on.drv, caller.drv, before.drv, after.drv)
	}
	if err := caller.RecordWait(before, on); err != nil {
		return err
	}
	if err := g.drv.Launch(on.drv); err != nil {
		return err
	}
	return on.RecordWait(after, caller)
}

// Close destroys the graph; launches already issued still run. Closing
// twice is an error matching ErrClosed.
func (g *Graph) Close() error { return g.drv.Close() }
