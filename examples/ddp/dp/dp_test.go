package dp

import (
	"errors"
	"fmt"
	"math"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/collective"
	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/internal/testutil"
)

// testConfig is small, with buckets of about two layers so that a step
// all-reduces several buckets while the backward pass goes on.
func testConfig() Config {
	return Config{Widths: []int{12, 32, 32, 24, 4}, BucketBytes: 32 * 32 * 8, LR: 0.05, Seed: 7}
}

const (
	testGlobal  = 48 // rows per step, all ranks together
	testBatches = 3
)

func TestLayout(t *testing.T) {
	// Layers of 4, 6, 8, 2 elements; 8-byte elements; buckets of ≥ 64 bytes.
	l := newLayout([]int{4, 6, 8, 2}, 8, 64)
	require.Len(t, l.buckets, 2)
	require.Equal(t, []int{3, 2}, l.buckets[0].layers, "the last layers first")
	require.Equal(t, 10, l.buckets[0].elems)
	require.Equal(t, []int{1, 0}, l.buckets[1].layers)
	require.Equal(t, []int{1, 1, 0, 0}, l.of)
	require.Equal(t, []int{6, 0, 2, 0}, l.offset)
	require.True(t, l.last(2))
	require.False(t, l.last(3))
	require.True(t, l.last(0))
	// A bucket below the limit takes the next layer, however large; a
	// limit of one byte makes one bucket per layer.
	l = newLayout([]int{100, 3, 3}, 4, 20)
	require.Equal(t, [][]int{{2, 1}, {0}}, [][]int{l.buckets[0].layers, l.buckets[1].layers})
	l = newLayout([]int{5, 5, 5}, 4, 1)
	require.Len(t, l.buckets, 3)
}

// run trains steps steps over comm's local ranks (devs) and returns the
// loss after each step (every step's when lossEachStep, else only the
// last) and local rank 0's final weights.
func run(t *testing.T, comm *collective.Comm, cfg Config, steps int, lossEachStep bool) ([]float64, [][]float64) {
	t.Helper()
	n := comm.Size()
	rows := testGlobal / n
	tr, err := NewTrainer[float64](comm, cfg, rows)
	require.NoError(t, err)
	defer tr.Release()
	data := make([]*Data[float64], comm.Local())
	for k := range data {
		data[k], err = NewData[float64](comm.Device(k), cfg.Widths[0], cfg.Widths[len(cfg.Widths)-1], testGlobal, testBatches, 3)
		require.NoError(t, err)
		defer data[k].Release()
	}
	var losses []float64
	x := make([]*gpuarr.Array[float64], comm.Local())
	y := make([]*gpuarr.Array[float64], comm.Local())
	for s := range steps {
		for k := range x {
			x[k], y[k], err = data[k].Shard(s, comm.Rank(k), n)
			require.NoError(t, err)
		}
		require.NoError(t, tr.Step(x, y))
		// Released at once: tracking keeps them until the step read them.
		for k := range x {
			require.NoError(t, x[k].Release())
			require.NoError(t, y[k].Release())
		}
		if lossEachStep || s == steps-1 {
			l, err := tr.Loss()
			require.NoError(t, err)
			losses = append(losses, l)
		}
	}
	var ws [][]float64
	for i := range len(cfg.Widths) - 1 {
		w, err := tr.Weights(0, i)
		require.NoError(t, err)
		ws = append(ws, w)
	}
	return losses, ws
}

func oneDevice(t *testing.T, dev *device.Device) *collective.Comm {
	t.Helper()
	c, err := collective.NewComm([]*device.Device{dev})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func near(t *testing.T, want, got []float64, what string) {
	t.Helper()
	require.Len(t, got, len(want), what)
	for i := range want {
		require.InDelta(t, want[i], got[i], 1e-9*math.Max(1, math.Abs(want[i])), "%s [%d]", what, i)
	}
}

// Training on every device of the process (NewComm) gives the losses and
// weights of training on one device with the whole batch, and the loss
// falls.
func TestInProcessMatchesOneDevice(t *testing.T) {
	devs := testutil.Devices(t)
	if testGlobal%len(devs) != 0 {
		t.Skipf("%d devices do not split a batch of %d", len(devs), testGlobal)
	}
	cfg := testConfig()
	comm, err := collective.NewComm(devs)
	require.NoError(t, err)
	defer comm.Close()
	losses, ws := run(t, comm, cfg, 12, true)
	ref, refW := run(t, oneDevice(t, devs[0]), cfg, 12, true)
	near(t, ref, losses, "loss")
	for i := range ws {
		near(t, refW[i], ws[i], fmt.Sprintf("layer %d weights", i))
	}
	require.Less(t, losses[len(losses)-1], losses[0]*0.9, "the loss falls: %v", losses)
}

// Steps queued back to back with no host read between them: only
// tracking orders the compute and communication streams (the checking
// mode's random delays make a missing wait a wrong answer).
func TestStepsWithoutHostSync(t *testing.T) {
	devs := testutil.Devices(t)
	if testGlobal%len(devs) != 0 {
		t.Skipf("%d devices do not split a batch of %d", len(devs), testGlobal)
	}
	cfg := testConfig()
	cfg.BucketBytes = 1 // one bucket per layer: the most all-reduces in flight
	comm, err := collective.NewComm(devs)
	require.NoError(t, err)
	defer comm.Close()
	losses, ws := run(t, comm, cfg, 20, false)
	ref, refW := run(t, oneDevice(t, devs[0]), cfg, 20, true)
	near(t, ref[len(ref)-1:], losses, "final loss")
	for i := range ws {
		near(t, refW[i], ws[i], fmt.Sprintf("layer %d weights", i))
	}
}

// Ranks made by collective.Init from a launcher's environment, one
// goroutine each (as separate processes would be), train to the same
// losses as one device.
func TestLaunchedRanksMatchOneDevice(t *testing.T) {
	devs := testutil.Devices(t)
	n := 3
	pick := func(r int) []collective.InitOption {
		return []collective.InitOption{collective.WithDevice(devs[r%len(devs)])}
	}
	if devs[0].Backend() != "host" {
		if n = len(devs); n < 2 {
			t.Skip("needs two GPUs: NCCL puts one rank on a GPU")
		}
		pick = func(int) []collective.InitOption { return nil }
	}
	if testGlobal%n != 0 {
		t.Skipf("%d ranks do not split a batch of %d", n, testGlobal)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port - 1) // the ranks meet at MASTER_PORT+1
	require.NoError(t, l.Close())
	cfg := testConfig()
	const steps = 8
	losses := make([][]float64, n)
	errs := make(chan error, n)
	for r := range n {
		go func() {
			errs <- func() (err error) {
				env := map[string]string{"RANK": strconv.Itoa(r), "WORLD_SIZE": strconv.Itoa(n), "LOCAL_RANK": strconv.Itoa(r),
					"LOCAL_WORLD_SIZE": strconv.Itoa(n), "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": port}
				lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
				comm, _, err := collective.Init(append(pick(r), collective.Env(lookup), collective.Timeout(2*time.Minute))...)
				if err != nil {
					return err
				}
				defer comm.Close()
				tr, err := NewTrainer[float64](comm, cfg, testGlobal/n)
				if err != nil {
					return err
				}
				defer tr.Release()
				data, err := NewData[float64](comm.Device(0), cfg.Widths[0], cfg.Widths[len(cfg.Widths)-1], testGlobal, testBatches, 3)
				if err != nil {
					return err
				}
				defer data.Release()
				for s := range steps {
					x, y, err := data.Shard(s, r, n)
					if err != nil {
						return err
					}
					err = tr.Step([]*gpuarr.Array[float64]{x}, []*gpuarr.Array[float64]{y})
					_, _ = x.Release(), y.Release()
					if err != nil {
						return err
					}
					l, err := tr.Loss()
					if err != nil {
						return err
					}
					losses[r] = append(losses[r], l)
				}
				return nil
			}()
		}()
	}
	var all error
	for range n {
		all = errors.Join(all, <-errs)
	}
	if errors.Is(all, collective.ErrNotSupported) {
		t.Skipf("no NCCL rendezvous here: %v", all)
	}
	require.NoError(t, all)
	ref, _ := run(t, oneDevice(t, devs[0]), cfg, steps, true)
	for r := range n {
		near(t, ref, losses[r], fmt.Sprintf("rank %d's loss", r))
	}
}

func TestTrainerErrors(t *testing.T) {
	dev := testutil.Device(t)
	comm := oneDevice(t, dev)
	_, err := NewTrainer[float32](comm, Config{Widths: []int{3}}, 4)
	require.ErrorContains(t, err, "widths")
	_, err = NewTrainer[float32](comm, Config{Widths: []int{3, 0, 2}}, 4)
	require.ErrorContains(t, err, "positive")
	_, err = NewTrainer[float32](comm, Config{Widths: []int{3, 2}}, 0)
	require.ErrorContains(t, err, "rows")
	tr, err := NewTrainer[float32](comm, Config{Widths: []int{3, 2}, LR: 0.1}, 4)
	require.NoError(t, err)
	_, err = tr.Loss()
	require.ErrorContains(t, err, "no step")
	x, err := gpuarr.Zeros[float32](gpuarr.Shape{4, 3}, gpuarr.OnDevice(dev))
	require.NoError(t, err)
	defer x.Release()
	bad, err := gpuarr.Zeros[float32](gpuarr.Shape{4, 5}, gpuarr.OnDevice(dev))
	require.NoError(t, err)
	defer bad.Release()
	require.ErrorContains(t, tr.Step([]*gpuarr.Array[float32]{x}, []*gpuarr.Array[float32]{bad}), "shape [4 5], want [4 2]")
	require.ErrorContains(t, tr.Step([]*gpuarr.Array[float32]{x}, nil), "local ranks")
	tr.Release()
	tr.Release()
	require.ErrorContains(t, tr.Step([]*gpuarr.Array[float32]{x}, []*gpuarr.Array[float32]{x}), "released")
}
