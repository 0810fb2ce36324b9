package gcpressure

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/memory"
)

// Install makes the process's ladder memory's reclaimer and eager
// collection its allocation hook; the hooks work against the device's
// default resource.
func TestInstall(t *testing.T) {
	require.NoError(t, Install())
	prev := memory.SetReclaimer(nil)
	memory.SetReclaimer(prev)
	assert.Same(t, process().ladder, prev)
	hook := memory.SetPressure(nil)
	memory.SetPressure(hook)
	assert.Equal(t, allocHook{process()}, hook)

	dev := defaultDevice(t)
	res, err := memory.Default(dev)
	require.NoError(t, err)
	r0 := deviceReading(dev)
	assert.Positive(t, r0.Limit, "a limit: hard, soft or free + reserved")
	b, err := res.Alloc(nil, 1<<20)
	require.NoError(t, err)
	BeforeAlloc(dev, 1<<20)
	BeforeBlockingWait(dev)
	assert.GreaterOrEqual(t, deviceReading(dev).Live, r0.Live+1<<20)
	require.NoError(t, res.Free(b))
	st := Stats()
	assert.Equal(t, st.Eager.Collections+st.Reclaim.Collections, st.Collections())
}

// The eager hook's cost when nothing needs collecting: the figure that
// counts against every allocation's budget.
func BenchmarkBeforeAlloc(b *testing.B) {
	dev := defaultDevice(b)
	BeforeAlloc(dev, 0)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			BeforeAlloc(dev, 4096)
		}
	})
}

func BenchmarkBeforeAllocSerial(b *testing.B) {
	dev := defaultDevice(b)
	BeforeAlloc(dev, 0)
	b.ReportAllocs()
	for b.Loop() {
		BeforeAlloc(dev, 4096)
	}
}
