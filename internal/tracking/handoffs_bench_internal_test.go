package tracking

import (
	"testing"

	"github.com/gpuarr/gpuarr/device"
)

// The bookkeeping of a producer/consumer round on one buffer, without the
// driver: the consumer's read and the producer's next write each hold a
// hand-off for their launch (UseLockedInto), which is then taken as
// issued (finish), as a launch that carried it would (Handoffs.Launch
// without hand-offs calls nothing). A plain round on one stream is the
// reference.
func BenchmarkHandoffBookkeeping(b *testing.B) {
	dev, err := device.Default()
	if err != nil {
		b.Fatal(err)
	}
	p, err := dev.NewStream()
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	c, err := dev.NewStream()
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	use := func(st *State, s *device.Stream, m Mode) {
		var j Handoffs
		st.Lock()
		if err := st.UseLockedInto(s, m, &j); err != nil {
			b.Fatal(err)
		}
		if j.n > 0 {
			_ = j.finish(j.n, nil)
		}
		st.Unlock()
	}
	for _, bc := range []struct {
		name string
		cons *device.Stream
	}{{"one-stream", p}, {"two-streams", c}} {
		b.Run(bc.name, func(b *testing.B) {
			var st State
			st.Start(p)
			for b.Loop() {
				use(&st, bc.cons, Read)
				use(&st, p, Write)
			}
			st.reset()
		})
	}
}
