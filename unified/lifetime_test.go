package unified_test

import (
	"errors"
	"fmt"
	"iter"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/internal/cleanups"
	"github.com/gpuarr/gpuarr/unified"
)

// collect runs the GC twice and waits for the cleanups it queues and the
// frees they start: whatever is unreachable is freed on return.
func collect() {
	cleanups.Collect(time.Second)
	cleanups.Collect(time.Second)
}

const lifetimeN = 1 << 12 // elements: 16 KiB of float32, several pages

func iota32(n int) []float32 {
	d := make([]float32, n)
	for i := range d {
		d[i] = float32(i)
	}
	return d
}

// The makers below return a View or an iterator of a unified array that
// nothing else references once they return.

func viewOfDropped(t *testing.T) unified.View[float32] {
	a, err := unified.FromSlice(iota32(lifetimeN), gpuarr.Shape{lifetimeN})
	require.NoError(t, err)
	v, err := unified.Host(a)
	require.NoError(t, err)
	return v
}

func stridedViewOfDropped(t *testing.T) unified.View[float32] {
	a, err := unified.FromSlice(iota32(lifetimeN), gpuarr.Shape{lifetimeN / 4, 4})
	require.NoError(t, err)
	tr, err := a.Transpose()
	require.NoError(t, err)
	v, err := unified.Host(tr)
	require.NoError(t, err)
	return v
}

func valuesOfDropped(t *testing.T) iter.Seq[float32] {
	a, err := unified.FromSlice(iota32(lifetimeN), gpuarr.Shape{lifetimeN})
	require.NoError(t, err)
	vals, err := unified.Values(a)
	require.NoError(t, err)
	return vals
}

func allOfDropped(t *testing.T) iter.Seq2[int, float32] {
	a, err := unified.FromSlice(iota32(lifetimeN), gpuarr.Shape{lifetimeN})
	require.NoError(t, err)
	all, err := unified.All(a)
	require.NoError(t, err)
	return all
}

// A View and the iterators keep their array alive while they are used,
// however the program drops its own references: loops whose only hold on
// the array is the View (or the iterator) collect garbage halfway and
// still read the right elements, and the array's memory is still
// allocated there. (Before, an iterator over a contiguous array held the
// array only through a field the loop no longer used, so the collection
// freed the memory under the loop: a fault, or garbage.)
func TestViewsKeepTheirArrayAlive(t *testing.T) {
	dev := testDevice(t)
	collect()
	base := managedInUse(t, dev)
	const bytes = lifetimeN * 4
	check := func(t *testing.T, i int, x float32, wrong *int) {
		if i == lifetimeN/2 {
			collect()
			assert.GreaterOrEqual(t, managedInUse(t, dev), base+bytes, "the array is still allocated mid-loop")
		}
		if x != float32(i) {
			*wrong++
		}
	}
	t.Run("At", func(t *testing.T) {
		v, wrong := viewOfDropped(t), 0
		for i := range lifetimeN {
			check(t, i, v.At(i), &wrong)
		}
		assert.Zero(t, wrong)
	})
	t.Run("Set", func(t *testing.T) {
		v, wrong := viewOfDropped(t), 0
		for i := range lifetimeN {
			if i == lifetimeN/2 {
				check(t, i, float32(i), &wrong)
			}
			v.Set(i, -float32(i))
		}
		for i := range lifetimeN {
			if v.At(i) != -float32(i) {
				wrong++
			}
		}
		assert.Zero(t, wrong)
	})
	t.Run("strided At", func(t *testing.T) {
		v, wrong := stridedViewOfDropped(t), 0
		for i := range lifetimeN {
			r, c := i/(lifetimeN/4), i%(lifetimeN/4)
			check(t, i, v.At(i)-float32(c*4+r)+float32(i), &wrong)
		}
		assert.Zero(t, wrong)
	})
	t.Run("Values", func(t *testing.T) {
		i, wrong := 0, 0
		for x := range valuesOfDropped(t) {
			check(t, i, x, &wrong)
			i++
		}
		assert.Equal(t, lifetimeN, i)
		assert.Zero(t, wrong)
	})
	t.Run("All", func(t *testing.T) {
		n, wrong := 0, 0
		for i, x := range allOfDropped(t) {
			check(t, i, x, &wrong)
			n++
		}
		assert.Equal(t, lifetimeN, n)
		assert.Zero(t, wrong)
	})
	t.Run("strided Values", func(t *testing.T) {
		v, i, wrong := stridedViewOfDropped(t), 0, 0
		for x := range v.Values() {
			r, c := i/(lifetimeN/4), i%(lifetimeN/4)
			check(t, i, x-float32(c*4+r)+float32(i), &wrong)
			i++
		}
		assert.Zero(t, wrong)
	})
	t.Run("Borrow", func(t *testing.T) {
		v, wrong := viewOfDropped(t), 0
		require.NoError(t, v.Borrow(func(s []float32) error {
			for i, x := range s {
				check(t, i, x, &wrong)
			}
			return nil
		}))
		assert.Zero(t, wrong)
	})
	collect()
	assert.Equal(t, base, managedInUse(t, dev), "after the loops the arrays are collected")
}

// releasedPanic runs f and returns the error it panicked with, or nil.
func releasedPanic(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(error)
			if !ok {
				e = fmt.Errorf("panic: %v", r)
			}
			err = e
		}
	}()
	f()
	return nil
}

// A View of a released array neither reads nor writes the memory the
// array gave back: every element access panics with an error matching
// gpuarr.ErrReleased (Borrow returns one), on contiguous and strided views,
// also when the loop body releases the array. The case: Set after
// Release, then a new unified allocation, which must not hold the value.
func TestViewOfReleasedArray(t *testing.T) {
	testDevice(t)
	make2 := func(t *testing.T, strided bool) (*gpuarr.Array[float32], unified.View[float32]) {
		a, err := unified.FromSlice(iota32(lifetimeN), gpuarr.Shape{lifetimeN / 4, 4})
		require.NoError(t, err)
		x := a
		if strided {
			x, err = a.Transpose()
			require.NoError(t, err)
			require.NoError(t, a.Release())
		}
		v, err := unified.Host(x)
		require.NoError(t, err)
		require.Equal(t, !strided, v.Contiguous())
		return x, v
	}
	accesses := []struct {
		name string
		f    func(v unified.View[float32])
	}{
		{"At", func(v unified.View[float32]) { _ = v.At(3) }},
		{"Set", func(v unified.View[float32]) { v.Set(3, 42) }},
		{"AtIndex", func(v unified.View[float32]) { _ = v.AtIndex(0, 1) }},
		{"SetIndex", func(v unified.View[float32]) { v.SetIndex(42, 0, 1) }},
		{"Values", func(v unified.View[float32]) {
			for range v.Values() {
			}
		}},
		{"All", func(v unified.View[float32]) {
			for range v.All() {
			}
		}},
		{"UnsafeSlice", func(v unified.View[float32]) { _ = v.UnsafeSlice() }},
	}
	for _, strided := range []bool{false, true} {
		for _, acc := range accesses {
			t.Run(fmt.Sprintf("%s strided=%v", acc.name, strided), func(t *testing.T) {
				a, v := make2(t, strided)
				require.NoError(t, a.Release())
				err := releasedPanic(func() { acc.f(v) })
				require.Error(t, err, "an access after Release panics")
				assert.ErrorIs(t, err, gpuarr.ErrReleased)
				assert.Contains(t, err.Error(), "View."+acc.name)
			})
		}
		t.Run(fmt.Sprintf("Borrow strided=%v", strided), func(t *testing.T) {
			a, v := make2(t, strided)
			require.NoError(t, a.Release())
			called := false
			err := v.Borrow(func([]float32) error { called = true; return nil })
			assert.ErrorIs(t, err, gpuarr.ErrReleased)
			assert.False(t, called)
		})
		t.Run(fmt.Sprintf("released by the loop strided=%v", strided), func(t *testing.T) {
			a, v := make2(t, strided)
			n := 0
			err := releasedPanic(func() {
				for range v.Values() {
					if n++; n == 5 {
						require.NoError(t, a.Release())
					}
				}
			})
			assert.ErrorIs(t, err, gpuarr.ErrReleased)
			assert.Equal(t, 5, n, "the step after the Release panics")
		})
	}

	t.Run("Set then a new allocation", func(t *testing.T) {
		for trial := range 20 {
			a, err := unified.Zeros[float32](gpuarr.Shape{lifetimeN})
			require.NoError(t, err)
			v, err := unified.Host(a)
			require.NoError(t, err)
			require.NoError(t, a.Release())
			err = releasedPanic(func() {
				for i := range lifetimeN {
					v.Set(i, 7)
				}
			})
			require.ErrorIs(t, err, gpuarr.ErrReleased)
			b, err := unified.Empty[float32](gpuarr.Shape{lifetimeN})
			require.NoError(t, err)
			require.NoError(t, gpuarr.EvalInto(b, gpuarr.Scalar[float32](1)))
			got := cpuRead(t, b)
			for i, x := range got {
				if x != 1 {
					t.Fatalf("trial %d: element %d of a new array is %v: a released array's View wrote it", trial, i, x)
				}
			}
			require.NoError(t, b.Release())
		}
	})

	t.Run("another handle's Release", func(t *testing.T) {
		a, err := unified.FromSlice(iota32(8), gpuarr.Shape{2, 4})
		require.NoError(t, err)
		defer a.Release()
		row, err := a.Slice(1, 2)
		require.NoError(t, err)
		v, err := unified.Host(a)
		require.NoError(t, err)
		require.NoError(t, row.Release())
		assert.Equal(t, float32(5), v.At(5), "a View is tied to its own array's Release, not to another view's")
	})
}

// Child processes for the checking-mode fault tests: the parent sets
// staleCaseEnv to a case of staleCases and runs TestStaleSliceChild.
const staleCaseEnv = "GPUARR_UNIFIED_STALE_CASE"

// touchStale reads through a slice whose memory is gone. It is the use
// site the fault must name.
//
//go:noinline
func touchStale(s []float32) float32 { return s[len(s)/2] }

// staleCases each make a raw slice outlive its owner, then make new
// allocations of the same size (which, without the quarantine, soon reuse
// the addresses: the stale slice then reads their data), and return the
// stale slice.
var staleCases = map[string]func(t *testing.T) []float32{
	"dropped array": func(t *testing.T) []float32 {
		dev := testDevice(t)
		before := managedInUse(t, dev)
		s := unsafeSliceOfDropped(t)
		for deadline := time.Now().Add(10 * time.Second); managedInUse(t, dev) != before; {
			require.True(t, time.Now().Before(deadline), "the dropped array was not collected")
			collect()
		}
		reuse(t)
		return s
	},
	"released array": func(t *testing.T) []float32 {
		a, err := unified.FromSlice(iota32(lifetimeN), gpuarr.Shape{lifetimeN})
		require.NoError(t, err)
		s, err := unified.UnsafeSlice(a)
		require.NoError(t, err)
		require.NoError(t, a.Release())
		reuse(t)
		return s
	},
	"slice kept from Borrow": func(t *testing.T) []float32 {
		a, err := unified.FromSlice(iota32(lifetimeN), gpuarr.Shape{lifetimeN})
		require.NoError(t, err)
		var lent []float32
		require.NoError(t, unified.Borrow(a, func(s []float32) error { lent = s; return nil }))
		require.NoError(t, a.Release())
		reuse(t)
		return lent
	},
	"released pinned array": func(t *testing.T) []float32 {
		p, err := unified.NewPinned[float32](lifetimeN, nil)
		require.NoError(t, err)
		s, err := p.UnsafeSlice()
		require.NoError(t, err)
		require.NoError(t, p.Release())
		for range 16 {
			q, err := unified.NewPinned[float32](lifetimeN, nil)
			require.NoError(t, err)
			require.NoError(t, q.Borrow(func(s []float32) error { s[lifetimeN/2] = -1; return nil }))
			kept = append(kept, q)
		}
		return s
	},
}

// kept holds what the children allocate after the free.
var kept []any

// reuse allocates unified arrays of lifetimeN elements holding -1.
func reuse(t *testing.T) {
	for range 16 {
		a, err := unified.Empty[float32](gpuarr.Shape{lifetimeN})
		require.NoError(t, err)
		require.NoError(t, unified.Borrow(a, func(s []float32) error { s[lifetimeN/2] = -1; return nil }))
		kept = append(kept, a)
	}
}

func unsafeSliceOfDropped(t *testing.T) []float32 {
	a, err := unified.FromSlice(iota32(lifetimeN), gpuarr.Shape{lifetimeN})
	require.NoError(t, err)
	s, err := unified.UnsafeSlice(a)
	require.NoError(t, err)
	return s
}

// In the host backend's checking mode a raw slice used after its owner is
// gone (collected, released, or a Borrow's slice kept past the call)
// faults at the use, deterministically: the freed memory is quarantined,
// inaccessible and not reused. Each case runs in a child process in
// checking mode on the host backend, which must die of the fault with
// touchStale as the faulting frame. (Before, the memory was unmapped and
// soon reused: the read returned another array's data.)
func TestStaleSliceFaultsInCheckingMode(t *testing.T) {
	dev := testDevice(t)
	if os.Getenv(staleCaseEnv) != "" {
		t.Skip("in the child")
	}
	if dev.Backend() != "host" {
		t.Skipf("the fault is the host backend's checking mode; the default device is %s", dev)
	}
	for name := range staleCases {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestStaleSliceChild$", "-test.v")
			cmd.Env = append(os.Environ(), staleCaseEnv+"="+name, "GPUARR_HOST_CHECK=1", device.EnvDevice+"=host")
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			require.True(t, errors.As(err, &exit), "the child must die of the fault; it said:\n%s", out)
			text := string(out)
			assert.NotContains(t, text, "read a stale slice without a fault")
			assert.Contains(t, text, "unexpected fault address")
			assert.Contains(t, text, "code=0x2", "an access to quarantined (PROT_NONE) memory, not to an unmapped or reused range")
			_, after, ok := strings.Cut(text, "runtime.sigpanic()")
			require.True(t, ok, "no fault traceback:\n%s", text)
			lines := strings.Split(strings.TrimSpace(after), "\n")
			require.GreaterOrEqual(t, len(lines), 3)
			assert.Contains(t, lines[1], "unified_test.touchStale(", "the faulting frame is the use site:\n%s", text)
		})
	}
}

func TestStaleSliceChild(t *testing.T) {
	name := os.Getenv(staleCaseEnv)
	if name == "" {
		t.Skip("run by TestStaleSliceFaultsInCheckingMode")
	}
	s := staleCases[name](t)
	x := touchStale(s)
	t.Errorf("read a stale slice without a fault: %v", x)
}

// Goroutines sharing one array, each with Views of its own, read it at
// once (the race detector checks the View's lease is written before any
// of them reads through it), then one releases it after the others are
// done and their Views panic.
func TestViewsFromSeveralGoroutines(t *testing.T) {
	testDevice(t)
	for trial := range 50 {
		a, err := unified.FromSlice(iota32(256), gpuarr.Shape{16, 16})
		require.NoError(t, err)
		tr, err := a.Transpose()
		require.NoError(t, err)
		var wg sync.WaitGroup
		sums := make([]float32, 4)
		views := make([]unified.View[float32], 4)
		for g := range sums {
			wg.Add(1)
			go func() {
				defer wg.Done()
				x := a
				if g%2 == 1 {
					x = tr
				}
				v, err := unified.Host(x)
				if err != nil {
					return
				}
				views[g] = v
				for i := range v.Len() {
					sums[g] += v.At(i)
				}
			}()
		}
		wg.Wait()
		assert.Equal(t, []float32{255 * 128, 255 * 128, 255 * 128, 255 * 128}, sums, "trial %d", trial)
		require.NoError(t, a.Release())
		require.NoError(t, tr.Release())
		for _, v := range views {
			assert.ErrorIs(t, releasedPanic(func() { v.At(0) }), gpuarr.ErrReleased)
		}
	}
}
