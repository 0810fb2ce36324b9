package gpuarr_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
)

// Every element type round-trips through every constructor.
func TestConstructorsEveryType(t *testing.T) {
	t.Run("int8", constructors[int8])
	t.Run("int16", constructors[int16])
	t.Run("int32", constructors[int32])
	t.Run("int64", constructors[int64])
	t.Run("uint8", constructors[uint8])
	t.Run("uint16", constructors[uint16])
	t.Run("uint32", constructors[uint32])
	t.Run("uint64", constructors[uint64])
	t.Run("float32", constructors[float32])
	t.Run("float64", constructors[float64])
	type celsius float32 // types defined on numbers are elements too
	t.Run("celsius", constructors[celsius])
}

func constructors[T gpuarr.Numeric](t *testing.T) {
	sh := gpuarr.Shape{3, 5}
	filled := func(v T) []T {
		out := make([]T, sh.Len())
		for i := range out {
			out[i] = v
		}
		return out
	}
	z := must(gpuarr.Zeros[T](sh))
	defer z.Release()
	assert.Equal(t, filled(0), values(t, z))
	o := must(gpuarr.Ones[T](sh))
	defer o.Release()
	assert.Equal(t, filled(1), values(t, o))
	f := must(gpuarr.Full(sh, T(100)))
	defer f.Release()
	assert.Equal(t, filled(100), values(t, f))

	data := make([]T, sh.Len())
	for i := range data {
		data[i] = T(i + 1)
	}
	a := must(gpuarr.FromSlice(data, sh))
	defer a.Release()
	assert.Equal(t, data, values(t, a))
	assert.Equal(t, sh, a.Shape())
	assert.Equal(t, 15, a.Len())
	assert.Equal(t, []int{5, 1}, a.Strides())

	slices.Reverse(data)
	require.NoError(t, a.CopyFromHost(data))
	got := make([]T, len(data))
	require.NoError(t, a.CopyToHost(got))
	assert.Equal(t, data, got)

	e := must(gpuarr.Empty[T](sh))
	require.NoError(t, gpuarr.Copy(e, a))
	assert.Equal(t, data, values(t, e))
	require.NoError(t, e.Release())
}

// Fills whose element is not one repeated byte or 32-bit word take the
// upload-and-double path; sizes around the chunk check its edges.
func TestFullPatterns(t *testing.T) {
	check := func(name string, run func(t *testing.T)) { t.Run(name, run) }
	check("float64 large", func(t *testing.T) { fullCase(t, 100_003, 1.5) })
	check("int64 negative", func(t *testing.T) { fullCase[int64](t, 8193, -2) })
	check("int16 odd", func(t *testing.T) { fullCase[int16](t, 3, 0x0102) })
	check("int16 even", func(t *testing.T) { fullCase[int16](t, 4, 0x0102) })
	check("uint8", func(t *testing.T) { fullCase[uint8](t, 7, 0xab) })
	check("float32", func(t *testing.T) { fullCase[float32](t, 1<<16+1, -0.25) })
	check("int64 chunk multiple", func(t *testing.T) { fullCase[int64](t, 3*8192, math.MaxInt64-1) })
}

func fullCase[T gpuarr.Numeric](t *testing.T, n int, v T) {
	a := must(gpuarr.Full(gpuarr.Shape{n}, v))
	defer a.Release()
	got := values(t, a)
	require.Len(t, got, n)
	for i, g := range got {
		if g != v {
			t.Fatalf("element %d is %v, want %v", i, g, v)
		}
	}
}

func TestShapeErrors(t *testing.T) {
	cases := []struct {
		name  string
		run   func() error
		is    error
		words []string
	}{
		{"negative", func() error { _, err := gpuarr.Empty[float32](gpuarr.Shape{2, -1, 3}); return err },
			gpuarr.ErrShape, []string{"[2 -1 3]", "negative", "axis 1", "Empty"}},
		{"count overflow", func() error { _, err := gpuarr.Zeros[float32](gpuarr.Shape{1 << 40, 1 << 40}); return err },
			gpuarr.ErrShape, []string{"[1099511627776 1099511627776]", "overflows"}},
		{"count overflow at 2^63", func() error { _, err := gpuarr.Empty[int8](gpuarr.Shape{1 << 31, 1 << 32}); return err },
			gpuarr.ErrShape, []string{"[2147483648 4294967296]", "overflows"}},
		{"just below 2^63 elements: no overflow, no memory", func() error {
			_, err := gpuarr.Empty[int8](gpuarr.Shape{1 << 31, 1<<32 - 1})
			return err
		}, device.ErrOutOfMemory, []string{"Empty"}},
		{"bytes overflow", func() error { _, err := gpuarr.Ones[float64](gpuarr.Shape{math.MaxInt / 4}); return err },
			gpuarr.ErrShape, []string{"overflows", "8 bytes"}},
		{"slice length", func() error { _, err := gpuarr.FromSlice(make([]int32, 5), gpuarr.Shape{2, 3}); return err },
			gpuarr.ErrShape, []string{"[2 3]", "6 elements", "has 5"}},
		{"out of memory", func() error { _, err := gpuarr.Empty[float32](gpuarr.Shape{1 << 40}); return err },
			device.ErrOutOfMemory, []string{"Empty"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.run()
			require.ErrorIs(t, err, c.is)
			for _, w := range c.words {
				assert.Contains(t, err.Error(), w)
			}
		})
	}

	a := must(gpuarr.Zeros[float32](gpuarr.Shape{2, 3}))
	defer a.Release()
	b := must(gpuarr.Zeros[float32](gpuarr.Shape{3, 2}))
	defer b.Release()
	err := gpuarr.Copy(a, b)
	require.ErrorIs(t, err, gpuarr.ErrShape)
	assert.Contains(t, err.Error(), "float32[2 3]")
	assert.Contains(t, err.Error(), "float32[3 2]")
	assert.ErrorIs(t, a.CopyToHost(make([]float32, 5)), gpuarr.ErrShape)
	assert.ErrorIs(t, a.CopyFromHost(make([]float32, 7)), gpuarr.ErrShape)
}

func TestViews(t *testing.T) {
	data := make([]int32, 12)
	for i := range data {
		data[i] = int32(i)
	}
	x := must(gpuarr.FromSlice(data, gpuarr.Shape{3, 4}))
	defer x.Release()

	r := must(x.Reshape(gpuarr.Shape{2, -1}))
	defer r.Release()
	assert.Equal(t, gpuarr.Shape{2, 6}, r.Shape())
	assert.Equal(t, data, values(t, r))
	_, err := x.Reshape(gpuarr.Shape{5, -1})
	assert.ErrorIs(t, err, gpuarr.ErrShape)
	_, err = x.Reshape(gpuarr.Shape{2, 2})
	assert.ErrorIs(t, err, gpuarr.ErrShape)
	assert.Contains(t, err.Error(), "int32[3 4]")
	_, err = x.Reshape(gpuarr.Shape{-1, -1})
	assert.ErrorIs(t, err, gpuarr.ErrShape)

	rows := must(x.Slice(1, 3))
	defer rows.Release()
	assert.Equal(t, gpuarr.Shape{2, 4}, rows.Shape())
	assert.Equal(t, data[4:], values(t, rows))
	require.NoError(t, rows.CopyFromHost(make([]int32, 8)))
	want := append(slices.Clone(data[:4]), make([]int32, 8)...)
	assert.Equal(t, want, values(t, x), "a view writes its parent's memory")

	empty := must(x.Slice(3, 3))
	defer empty.Release()
	assert.Equal(t, gpuarr.Shape{0, 4}, empty.Shape())
	assert.Empty(t, values(t, empty))
	// Python's rules: negative bounds count from the end, bounds past
	// the ends clip, and an empty range is no error.
	for _, c := range []struct {
		i, j int
		want []int32
	}{{-1, 3, want[8:]}, {-2, -1, want[4:8]}, {2, 1, []int32{}}, {0, 4, want}, {-9, 1, want[:4]}} {
		v := must(x.Slice(c.i, c.j))
		assert.Equal(t, c.want, values(t, v), "Slice(%d, %d)", c.i, c.j)
		require.NoError(t, v.Release())
	}

	scalar := must(gpuarr.Full(gpuarr.Shape{}, float64(2.5)))
	defer scalar.Release()
	assert.Equal(t, 0, scalar.Rank())
	assert.Equal(t, []float64{2.5}, values(t, scalar))
	_, err = scalar.Slice(0, 1)
	assert.ErrorIs(t, err, gpuarr.ErrShape)

	// Copying between overlapping views of one buffer is refused; a view
	// onto itself is a no-op.
	a, b := must(x.Slice(0, 2)), must(x.Slice(1, 3))
	defer a.Release()
	defer b.Release()
	assert.ErrorIs(t, gpuarr.Copy(a, b), gpuarr.ErrArgument)
	require.NoError(t, gpuarr.Copy(a, a))

	assert.True(t, strings.HasPrefix(x.String(), "gpuarr.Array[int32][3 4] on "), x.String())
}

func TestZeroSize(t *testing.T) {
	z := must(gpuarr.Zeros[float32](gpuarr.Shape{0, 3}))
	defer z.Release()
	assert.Equal(t, 0, z.Len())
	assert.Empty(t, values(t, z))
	require.NoError(t, z.CopyFromHost(nil))
	c := must(gpuarr.Clone(z))
	require.NoError(t, c.Release())
	f := must(gpuarr.FromSlice([]int8{}, gpuarr.Shape{0}))
	require.NoError(t, f.Release())
}

func TestLaunchArguments(t *testing.T) {
	dev := testDevice(t)
	ks := kernels(t, dev)
	x := must(gpuarr.Zeros[uint32](gpuarr.Shape{8}))
	defer x.Release()

	err := gpuarr.Launch(ks.Fill, linear(8), x, uint32(1), uint64(8))
	require.ErrorIs(t, err, gpuarr.ErrArgument)
	assert.Contains(t, err.Error(), "wrap it in gpuarr.In, Out or InOut")
	err = gpuarr.Launch(ks.Fill, linear(8), gpuarr.Out[uint32](nil), uint32(1), uint64(8))
	assert.ErrorIs(t, err, gpuarr.ErrArgument)
	assert.ErrorIs(t, gpuarr.Launch(nil, linear(8)), gpuarr.ErrArgument)
	err = gpuarr.Launch(ks.Fill, linear(8), gpuarr.Out(x), uint32(1), uint64(8), gpuarr.On(nil))
	assert.ErrorIs(t, err, gpuarr.ErrArgument)

	// Options may sit anywhere among the arguments; they are not passed.
	s := newStreams(t, dev, 1)[0]
	require.NoError(t, gpuarr.Launch(ks.Fill, linear(8), gpuarr.On(s), gpuarr.Out(x), uint32(3), uint64(8)))
	assert.Equal(t, []uint32{3, 3, 3, 3, 3, 3, 3, 3}, values(t, x))
	require.NoError(t, gpuarr.Launch(ks.Fill, linear(8), gpuarr.Out(x), uint32(4), uint64(8), gpuarr.OnDevice(dev)))
	assert.Equal(t, []uint32{4, 4, 4, 4, 4, 4, 4, 4}, values(t, x))

	// A driver-level refusal comes back wrapped.
	err = gpuarr.Launch(ks.Fill, linear(8), gpuarr.Out(x), 1, uint64(8))
	assert.ErrorIs(t, err, device.ErrInvalidValue, "plain int is refused by the device layer")
}
