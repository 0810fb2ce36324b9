package gpuarr_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/internal/arrayhook"
)

// String shows the elements like NumPy's str: nested by rows, aligned,
// in row-major order (strided views included), after the type, shape and
// device; more than 1,000 elements are summarized, three at each end of
// each axis; long rows wrap at 75 characters.
func TestStringShowsValues(t *testing.T) {
	dev := testDevice(t)
	on := " on " + dev.String()
	x := must(gpuarr.FromSlice([]float32{1, 2, 3, 4.5, 5, 6}, gpuarr.Shape{2, 3}))
	defer x.Release()
	assert.Equal(t, "gpuarr.Array[float32][2 3]"+on+"\n[[  1   2   3]\n [4.5   5   6]]", x.String())
	assert.Equal(t, x.String(), fmt.Sprint(x))

	tr := must(x.Transpose())
	defer tr.Release()
	assert.Equal(t, "gpuarr.Array[float32][3 2]"+on+"\n[[  1 4.5]\n [  2   5]\n [  3   6]]", tr.String())

	data := make([]int64, 1010)
	for i := range data {
		data[i] = int64(i)
	}
	long := must(gpuarr.FromSlice(data, gpuarr.Shape{10, 101}))
	defer long.Release()
	assert.Equal(t, "gpuarr.Array[int64][10 101]"+on+"\n"+
		"[[   0    1    2 ...   98   99  100]\n"+
		" [ 101  102  103 ...  199  200  201]\n"+
		" [ 202  203  204 ...  300  301  302]\n"+
		" ...\n"+
		" [ 707  708  709 ...  805  806  807]\n"+
		" [ 808  809  810 ...  906  907  908]\n"+
		" [ 909  910  911 ... 1007 1008 1009]]", long.String())
	rev := must(long.Index(gpuarr.Colon, gpuarr.Every(-1))) // each row backwards
	defer rev.Release()
	assert.Equal(t, "gpuarr.Array[int64][10 101]"+on+"\n"+
		"[[ 100   99   98 ...    2    1    0]\n"+
		" [ 201  200  199 ...  103  102  101]\n"+
		" [ 302  301  300 ...  204  203  202]\n"+
		" ...\n"+
		" [ 807  806  805 ...  709  708  707]\n"+
		" [ 908  907  906 ...  810  809  808]\n"+
		" [1009 1008 1007 ...  911  910  909]]", rev.String())
	cube := must(must(long.Index(gpuarr.S(0, 2), gpuarr.S(0, 12))).Reshape(gpuarr.Shape{2, 3, 4}))
	defer cube.Release()
	assert.Equal(t, "gpuarr.Array[int64][2 3 4]"+on+"\n"+
		"[[[  0   1   2   3]\n  [  4   5   6   7]\n  [  8   9  10  11]]\n\n"+
		" [[101 102 103 104]\n  [105 106 107 108]\n  [109 110 111 112]]]", cube.String(), "a blank line between 2-D blocks")
	row := must(long.Index(gpuarr.At(0), gpuarr.To(30)))
	defer row.Release()
	assert.Equal(t, "gpuarr.Array[int64][30]"+on+"\n"+
		"[ 0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15 16 17 18 19 20 21 22 23\n"+
		" 24 25 26 27 28 29]", row.String(), "rows wrap at 75 characters")

	empty := must(gpuarr.Zeros[uint8](gpuarr.Shape{0, 3}))
	defer empty.Release()
	assert.Equal(t, "gpuarr.Array[uint8][0 3]"+on+" []", empty.String())
	noCols := must(gpuarr.Zeros[uint8](gpuarr.Shape{3, 0}))
	defer noCols.Release()
	assert.Equal(t, "gpuarr.Array[uint8][3 0]"+on+" []", noCols.String())
	vec := must(gpuarr.FromSlice([]int32{-1, 20, 3}, gpuarr.Shape{3}))
	defer vec.Release()
	assert.Equal(t, "gpuarr.Array[int32][3]"+on+" [-1 20  3]", vec.String())
	scalar := must(gpuarr.Full(gpuarr.Shape{}, int16(-7)))
	defer scalar.Release()
	assert.Equal(t, "gpuarr.Array[int16][]"+on+" -7", scalar.String())

	require.NoError(t, scalar.Release())
	assert.Equal(t, "gpuarr.Array[int16][]"+on+" (released)", scalar.String())
}

// A wide view (a column of a tall matrix) is read a run at a time, not
// over its whole span; the values are the same.
func TestStringOfAWideView(t *testing.T) {
	big := must(gpuarr.Arange[int32](0, 1<<17, 1))
	defer big.Release()
	col := must(must(big.Reshape(gpuarr.Shape{1 << 13, 16})).Index(gpuarr.Colon, gpuarr.At(5)))
	defer col.Release()
	assert.Equal(t, "gpuarr.Array[int32][8192] on "+testDevice(t).String()+" [     5     21     37 ... 131029 131045 131061]", col.String())
}

// String waits for the array's last writer (and only when one may be
// pending), so it shows what the GPU computed, as ToSlice would.
func TestStringWaitsForTheWriter(t *testing.T) {
	dev := testDevice(t)
	s := newStreams(t, dev, 1)[0]
	x := must(gpuarr.FromSlice([]float32{1, 2, 3}, gpuarr.Shape{3}))
	defer x.Release()
	for i := range 20 {
		y := must(gpuarr.Eval(gpuarr.Mul(x, gpuarr.Scalar(float32(i))), gpuarr.On(s)))
		w := len(fmt.Sprint(3 * i))
		want := fmt.Sprintf("gpuarr.Array[float32][3] on %s [%*v %*v %*v]", dev, w, float32(i), w, float32(2*i), w, float32(3*i))
		before := arrayhook.HostSyncs()
		assert.Equal(t, want, y.String())
		assert.LessOrEqual(t, arrayhook.HostSyncs()-before, uint64(1), "one wait at most: the writer's event")
		before = arrayhook.HostSyncs()
		assert.Equal(t, want, y.String())
		assert.Equal(t, before, arrayhook.HostSyncs(), "read once, the array is clean: no wait")
		require.NoError(t, y.Release())
	}
	_ = x.String()
	clean := arrayhook.HostSyncs()
	_ = x.String()
	_, _ = x.ToSlice()
	assert.Equal(t, clean, arrayhook.HostSyncs(), "a clean array costs no wait")
}

// String called while an operation holds the array (here inside Track's
// issue function) leaves the values out instead of deadlocking.
func TestStringInsideAnOperation(t *testing.T) {
	dev := testDevice(t)
	x := must(gpuarr.Zeros[int32](gpuarr.Shape{4}))
	defer x.Release()
	var got string
	err := arrayhook.Track("Test", []arrayhook.Use{arrayhook.Writes(x, dev.DefaultStream())}, func() error {
		got = x.String()
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, "gpuarr.Array[int32][4] on "+dev.String()+" (values not shown: an operation holds the array)", got)
	assert.Equal(t, "gpuarr.Array[int32][4] on "+dev.String()+" [0 0 0 0]", x.String())
}

// Producer and consumer goroutines on streams of their own: each String
// made after a write was issued shows that write, never an older or a
// partial one (GPUARR_HOST_CHECK=1 delays the host backend's stream work
// at random, so a missing wait shows).
func TestStringAfterWritesOnOtherStreams(t *testing.T) {
	dev := testDevice(t)
	const pairs, rounds, n = 2, 100, 1001 // summarized: three at each end
	var wg sync.WaitGroup
	for p := range pairs {
		ss := newStreams(t, dev, 1)
		x := must(gpuarr.Zeros[int32](gpuarr.Shape{n}))
		defer x.Release()
		written, read := make(chan int32), make(chan struct{})
		wg.Go(func() { // producer
			defer close(written)
			for k := range int32(rounds) {
				v := int32(p*rounds) + k + 1
				if err := gpuarr.EvalInto(x, gpuarr.Scalar(v), gpuarr.On(ss[0])); err != nil {
					t.Error(err)
					return
				}
				written <- v
				<-read
			}
		})
		wg.Go(func() { // consumer
			for v := range written {
				want := fmt.Sprintf("gpuarr.Array[int32][%d] on %s [%d %d %d ... %d %d %d]", n, dev, v, v, v, v, v, v) // one width
				if got := x.String(); got != want {
					t.Errorf("got %s, want %s", got, want)
				}
				read <- struct{}{}
			}
		})
	}
	wg.Wait()
}
