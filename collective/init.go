package collective

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/gpuarr/gpuarr/device"
)

// EnvInitTimeout bounds how long Init waits for the job's other ranks: a
// Go duration such as 90s; the Timeout option overrides it.
const EnvInitTimeout = "GPUARR_INIT_TIMEOUT"

// DefaultInitTimeout is Init's wait for the other ranks when neither
// Timeout nor GPUARR_INIT_TIMEOUT says otherwise (PyTorch's default NCCL
// timeout).
const DefaultInitTimeout = 10 * time.Minute

// InitOption changes what Init reads or makes.
type InitOption interface{ isInitOption() }

type (
	envOption     func(string) (string, bool)
	deviceOption  struct{ dev *device.Device }
	timeoutOption time.Duration
)

func (envOption) isInitOption()     {}
func (deviceOption) isInitOption()  {}
func (timeoutOption) isInitOption() {}

// Env makes Init read this rank's environment from lookup instead of the
// process's (os.LookupEnv). Ranks that share a process pass one each:
// that is how the host backend runs a launched job's ranks (goroutines of
// one process over GPUARR_HOST_DEVICES devices), and how tests play a
// launcher.
func Env(lookup func(string) (string, bool)) InitOption { return envOption(lookup) }

// WithDevice puts this rank on dev instead of the device its local rank
// picks.
func WithDevice(dev *device.Device) InitOption { return deviceOption{dev} }

// Timeout bounds how long Init waits for the job's other ranks to arrive
// (> 0), instead of GPUARR_INIT_TIMEOUT or DefaultInitTimeout.
func Timeout(d time.Duration) InitOption { return timeoutOption(d) }

// Init makes this process's rank of the job its launcher started: it
// reads the launcher's environment (ReadJob: torchrun, Open MPI, MPICH or
// Intel MPI, Slurm's srun; none: a one-rank job), picks this rank's
// device, and makes the communicator through NCCL's own bootstrap at
// Job.Addr (every rank derives the same id from the address, rank 0
// listens there, the others connect), so gpuarr opens no connection of its
// own. It returns the communicator, with one local rank, and the job.
//
// The device is the LocalRank-th of the default backend's devices
// (device.Devices: on CUDA, the devices CUDA_VISIBLE_DEVICES leaves
// visible), or the only one when a single device is visible (a launcher
// that gives each rank its own GPU); without a launcher it is
// device.Default. WithDevice overrides it.
//
// Errors: an environment that is incomplete, malformed or contradictory
// is an *EnvError (ErrEnvironment) naming the variable, as is a local
// rank with no device. If the job's ranks have not all arrived within the
// timeout, Init aborts this rank and fails with an error matching
// ErrTimeout; on CUDA the process should then exit (NCCL's bootstrap root
// may stay listening at the address). A job of several ranks on the host
// backend needs every rank in this process (the Env option): host devices
// of different processes share no memory, so Init refuses a launched
// job's environment there with ErrNotSupported. On CUDA, a job of several
// ranks needs NCCL 2.18 or later.
//
// Cost: NCCL's initialization, twice (the rank is made nonblocking so the
// wait can time out, then split into a blocking communicator, whose
// collectives are as cheap as NewComm's); about a second on one node.
func Init(opts ...InitOption) (*Comm, Job, error) {
	const call = "collective.Init"
	lookup := os.LookupEnv
	inProcess := false
	var dev *device.Device
	timeout := time.Duration(0)
	for _, o := range opts {
		switch o := o.(type) {
		case envOption:
			if o != nil {
				lookup, inProcess = o, true
			}
		case deviceOption:
			dev = o.dev
		case timeoutOption:
			if o <= 0 {
				return nil, Job{}, fmt.Errorf("%s: Timeout(%v): want a positive duration: %w", call, time.Duration(o), ErrArgument)
			}
			timeout = time.Duration(o)
		}
	}
	job, err := ReadJob(lookup)
	if err != nil {
		return nil, Job{}, fmt.Errorf("%s: %w", call, err)
	}
	if timeout == 0 {
		if timeout, err = initTimeout(lookup); err != nil {
			return nil, Job{}, fmt.Errorf("%s: %w", call, err)
		}
	}
	if dev == nil {
		if dev, err = pickDevice(job, lookup); err != nil {
			return nil, Job{}, fmt.Errorf("%s: %w", call, err)
		}
	}
	if job.Size == 1 {
		c, err := NewComm([]*device.Device{dev})
		if err != nil {
			return nil, Job{}, fmt.Errorf("%s: %w", call, err)
		}
		return c, job, nil
	}
	if dev.Backend() == "host" && !inProcess {
		return nil, Job{}, fmt.Errorf("%s: rank %d of %d (%s): the host backend's ranks meet only inside one process, and %s started one process per rank "+
			"(host devices of different processes share no memory): run on CUDA, or run the ranks in one process "+
			"(NewComm over GPUARR_HOST_DEVICES host devices, or Init with the Env option per goroutine): %w",
			call, job.Rank, job.Size, job.Launcher.name(), job.Launcher.name(), ErrNotSupported)
	}
	r, err := device.JoinCommAt(dev, job.Addr, job.Size, job.Rank, timeout)
	if err != nil {
		return nil, Job{}, fmt.Errorf("%s: rank %d of %d (%s) at %s: %w", call, job.Rank, job.Size, job.Launcher.name(), job.Addr, err)
	}
	return &Comm{ranks: []*device.Communicator{r}, size: job.Size}, job, nil
}

func initTimeout(lookup func(string) (string, bool)) (time.Duration, error) {
	s, ok := lookup(EnvInitTimeout)
	if !ok || strings.TrimSpace(s) == "" {
		return DefaultInitTimeout, nil
	}
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil || d <= 0 {
		return 0, &device.ConfigError{Var: EnvInitTimeout, Value: s, Reason: "want a positive Go duration such as 90s or 10m"}
	}
	return d, nil
}

// pickDevice is the LocalRank-th visible device, or the only one; without
// a launcher, the default device.
func pickDevice(job Job, lookup func(string) (string, bool)) (*device.Device, error) {
	if job.Launcher == NoLauncher {
		return device.Default()
	}
	devs, err := device.Devices()
	if err != nil {
		return nil, err
	}
	n := len(devs)
	if n == 0 {
		return nil, fmt.Errorf("no devices: %w", device.ErrNoDevice)
	}
	if n == 1 {
		return devs[0], nil
	}
	visible := ""
	if v, ok := lookup("CUDA_VISIBLE_DEVICES"); ok && devs[0].Backend() == "cuda" {
		visible = fmt.Sprintf(" (CUDA_VISIBLE_DEVICES=%q)", v)
	}
	v := env{job.Launcher, lookup}
	switch {
	case job.LocalSize > n:
		// Every rank of this node fails at once, not only those above n.
		return nil, v.fail(job.localVar, "%d ranks on this node for %d visible %s devices%s: give each rank its own device",
			job.LocalSize, n, devs[0].Backend(), visible)
	case job.LocalRank >= n:
		return nil, v.fail(job.localVar, "local rank %d, but %d %s devices are visible%s: give each rank its own device",
			job.LocalRank, n, devs[0].Backend(), visible)
	}
	return devs[job.LocalRank], nil
}
