package unified_test

import (
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/internal/arrayhook"
	"github.com/gpuarr/gpuarr/memory"
	"github.com/gpuarr/gpuarr/unified"
)

func testDevice(t testing.TB) *device.Device {
	t.Helper()
	dev, err := device.Default()
	require.NoError(t, err)
	if !dev.Info().ManagedMemory {
		t.Skipf("%s has no managed memory", dev)
	}
	return dev
}

func newStream(t testing.TB, dev *device.Device) *device.Stream {
	t.Helper()
	s, err := dev.NewStream()
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func managedInUse(t testing.TB, dev *device.Device) uint64 {
	t.Helper()
	r, err := memory.DefaultManaged(dev)
	require.NoError(t, err)
	return r.Stats().AllocatedBytes.Current
}

// emptyCaches gives the cached memory of dev's default resource and of its
// managed pool back to the driver, so that its free memory is all the room
// there is (the refusal to oversubscribe counts cached memory as room: the
// pools give it back before they refuse).
func emptyCaches(t testing.TB, dev *device.Device) {
	t.Helper()
	def, err := memory.Default(dev)
	require.NoError(t, err)
	require.NoError(t, def.EmptyCache())
	r, err := memory.DefaultManaged(dev)
	require.NoError(t, err)
	require.NoError(t, r.EmptyCache())
}

// A GPU write on one stream from one goroutine, read by the CPU from
// another goroutine with no manual synchronization: the view waits for
// exactly that write. The host backend's checking mode delays stream work,
// so a missing wait reads stale or poisoned values.
func TestGPUWriteCPURead(t *testing.T) {
	dev := testDevice(t)
	sA := newStream(t, dev)
	rng := rand.New(rand.NewPCG(1, 2))
	const trials = 1000
	wrong := 0
	for trial := range trials {
		n := 1 + rng.IntN(300)
		src := make([]int32, n)
		for i := range src {
			src[i] = rng.Int32N(1000)
		}
		x, err := gpuarr.FromSlice(src, gpuarr.Shape{n}, gpuarr.On(sA))
		require.NoError(t, err)
		a, err := unified.Empty[int32](gpuarr.Shape{n}, unified.On(sA))
		require.NoError(t, err)
		k := int32(trial)
		written := make(chan error)
		go func() {
			written <- gpuarr.EvalInto(a, gpuarr.Add[int32](x, gpuarr.Scalar(k)), gpuarr.On(sA))
		}()
		var got []int32
		var readErr error
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := <-written; err != nil {
				readErr = err
				return
			}
			vals, err := unified.Values(a)
			if err != nil {
				readErr = err
				return
			}
			for v := range vals {
				got = append(got, v)
			}
		}()
		wg.Wait()
		require.NoError(t, readErr)
		for i := range src {
			if got[i] != src[i]+k {
				wrong++
				break
			}
		}
		require.NoError(t, a.Release())
		require.NoError(t, x.Release())
	}
	assert.Zero(t, wrong, "trials with a wrong element")
}

// CPU writes through the view are seen by the next GPU operation, on any
// stream, without a manual synchronization.
func TestCPUWriteGPURead(t *testing.T) {
	dev := testDevice(t)
	sB := newStream(t, dev)
	rng := rand.New(rand.NewPCG(3, 4))
	a, err := unified.Zeros[float32](gpuarr.Shape{512})
	require.NoError(t, err)
	defer a.Release()
	wrong := 0
	for trial := range 200 {
		var want []float32
		require.NoError(t, unified.Borrow(a, func(v []float32) error {
			for i := range v {
				v[i] = float32(rng.IntN(100))
			}
			want = append(want, v...)
			return nil
		}))
		y, err := gpuarr.Eval[float32](gpuarr.Mul[float32](a, gpuarr.Scalar[float32](2)), gpuarr.On(sB))
		require.NoError(t, err)
		got, err := y.ToSlice()
		require.NoError(t, err)
		for i := range want {
			if got[i] != 2*want[i] {
				wrong++
				t.Logf("trial %d: element %d is %v, want %v", trial, i, got[i], 2*want[i])
				break
			}
		}
		require.NoError(t, y.Release())
	}
	assert.Zero(t, wrong)
}

// A CPU write after a GPU read on another stream waits for that read.
func TestCPUWriteAfterGPURead(t *testing.T) {
	dev := testDevice(t)
	sB := newStream(t, dev)
	a, err := unified.FromSlice([]int64{1, 2, 3, 4}, gpuarr.Shape{4})
	require.NoError(t, err)
	defer a.Release()
	y, err := gpuarr.Eval[int64](gpuarr.Add[int64](a, a), gpuarr.On(sB)) // a read on sB
	require.NoError(t, err)
	defer y.Release()
	v, err := unified.Host(a) // waits for sB's read before the CPU may write
	require.NoError(t, err)
	for i := range v.Len() {
		v.Set(i, 100)
	}
	assert.Equal(t, []int64{2, 4, 6, 8}, must(y.ToSlice()))
}

// cpuRead copies a's elements out through a borrowed slice.
func cpuRead[T gpuarr.Numeric](t testing.TB, a *gpuarr.Array[T]) []T {
	t.Helper()
	var out []T
	require.NoError(t, unified.Borrow(a, func(s []T) error {
		out = append(out, s...)
		return nil
	}))
	return out
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func TestViewsIterateRowMajor(t *testing.T) {
	testDevice(t)
	data := make([]int32, 12)
	for i := range data {
		data[i] = int32(i)
	}
	a, err := unified.FromSlice(data, gpuarr.Shape{3, 4})
	require.NoError(t, err)
	defer a.Release()

	collect := func(x *gpuarr.Array[int32]) ([]int, []int32) {
		seq, err := unified.All(x)
		require.NoError(t, err)
		var pos []int
		var vals []int32
		for i, v := range seq {
			pos = append(pos, i)
			vals = append(vals, v)
		}
		return pos, vals
	}
	pos, vals := collect(a)
	assert.Equal(t, data, vals)
	assert.Equal(t, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, pos)

	row, err := a.Slice(1, 3) // rows 1 and 2
	require.NoError(t, err)
	defer row.Release()
	_, vals = collect(row)
	assert.Equal(t, data[4:], vals)
	rs, err := unified.UnsafeSlice(row) // row stays reachable: its Release is deferred
	require.NoError(t, err)
	assert.Equal(t, data[4:], rs)
	assert.Equal(t, data[4:], cpuRead(t, row))

	tr, err := a.Transpose()
	require.NoError(t, err)
	defer tr.Release()
	pos, vals = collect(tr)
	assert.Equal(t, []int32{0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11}, vals)
	assert.Equal(t, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, pos)
	x, err := unified.AtIndex(tr, 3, 1)
	require.NoError(t, err)
	assert.Equal(t, int32(7), x)
	_, err = unified.UnsafeSlice(tr)
	assert.ErrorIs(t, err, gpuarr.ErrArgument)
	assert.ErrorIs(t, unified.Borrow(tr, func([]int32) error { panic("called") }), gpuarr.ErrArgument)
	_, err = unified.AtIndex(tr, 4, 0)
	assert.ErrorIs(t, err, gpuarr.ErrArgument)
	_, err = unified.AtIndex(tr, 1)
	assert.ErrorIs(t, err, gpuarr.ErrArgument)

	st, err := a.Step(1, 3, -1, -2) // columns 3 and 1, backwards
	require.NoError(t, err)
	defer st.Release()
	_, vals = collect(st)
	assert.Equal(t, []int32{3, 1, 7, 5, 11, 9}, vals)

	// Values stops when the loop breaks.
	seq, err := unified.Values(tr)
	require.NoError(t, err)
	var first []int32
	for v := range seq {
		if len(first) == 2 {
			break
		}
		first = append(first, v)
	}
	assert.Equal(t, []int32{0, 4}, first)

	// View.SetIndex writes through a strided view.
	hv, err := unified.Host(tr)
	require.NoError(t, err)
	hv.SetIndex(-1, 0, 1)
	assert.Equal(t, int32(-1), must(unified.AtIndex(a, 1, 0)))
}

// The first CPU pass after GPU work synchronizes; the second does not; a
// GPU write makes the array dirty again.
func TestSecondPassMakesNoSync(t *testing.T) {
	dev := testDevice(t)
	if !dev.ConcurrentManagedAccess() {
		t.Skipf("%s has no concurrent managed access: every CPU access synchronizes the device", dev)
	}
	s := newStream(t, dev)
	a, err := unified.Zeros[float64](gpuarr.Shape{1024}, unified.On(s))
	require.NoError(t, err)
	defer a.Release()
	require.NoError(t, gpuarr.EvalInto(a, gpuarr.Scalar(1.5), gpuarr.On(s)))

	sum := func() float64 {
		vals, err := unified.Values(a)
		require.NoError(t, err)
		var t float64
		for v := range vals {
			t += v
		}
		return t
	}
	before := arrayhook.HostSyncs()
	assert.Equal(t, 1536.0, sum())
	afterFirst := arrayhook.HostSyncs()
	assert.Equal(t, before+1, afterFirst, "the first pass waits for the GPU write")
	assert.Equal(t, 1536.0, sum())
	_, err = unified.AtIndex(a, 3)
	require.NoError(t, err)
	assert.Equal(t, afterFirst, arrayhook.HostSyncs(), "a second pass makes no synchronization")

	require.NoError(t, gpuarr.EvalInto(a, gpuarr.Scalar(2.0), gpuarr.On(s)))
	assert.Equal(t, 2048.0, sum())
	assert.Equal(t, afterFirst+1, arrayhook.HostSyncs(), "a GPU write makes the array dirty again")
}

func TestOversubscriptionRefused(t *testing.T) {
	dev := testDevice(t)
	emptyCaches(t, dev)
	free, _, err := dev.MemInfo()
	require.NoError(t, err)
	inUse := managedInUse(t, dev)
	n := int(free/4) + 1<<20 // float32 elements: more bytes than are free
	_, err = unified.Empty[float32](gpuarr.Shape{n})
	require.Error(t, err)
	var oe *unified.OversubscribeError
	require.ErrorAs(t, err, &oe)
	assert.ErrorIs(t, err, device.ErrOutOfMemory)
	assert.GreaterOrEqual(t, oe.Requested, uint64(n)*4, "the request, rounded up to a whole segment of the pool")
	assert.Less(t, oe.Requested, uint64(n)*4+2<<20)
	assert.LessOrEqual(t, oe.Free, free+free/8)
	assert.Contains(t, err.Error(), "managed memory requested on "+dev.String())
	assert.Contains(t, err.Error(), "free")
	assert.Contains(t, err.Error(), "AllowOversubscribe")
	assert.Equal(t, inUse, managedInUse(t, dev), "nothing was allocated")
}

// The opt-in reaches the driver. It runs on the host backend only: on a
// GPU, oversubscribing managed memory can stall the device for everyone.
func TestAllowOversubscribeHostOnly(t *testing.T) {
	dev := testDevice(t)
	if dev.Backend() != "host" {
		t.Skipf("never oversubscribe managed memory on %s (a shared GPU)", dev)
	}
	emptyCaches(t, dev)
	free, _, err := dev.MemInfo()
	require.NoError(t, err)
	_, err = unified.Empty[byte](gpuarr.Shape{int(free) + 1}, unified.AllowOversubscribe())
	require.Error(t, err) // the host backend's capacity still holds
	var oe *unified.OversubscribeError
	assert.False(t, errorsAs(err, &oe), "the opt-in skips the refusal: %v", err)
	assert.ErrorIs(t, err, device.ErrOutOfMemory)
}

func TestBadArguments(t *testing.T) {
	testDevice(t)
	_, err := unified.Empty[float32](gpuarr.Shape{-1})
	assert.ErrorIs(t, err, gpuarr.ErrShape)
	_, err = unified.FromSlice([]float32{1, 2}, gpuarr.Shape{3})
	assert.ErrorIs(t, err, gpuarr.ErrShape)
	_, err = unified.Empty[float32](gpuarr.Shape{1}, unified.On(nil))
	assert.ErrorIs(t, err, gpuarr.ErrArgument)
	_, err = unified.Empty[float32](gpuarr.Shape{1}, nil)
	assert.ErrorIs(t, err, gpuarr.ErrArgument)
	_, err = unified.UnsafeSlice[float32](nil)
	assert.ErrorIs(t, err, gpuarr.ErrArgument)
	assert.ErrorIs(t, unified.Borrow[float32](nil, func([]float32) error { return nil }), gpuarr.ErrArgument)

	d, err := gpuarr.Zeros[float32](gpuarr.Shape{4})
	require.NoError(t, err)
	defer d.Release()
	mem, err := d.Memory()
	require.NoError(t, err)
	if mem == gpuarr.UnifiedMemory {
		// GPUARR_DEFAULT_MEMORY=unified: gpuarr's arrays are unified.
		_, err = unified.UnsafeSlice(d)
		assert.NoError(t, err)
		assert.NoError(t, unified.Borrow(d, func([]float32) error { return nil }))
		assert.NoError(t, unified.Prefetch(d, nil, d.Device().DefaultStream()))
		assert.NoError(t, unified.Advise(d, unified.ReadMostly()))
		return
	}
	_, err = unified.UnsafeSlice(d)
	assert.ErrorIs(t, err, unified.ErrNotManaged, "a device array has no CPU view")
	assert.ErrorIs(t, unified.Borrow(d, func([]float32) error { return nil }), unified.ErrNotManaged)
	assert.ErrorIs(t, unified.Prefetch(d, nil, d.Device().DefaultStream()), unified.ErrNotManaged)
	assert.ErrorIs(t, unified.Advise(d, unified.ReadMostly()), unified.ErrNotManaged)
}

func TestReleaseAndCleanup(t *testing.T) {
	dev := testDevice(t)
	before := managedInUse(t, dev)
	a, err := unified.FromSlice([]float32{1, 2, 3}, gpuarr.Shape{3})
	require.NoError(t, err)
	assert.Greater(t, managedInUse(t, dev), before)
	require.NoError(t, a.Release())
	require.NoError(t, a.Release(), "a second Release does nothing")
	assert.Equal(t, before, managedInUse(t, dev))
	_, err = unified.UnsafeSlice(a)
	assert.ErrorIs(t, err, gpuarr.ErrReleased)
	assert.ErrorIs(t, unified.Borrow(a, func([]float32) error { return nil }), gpuarr.ErrReleased)
	_, err = unified.Values(a)
	assert.ErrorIs(t, err, gpuarr.ErrReleased)
	assert.ErrorIs(t, unified.Prefetch(a, dev, dev.DefaultStream()), gpuarr.ErrReleased)

	func() {
		b, err := unified.Zeros[float32](gpuarr.Shape{1 << 10})
		require.NoError(t, err)
		_ = b
	}()
	deadline := time.Now().Add(10 * time.Second)
	for managedInUse(t, dev) != before && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	assert.Equal(t, before, managedInUse(t, dev), "an unreachable unified array is freed")
}

func TestPrefetchAndAdvise(t *testing.T) {
	dev := testDevice(t)
	s := newStream(t, dev)
	a, err := unified.FromSlice([]float32{1, 2, 3, 4}, gpuarr.Shape{4})
	require.NoError(t, err)
	defer a.Release()
	require.NoError(t, unified.Prefetch(a, dev, s))
	y, err := gpuarr.Eval[float32](gpuarr.Add[float32](a, a), gpuarr.On(s))
	require.NoError(t, err)
	defer y.Release()
	require.NoError(t, unified.Prefetch(a, unified.CPU, s))
	assert.Equal(t, []float32{2, 4, 6, 8}, must(y.ToSlice()))
	for _, adv := range []unified.Advice{unified.ReadMostly(), unified.PreferredLocation(dev), unified.AccessedBy(dev),
		unified.ReadMostly().Unset(), unified.PreferredLocation(dev).Unset(), unified.AccessedBy(dev).Unset()} {
		assert.NoError(t, unified.Advise(a, adv))
	}
	assert.ErrorIs(t, unified.Advise(a, unified.Advice{}), gpuarr.ErrArgument)
	assert.ErrorIs(t, unified.Advise(a, unified.AccessedBy(nil)), gpuarr.ErrArgument)
	assert.ErrorIs(t, unified.Prefetch(a, dev, nil), gpuarr.ErrArgument)
}

// Unified arrays mix with device arrays in expressions, reductions and
// copies, on one device and across two.
func TestMixedWithDeviceArrays(t *testing.T) {
	dev := testDevice(t)
	u, err := unified.FromSlice([]float32{1, 2, 3, 4}, gpuarr.Shape{2, 2})
	require.NoError(t, err)
	defer u.Release()
	d, err := gpuarr.FromSlice([]float32{10, 20, 30, 40}, gpuarr.Shape{2, 2})
	require.NoError(t, err)
	defer d.Release()
	sum, err := gpuarr.Eval[float32](gpuarr.Add[float32](u, d))
	require.NoError(t, err)
	defer sum.Release()
	assert.Equal(t, []float32{11, 22, 33, 44}, must(sum.ToSlice()))
	tot, err := gpuarr.Sum[float32](u)
	require.NoError(t, err)
	defer tot.Release()
	assert.Equal(t, []float32{10}, must(tot.ToSlice()))
	// A GPU write into the unified array, read back on the CPU.
	require.NoError(t, gpuarr.EvalInto(u, gpuarr.Mul[float32](d, gpuarr.Scalar[float32](2))))
	assert.Equal(t, []float32{20, 40, 60, 80}, cpuRead(t, u))

	devs, err := device.Devices()
	require.NoError(t, err)
	var other *device.Device
	for _, o := range devs {
		if o != dev && o.Backend() == dev.Backend() && o.Info().ManagedMemory {
			other = o
			break
		}
	}
	if other == nil {
		t.Skip("one device: the cross-device half needs two (GPUARR_HOST_DEVICES=2 on the host backend)")
	}
	u2, err := unified.FromSlice([]float32{1, 1, 1, 1}, gpuarr.Shape{2, 2}, unified.OnDevice(other))
	require.NoError(t, err)
	defer u2.Release()
	assert.Equal(t, other, u2.Device())
	d2, err := gpuarr.Zeros[float32](gpuarr.Shape{2, 2}, gpuarr.OnDevice(other))
	require.NoError(t, err)
	defer d2.Release()
	require.NoError(t, gpuarr.Copy(d2, u)) // across devices
	mixed, err := gpuarr.Eval[float32](gpuarr.Add[float32](u2, d2), gpuarr.OnDevice(other))
	require.NoError(t, err)
	defer mixed.Release()
	assert.Equal(t, []float32{21, 41, 61, 81}, must(mixed.ToSlice()))
	require.NoError(t, gpuarr.Copy(u, mixed)) // into the first device's unified array
	assert.Equal(t, []float32{21, 41, 61, 81}, cpuRead(t, u))
}

// The first CPU access after a GPU write to a large array prefetches its
// memory to the CPU on the writer's stream and makes one wait for both;
// a small array, a clean array and a second pass prefetch nothing.
func TestFirstAccessPrefetchesToCPU(t *testing.T) {
	dev := testDevice(t)
	if !dev.ConcurrentManagedAccess() {
		t.Skipf("%s has no concurrent managed access: the CPU access synchronizes the whole device instead", dev)
	}
	s := newStream(t, dev)
	const big, small = 1 << 14, 1 << 10 // 128 KiB and 8 KiB of float64
	a, err := unified.Zeros[float64](gpuarr.Shape{big}, unified.On(s))
	require.NoError(t, err)
	defer a.Release()
	b, err := unified.Zeros[float64](gpuarr.Shape{small}, unified.On(s))
	require.NoError(t, err)
	defer b.Release()

	sum := func(x *gpuarr.Array[float64]) float64 {
		vals, err := unified.Values(x)
		require.NoError(t, err)
		var t float64
		for v := range vals {
			t += v
		}
		return t
	}
	counts := func() (uint64, uint64) { return unified.CPUPrefetches(), arrayhook.HostSyncs() }

	for round := 1; round <= 3; round++ {
		v := float64(round)
		require.NoError(t, gpuarr.EvalInto(a, gpuarr.Scalar(v), gpuarr.On(s)))
		p0, s0 := counts()
		assert.Equal(t, v*big, sum(a), "round %d: the first pass reads the GPU's write", round)
		p1, s1 := counts()
		assert.Equal(t, p0+1, p1, "round %d: the first access after a GPU write prefetches", round)
		assert.Equal(t, s0+1, s1, "round %d: one wait covers the write and the prefetch", round)
		assert.Equal(t, v*big, sum(a))
		p2, s2 := counts()
		assert.Equal(t, [2]uint64{p1, s1}, [2]uint64{p2, s2}, "round %d: a second pass neither prefetches nor waits", round)
	}

	// A small array is faulted in: the prefetch would not pay.
	require.NoError(t, gpuarr.EvalInto(b, gpuarr.Scalar(2.0), gpuarr.On(s)))
	p0, _ := counts()
	assert.Equal(t, 2.0*small, sum(b))
	p1, _ := counts()
	assert.Equal(t, p0, p1, "an 8 KiB array is not prefetched")

	// A GPU read does not dirty the array: no prefetch.
	r, err := gpuarr.Sum[float64](a, gpuarr.On(s))
	require.NoError(t, err)
	defer r.Release()
	assert.Equal(t, 3.0*big, must(r.ToSlice())[0])
	p2, _ := counts()
	assert.Equal(t, 3.0*big, sum(a))
	p3, _ := counts()
	assert.Equal(t, p2, p3, "a read by the GPU leaves nothing to migrate")

	// A strided view of a large array prefetches the memory it spans and
	// reads the right elements; written from another stream this time.
	s2 := newStream(t, dev)
	require.NoError(t, gpuarr.EvalInto(a, gpuarr.Scalar(5.0), gpuarr.On(s2)))
	st, err := a.Step(0, big-1, -1, -2)
	require.NoError(t, err)
	defer st.Release()
	p4, _ := counts()
	assert.Equal(t, 5.0*big/2, sum(st))
	p5, _ := counts()
	assert.Equal(t, p4+1, p5, "a strided view of a large array is prefetched")
}
