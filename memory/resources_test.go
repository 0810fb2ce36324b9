package memory

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
)

// The same contract on every resource: sizes, streams, stats, double
// frees, foreign blocks and streams, RecordUse.
func TestResourceContract(t *testing.T) {
	dev := defaultDevice(t)
	other := newStream(t, dev)
	makers := map[string]func() Resource{
		"caching":    func() Resource { return Caching(Direct(dev), CachingOptions{}) },
		"direct":     func() Resource { return Direct(dev) },
		"statistics": func() Resource { return Statistics(Direct(dev)) },
		"limit":      func() Resource { return Limit(Direct(dev), 1<<30) },
		"reclaiming": func() Resource { return Reclaiming(Direct(dev), nil) },
		"trace":      func() Resource { r, _ := Trace(Direct(dev), 8); return r },
	}
	if _, err := Expandable(dev, ExpandableOptions{Reserve: 64 << 20}); err == nil {
		makers["expandable"] = func() Resource { return must(Expandable(dev, ExpandableOptions{Reserve: 64 << 20})) }
		makers["caching/expandable"] = func() Resource {
			return Caching(must(Expandable(dev, ExpandableOptions{})), CachingOptions{})
		}
	}
	if dev.Info().MemoryPools {
		makers["driverpool"] = func() Resource {
			r, err := DriverPool(dev, DriverPoolOptions{SoftLimit: 1 << 20})
			require.NoError(t, err)
			return r
		}
		makers["caching/driverpool"] = func() Resource {
			r, err := DriverPool(dev, DriverPoolOptions{})
			require.NoError(t, err)
			return Caching(Limit(r, 1<<30), CachingOptions{})
		}
	}
	for name, mk := range makers {
		t.Run(name, func(t *testing.T) {
			r := mk()
			require.Equal(t, dev, r.Device())
			s := dev.DefaultStream()
			var bs []*Block
			for _, n := range []uint64{0, 1, 4096, 3 << 20} {
				b, err := r.Alloc(nil, n)
				require.NoError(t, err)
				require.Equal(t, n, b.Size())
				require.GreaterOrEqual(t, b.Capacity(), max(n, 1))
				require.Equal(t, s, b.Stream())
				require.NotZero(t, b.Ptr())
				require.NoError(t, s.Memset8(b.Ptr(), 1, b.Capacity()))
				bs = append(bs, b)
			}
			st := r.Stats()
			require.Equal(t, uint64(4), st.Allocations.Current)
			require.NotEmpty(t, st.Kind)
			require.GreaterOrEqual(t, st.ReservedBytes.Current, st.AllocatedBytes.Current)

			require.NoError(t, r.RecordUse(bs[2], other))
			require.NoError(t, other.Memset8(bs[2].Ptr(), 2, 4096))
			for _, b := range bs {
				require.NoError(t, r.Free(b))
			}
			require.Zero(t, r.Stats().Allocations.Current)
			require.NoError(t, r.EmptyCache())
			require.NoError(t, r.Trim(0))

			b, err := r.Alloc(other, 100)
			require.NoError(t, err)
			require.Equal(t, other, b.Stream())
			require.NoError(t, r.Free(b))
			if _, ok := r.(*CachingPool); !ok { // the pool may have recycled b by now
				require.ErrorIs(t, r.Free(b), device.ErrInvalidValue, "double free")
			}
			require.ErrorIs(t, r.Free(&Block{}), device.ErrInvalidValue, "foreign block")
		})
	}
}

func TestCachingDoubleFreeAndForeignStream(t *testing.T) {
	dev := defaultDevice(t)
	p := Caching(Direct(dev), CachingOptions{})
	b, err := p.Alloc(nil, 100)
	require.NoError(t, err)
	require.NoError(t, p.Free(b))
	require.ErrorIs(t, p.Free(b), device.ErrInvalidValue)
	require.ErrorIs(t, p.RecordUse(b, dev.DefaultStream()), device.ErrInvalidValue)
	devs, err := device.Devices()
	require.NoError(t, err)
	if len(devs) > 1 {
		_, err := p.Alloc(devs[1].DefaultStream(), 100)
		require.ErrorIs(t, err, device.ErrInvalidValue)
	}
	require.NoError(t, p.EmptyCache())
}

func TestTrace(t *testing.T) {
	dev := defaultDevice(t)
	tr := NewTracer(4)
	pool := Caching(tr.Wrap(Direct(dev), TraceSegment), CachingOptions{})
	r := tr.Wrap(pool, TraceBlock)
	s := dev.DefaultStream()
	b, err := r.Alloc(s, 1000)
	require.NoError(t, err)
	require.NoError(t, r.Free(b))
	ev := allocatorEvents(tr.Events())
	require.Len(t, ev, 3)
	require.Equal(t, []string{"alloc", "alloc", "free"}, []string{ev[0].Op, ev[1].Op, ev[2].Op})
	require.Equal(t, TraceSegment, ev[0].Level)
	require.Equal(t, uint64(2<<20), ev[0].Size)
	require.Equal(t, TraceBlock, ev[1].Level)
	require.Equal(t, uint64(b.Ptr()), ev[2].Ptr)
	require.Equal(t, uint64(s.Handle()), ev[1].Stream)
	require.LessOrEqual(t, ev[0].T, ev[2].T)
	require.NoError(t, r.EmptyCache()) // empty_cache, then the segment's free
	ev = tr.Events()
	require.Len(t, ev, 4)
	if marks := len(ev) - len(allocatorEvents(ev)); marks > 0 {
		t.Skipf("a Go GC cycle ended during the test and took %d of the ring's 4 places", marks)
	}
	require.Equal(t, uint64(1), tr.Dropped())
	require.Equal(t, "free", ev[3].Op)
	require.Equal(t, TraceSegment, ev[3].Level)

	var buf bytes.Buffer
	require.NoError(t, tr.WriteJSON(&buf))
	var out struct {
		Capacity int          `json:"capacity"`
		Dropped  uint64       `json:"dropped"`
		Events   []TraceEvent `json:"events"`
	}
	require.NoError(t, json.Unmarshal(buf.Bytes(), &out))
	require.Equal(t, 4, out.Capacity)
	require.Equal(t, ev, out.Events)
}

func TestStatisticsAdaptorCountsSegments(t *testing.T) {
	dev := defaultDevice(t)
	up := Statistics(Direct(dev))
	pool := Caching(up, CachingOptions{})
	b, err := pool.Alloc(nil, 3<<20)
	require.NoError(t, err)
	require.Equal(t, Stat{18 << 20, 18 << 20}, up.Stats().AllocatedBytes, "room for six 3 MiB blocks")
	require.NoError(t, pool.Free(b))
	require.NoError(t, pool.EmptyCache())
	require.Equal(t, Stat{0, 18 << 20}, up.Stats().AllocatedBytes)
}

func TestFormatBytes(t *testing.T) {
	for n, want := range map[uint64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 3 << 29: "1.5 GiB", 80 << 30: "80.0 GiB"} {
		require.Equal(t, want, FormatBytes(n))
	}
}
