package device

import "github.com/gpuarr/gpuarr/device/driver"

// Handoff is a point of stream From that a launch waits for (LaunchAfter,
// LaunchArgsAfter): Event is recorded on From, and the launching stream
// waits, on the device, for that record. From must be a stream of the
// launching stream's device, and Event an event of that device. The zero
// Handoff is none.
type Handoff struct {
	From  *Stream
	Event *Event
}

// IsZero reports whether h is none.
func (h Handoff) IsZero() bool { return h.From == nil }

// LaunchAfter is Launch preceded by up to two hand-offs: for each
// non-zero h of h0, h1 in order, h.Event is recorded on h.From and s
// waits for that record (From.RecordWait(Event, s)); then k is launched.
// Where the backend offers it (driver.HandoffLauncher) all of that is one
// driver round trip. done is how many of the non-zero hand-offs, in
// order, were recorded and awaited: all of them when err is nil or only
// the launch failed. A hand-off of
// another device, or with a nil Event, is an error before anything is
// issued (done 0).
func (s *Stream) LaunchAfter(h0, h1 Handoff, k *Kernel, cfg LaunchConfig, args ...any) (done int, err error) {
	if h0.IsZero() && h1.IsZero() {
		return 0, s.Launch(k, cfg, args...)
	}
	if err := s.launchable("Stream.LaunchAfter", k); err != nil {
		return 0, err
	}
	a := s.spareArgs.Swap(nil)
	if a == nil {
		a = new(driver.Args)
	}
	defer s.spareArgs.Store(a)
	if err := marshalArgs(a, k.Name(), args); err != nil {
		return 0, err
	}
	return s.launchAfter(h0, h1, k, cfg, a)
}

// LaunchArgsAfter is LaunchAfter with arguments already marshalled, as
// LaunchArgs takes them.
func (s *Stream) LaunchArgsAfter(h0, h1 Handoff, k *Kernel, cfg LaunchConfig, a *Args) (done int, err error) {
	if h0.IsZero() && h1.IsZero() {
		return 0, s.LaunchArgs(k, cfg, a)
	}
	if err := s.launchable("Stream.LaunchArgsAfter", k); err != nil {
		return 0, err
	}
	return s.launchAfter(h0, h1, k, cfg, a)
}

// launchable checks that s can launch k.
func (s *Stream) launchable(call string, k *Kernel) error {
	if err := s.check(call); err != nil {
		return err
	}
	if k.mod.closed.Load() {
		return closedError(call + " of " + k.Name() + " from a closed module")
	}
	if k.mod.dev != s.dev {
		return invalid(call, "kernel %s was loaded on %s, stream is on %s", k.Name(), k.mod.dev, s.dev)
	}
	return nil
}

func (s *Stream) launchAfter(h0, h1 Handoff, k *Kernel, cfg LaunchConfig, a *Args) (done int, err error) {
	var d [2]driver.Handoff
	for i, h := range [2]Handoff{h0, h1} {
		if h.IsZero() {
			continue
		}
		switch {
		case h.Event == nil:
			return 0, invalid("Stream.LaunchAfter", "hand-off %d has no event", i)
		case h.From.dev != s.dev || h.Event.dev != s.dev:
			return 0, invalid("Stream.LaunchAfter", "hand-off %d from a stream of %s with an event of %s, launch on %s", i, h.From.dev, h.Event.dev, s.dev)
		}
		if err := h.From.recordable(h.Event); err != nil {
			return 0, err
		}
		d[i] = driver.Handoff{From: h.From.drv, Event: h.Event.drv}
	}
	grid, block := cfg.Grid.Norm(), cfg.Block.Norm()
	if s.hl != nil {
		return s.hl.LaunchAfter(d[0], d[1], k.drv, grid, block, cfg.SharedBytes, a)
	}
	for _, h := range [2]Handoff{h0, h1} {
		if h.IsZero() {
			continue
		}
		if err := h.From.RecordWait(h.Event, s); err != nil {
			return done, err
		}
		done++
	}
	return done, s.drv.Launch(k.drv, grid, block, cfg.SharedBytes, a)
}
