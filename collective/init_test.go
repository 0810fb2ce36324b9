package collective_test

import (
	"errors"
	"fmt"
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

// masterPort is a MASTER_PORT whose successor, where Init's ranks meet,
// was free a moment ago (on CUDA, NCCL's root listens there).
func masterPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())
	return strconv.Itoa(p - 1)
}

// rankEnv is what torchrun gives rank r of n, all on this node.
func rankEnv(r, n int, port string) vars {
	return vars{
		"RANK": strconv.Itoa(r), "WORLD_SIZE": strconv.Itoa(n), "LOCAL_RANK": strconv.Itoa(r), "LOCAL_WORLD_SIZE": strconv.Itoa(n),
		"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": port, "TORCHELASTIC_RUN_ID": "test",
	}
}

// initRanks starts n ranks as goroutines of this process, each with its
// own environment, and returns their communicators once all have
// returned (the errors too).
func initRanks(t *testing.T, n int, opts func(r int) []collective.InitOption) ([]*collective.Comm, []collective.Job, []error) {
	t.Helper()
	port := masterPort(t)
	comms := make([]*collective.Comm, n)
	jobs := make([]collective.Job, n)
	errs := make([]error, n)
	done := make(chan struct{})
	for r := range n {
		go func() {
			defer func() { done <- struct{}{} }()
			o := append([]collective.InitOption{collective.Env(rankEnv(r, n, port).lookup), collective.Timeout(2 * time.Minute)}, opts(r)...)
			comms[r], jobs[r], errs[r] = collective.Init(o...)
		}()
	}
	for range n {
		<-done
	}
	t.Cleanup(func() {
		for _, c := range comms {
			if c != nil {
				_ = c.Close()
			}
		}
	})
	return comms, jobs, errs
}

// skipWithoutRendezvous skips on CUDA when NCCL is missing or older than
// the rendezvous needs.
func skipWithoutRendezvous(t *testing.T, err error) {
	t.Helper()
	if err != nil && errors.Is(err, collective.ErrNotSupported) {
		t.Skipf("no NCCL rendezvous here: %v", err)
	}
}

// Without a launcher, Init makes a one-rank job on the default device.
func TestInitWithoutLauncher(t *testing.T) {
	c, job, err := collective.Init(collective.Env(vars{"PATH": "/bin"}.lookup))
	if err != nil && errorsIsNotSupported(err) {
		t.Skipf("no NCCL: %v", err)
	}
	require.NoError(t, err)
	defer c.Close()
	def, err := device.Default()
	require.NoError(t, err)
	require.Equal(t, collective.Job{Size: 1, LocalSize: 1}, job)
	require.Equal(t, 1, c.Size())
	require.Equal(t, 1, c.Local())
	require.Equal(t, 0, c.Rank(0))
	require.Same(t, def, c.Device(0))
	a := fromHost(t, []float32{1, 2}, def)
	require.NoError(t, collective.AllReduce(c, []*gpuarr.Array[float32]{a}, nil, collective.Sum))
	require.Equal(t, []float32{1, 2}, toHost(t, a))
}

// A launched job's ranks, each a goroutine with its own environment,
// meet at MASTER_ADDR:MASTER_PORT+1 and all-reduce. On the host backend
// three ranks share the devices there are; on CUDA each rank takes the
// device its LOCAL_RANK names.
func TestInitRanksMeet(t *testing.T) {
	devs := allDevices(t)
	n := len(devs)
	var opts func(r int) []collective.InitOption
	if devs[0].Backend() == "host" {
		n = 3
		opts = func(r int) []collective.InitOption {
			return []collective.InitOption{collective.WithDevice(devs[r%len(devs)])}
		}
	} else {
		if n < 2 {
			t.Skip("needs two GPUs: NCCL puts one rank on a GPU")
		}
		opts = func(int) []collective.InitOption { return nil }
	}
	comms, jobs, errs := initRanks(t, n, opts)
	for r := range n {
		skipWithoutRendezvous(t, errs[r])
		require.NoError(t, errs[r], "rank %d", r)
	}
	errc := make(chan error, n)
	arrs := make([]*gpuarr.Array[int64], n)
	for r := range n {
		c := comms[r]
		require.Equal(t, n, c.Size())
		require.Equal(t, 1, c.Local())
		require.Equal(t, r, c.Rank(0))
		require.Equal(t, collective.Torchrun, jobs[r].Launcher)
		require.Equal(t, r, jobs[r].Rank)
		if devs[0].Backend() == "cuda" {
			require.Same(t, devs[r], c.Device(0), "rank %d takes the device of its LOCAL_RANK", r)
		}
		arrs[r] = fromHost(t, []int64{int64(r + 1), 10}, c.Device(0))
	}
	// Each rank issues from its own goroutine, as separate processes
	// would, on its own stream (ranks that share a host device must not
	// queue behind each other).
	streams := make([]*device.Stream, n)
	for r := range n {
		streams[r] = testutil.Stream(t, comms[r].Device(0))
	}
	for r := range n {
		go func() {
			errc <- collective.AllReduce(comms[r], arrs[r:r+1], nil, collective.Sum, collective.On(streams[r]))
		}()
	}
	for range n {
		require.NoError(t, <-errc)
	}
	for r := range n {
		require.Equal(t, []int64{int64(n * (n + 1) / 2), int64(10 * n)}, toHost(t, arrs[r]), "rank %d", r)
	}
}

// A rank whose peers never arrive gives up after the timeout, with an
// error matching ErrTimeout, instead of hanging: rank 0 (which starts
// NCCL's bootstrap root and waits for the others) and a rank that cannot
// reach rank 0. The host backend names the missing ranks.
func TestInitRankNeverArrives(t *testing.T) {
	dev := allDevices(t)[0]
	wait := 3 * time.Second // NCCL retries its connections for a while before the timeout can stop it
	if dev.Backend() == "host" {
		wait = 200 * time.Millisecond
	}
	for _, rank := range []int{0, 2} {
		t.Run(fmt.Sprintf("rank %d alone", rank), func(t *testing.T) {
			env := rankEnv(rank, 3, masterPort(t))
			_, _, err := collective.Init(collective.Env(env.lookup), collective.WithDevice(dev), collective.Timeout(wait))
			skipWithoutRendezvous(t, err)
			require.ErrorIs(t, err, collective.ErrTimeout)
			require.ErrorContains(t, err, fmt.Sprintf("rank %d of 3", rank))
			require.ErrorContains(t, err, "127.0.0.1:"+strconv.Itoa(atoi(t, env["MASTER_PORT"])+1))
			if dev.Backend() == "host" {
				missing := map[int]string{0: "ranks [1 2] never arrived", 2: "ranks [0 1] never arrived"}[rank]
				require.ErrorContains(t, err, missing)
			}
		})
	}
}

func atoi(t *testing.T, s string) int {
	n, err := strconv.Atoi(s)
	require.NoError(t, err)
	return n
}

// The host backend's ranks meet only within a process: a launched job's
// own environment (one process per rank) is refused at once, saying why;
// a one-rank launch works.
func TestInitHostRefusesProcesses(t *testing.T) {
	dev := allDevices(t)[0]
	if dev.Backend() != "host" {
		t.Skip("on CUDA the ranks are processes: multinode.sh runs them")
	}
	for k, v := range rankEnv(1, 2, "29500") {
		t.Setenv(k, v)
	}
	_, _, err := collective.Init()
	require.ErrorIs(t, err, collective.ErrNotSupported)
	require.ErrorContains(t, err, "rank 1 of 2")
	require.ErrorContains(t, err, "one process")

	for k, v := range rankEnv(0, 1, "29500") {
		t.Setenv(k, v)
	}
	c, job, err := collective.Init()
	require.NoError(t, err)
	require.Equal(t, collective.Torchrun, job.Launcher)
	require.Equal(t, 1, c.Size())
	require.NoError(t, c.Close())
}

func TestInitErrors(t *testing.T) {
	devs := allDevices(t)
	t.Run("environment", func(t *testing.T) {
		_, _, err := collective.Init(collective.Env(torchrunEnv.without("LOCAL_RANK").lookup))
		require.ErrorIs(t, err, collective.ErrEnvironment)
		var ee *collective.EnvError
		require.True(t, errors.As(err, &ee))
		require.Equal(t, "LOCAL_RANK", ee.Var)
		require.ErrorContains(t, err, "collective.Init")
	})
	t.Run("timeout variable", func(t *testing.T) {
		_, _, err := collective.Init(collective.Env(rankEnv(0, 2, "29500").with(vars{collective.EnvInitTimeout: "soon"}).lookup))
		require.ErrorIs(t, err, device.ErrBadConfig)
		require.ErrorContains(t, err, collective.EnvInitTimeout)
	})
	t.Run("timeout option", func(t *testing.T) {
		_, _, err := collective.Init(collective.Env(vars{}.lookup), collective.Timeout(0))
		require.ErrorIs(t, err, collective.ErrArgument)
		require.ErrorContains(t, err, "Timeout")
	})
	t.Run("more local ranks than devices", func(t *testing.T) {
		if len(devs) < 2 {
			t.Skip("with one device visible, every rank takes it")
		}
		n := len(devs) + 1
		env := rankEnv(0, n, "29500")
		_, _, err := collective.Init(collective.Env(env.lookup))
		require.ErrorIs(t, err, collective.ErrEnvironment)
		var ee *collective.EnvError
		require.True(t, errors.As(err, &ee))
		require.Equal(t, "LOCAL_RANK", ee.Var)
		require.ErrorContains(t, err, fmt.Sprintf("%d ranks on this node for %d visible", n, len(devs)))
	})
	t.Run("ranks that disagree on the size", func(t *testing.T) {
		if devs[0].Backend() != "host" {
			t.Skip("NCCL's bootstrap reports this as a mismatch on rank 0's side only")
		}
		port := masterPort(t)
		errc := make(chan error, 2)
		for r, n := range []int{2, 3} {
			go func() {
				c, _, err := collective.Init(collective.Env(rankEnv(r, n, port).lookup), collective.WithDevice(devs[0]), collective.Timeout(time.Second))
				if c != nil {
					_ = c.Close()
				}
				errc <- err
			}()
		}
		e1, e2 := <-errc, <-errc
		require.ErrorContains(t, errors.Join(e1, e2), "an earlier rank at 127.0.0.1")
	})
}

// Rounds of ranks meeting at one address, some rounds missing a rank: a
// failed meeting leaves nothing behind, so the next round at the same
// address meets (host backend; run it with GPUARR_HOST_CHECK=1 and -race).
func TestInitStressOneAddress(t *testing.T) {
	devs := allDevices(t)
	if devs[0].Backend() != "host" {
		t.Skip("NCCL's bootstrap root may stay at an address after a failed meeting: each CUDA test takes a new port")
	}
	rounds := 40
	if testing.Short() {
		rounds = 10
	}
	const n = 4
	port := masterPort(t)
	for round := range rounds {
		missing := -1
		if round%3 == 2 {
			missing = round % n
		}
		errs := make(chan error, n)
		comms := make(chan *collective.Comm, n)
		for r := range n {
			if r == missing {
				continue
			}
			go func() {
				wait := time.Minute
				if missing >= 0 {
					wait = 50 * time.Millisecond
				}
				c, _, err := collective.Init(collective.Env(rankEnv(r, n, port).lookup), collective.WithDevice(devs[r%len(devs)]), collective.Timeout(wait))
				errs <- err
				comms <- c
			}()
		}
		arrived := n
		if missing >= 0 {
			arrived--
		}
		for range arrived {
			err := <-errs
			if c := <-comms; c != nil {
				require.NoError(t, c.Close())
			}
			if missing >= 0 {
				require.ErrorIs(t, err, collective.ErrTimeout, "round %d", round)
				require.ErrorContains(t, err, fmt.Sprintf("ranks [%d] never arrived", missing))
			} else {
				require.NoError(t, err, "round %d", round)
			}
		}
	}
}
