package collective

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
)

// Launcher names what started this process.
type Launcher string

// The launchers ReadJob knows, in the order it looks for them: the first
// whose variables are set wins (torchrun started by srun, or mpirun inside
// a Slurm allocation, both see Slurm's variables too).
const (
	// NoLauncher: started directly, a one-rank job.
	NoLauncher Launcher = ""
	// Torchrun: torchrun, or anything that sets PyTorch's env:// variables
	// (RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR,
	// MASTER_PORT).
	Torchrun Launcher = "torchrun"
	// OpenMPI: Open MPI's mpirun or mpiexec (OMPI_COMM_WORLD_RANK, _SIZE,
	// _LOCAL_RANK, _LOCAL_SIZE).
	OpenMPI Launcher = "openmpi"
	// MPICH: the Hydra mpiexec of MPICH and Intel MPI (PMI_RANK, PMI_SIZE,
	// MPI_LOCALRANKID, MPI_LOCALNRANKS).
	MPICH Launcher = "mpich"
	// Slurm: the tasks of an srun job step (SLURM_PROCID,
	// SLURM_STEP_NUM_TASKS, SLURM_LOCALID, SLURM_STEP_NODELIST).
	Slurm Launcher = "slurm"
)

// name is the launcher as its users write it.
func (l Launcher) name() string {
	switch l {
	case OpenMPI:
		return "Open MPI"
	case MPICH:
		return "MPICH"
	case Slurm:
		return "Slurm"
	}
	return string(l)
}

// Default meeting ports, where the environment names none: MPI launchers
// get PyTorch's default MASTER_PORT; a Slurm step derives one from its
// job and step ids (slurmPortBase + (31·job + step) mod slurmPorts).
const (
	defaultMasterPort = 29500
	slurmPortBase     = 20000
	slurmPorts        = 20000
)

// Job is this process's place in a job, as its launcher's environment
// describes it: one rank per process.
type Job struct {
	Launcher Launcher
	// Rank is this process's rank among Size.
	Rank, Size int
	// LocalRank is its rank among the job's ranks on this node, which
	// picks its device; LocalSize is how many there are (0 where the
	// launcher does not say).
	LocalRank, LocalSize int
	// Addr is the host:port where the ranks meet (NCCL's bootstrap root,
	// which rank 0 starts): NCCL_COMM_ID when set, else MASTER_ADDR and
	// MASTER_PORT+1 (MASTER_PORT is the launcher's or PyTorch's own
	// rendezvous, taken while torchrun runs). Empty for a one-rank job.
	Addr string

	localVar string // the variable LocalRank came from
}

// ErrEnvironment is matched by every *EnvError.
var ErrEnvironment = errors.New("unusable launcher environment")

// EnvError is a launcher environment Init cannot use: a variable that is
// missing, malformed or contradicts another. Var names the variable to
// fix.
type EnvError struct {
	Launcher Launcher
	Var      string
	Value    string // "" when unset
	Set      bool
	Reason   string
}

func (e *EnvError) Error() string {
	who := "the environment"
	if e.Launcher != NoLauncher {
		who = e.Launcher.name() + "'s environment"
	}
	if !e.Set {
		return fmt.Sprintf("%s: %s is not set: %s", who, e.Var, e.Reason)
	}
	return fmt.Sprintf("%s: %s=%q: %s", who, e.Var, e.Value, e.Reason)
}

// Is makes EnvError match ErrEnvironment.
func (e *EnvError) Is(target error) bool { return target == ErrEnvironment }

// env reads one launcher's variables, remembering which.
type env struct {
	launcher Launcher
	lookup   func(string) (string, bool)
}

func (v env) fail(name, reason string, args ...any) *EnvError {
	val, set := v.lookup(name)
	return &EnvError{Launcher: v.launcher, Var: name, Value: val, Set: set, Reason: fmt.Sprintf(reason, args...)}
}

func (v env) has(name string) bool {
	_, ok := v.lookup(name)
	return ok
}

// count reads a non-negative integer; a missing variable is an error
// saying which others come with it.
func (v env) count(name, together string) (int, error) {
	s, ok := v.lookup(name)
	if !ok {
		return 0, v.fail(name, "%s sets %s together", v.launcher.name(), together)
	}
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 0 {
		return 0, v.fail(name, "want a non-negative integer")
	}
	return n, nil
}

// optCount is count for a variable that may be absent (-1 then).
func (v env) optCount(name string) (int, error) {
	if !v.has(name) {
		return -1, nil
	}
	return v.count(name, name)
}

// ReadJob reads this process's job from the environment lookup gives
// (os.LookupEnv for the process's own). The launchers, looked for in this
// order:
//
//   - torchrun: RANK, WORLD_SIZE, LOCAL_RANK and LOCAL_WORLD_SIZE (may be
//     absent); MASTER_ADDR and MASTER_PORT are required.
//   - Open MPI's mpirun: OMPI_COMM_WORLD_RANK, _SIZE, _LOCAL_RANK and
//     _LOCAL_SIZE; MASTER_ADDR defaults to 127.0.0.1 when every rank is on
//     this node (it is required otherwise), MASTER_PORT to 29500.
//   - the mpiexec of MPICH and Intel MPI (Hydra): PMI_RANK, PMI_SIZE,
//     MPI_LOCALRANKID and MPI_LOCALNRANKS; defaults as for Open MPI.
//   - Slurm's srun: SLURM_PROCID, SLURM_STEP_NUM_TASKS and SLURM_LOCALID
//     (SLURM_NODEID with SLURM_STEP_TASKS_PER_NODE give the local size);
//     MASTER_ADDR defaults to the first host of SLURM_STEP_NODELIST,
//     MASTER_PORT to 20000 + (31·SLURM_JOB_ID + SLURM_STEP_ID) mod 20000.
//   - none: a one-rank job on device.Default.
//
// The first launcher in that order whose variables are set wins (torchrun
// under srun, mpirun inside a Slurm allocation). Slurm's variables count
// only in the tasks of an srun job step (SLURM_STEP_NUM_TASKS set): a
// program that a batch script runs itself is a one-rank job, whatever the
// allocation's size. The ranks meet at MASTER_PORT+1 (torchrun's store
// listens at MASTER_PORT), or at NCCL_COMM_ID when set: rank 0 listens
// there as NCCL's bootstrap root and the others connect (Job.Addr).
//
// A variable missing from a launcher's set, a malformed value, or values
// that contradict each other (a rank not below the size, a local rank not
// below the local size, a local size above the size, RANK and WORLD_SIZE
// that disagree with an MPI launcher's when torchrun did not set them)
// fail with an *EnvError naming the variable. The host backend runs a
// job's ranks in one process only (the Env option gives each goroutine
// its rank's environment) and Init refuses a launched job's processes
// there with ErrNotSupported.
func ReadJob(lookup func(string) (string, bool)) (Job, error) {
	torch := env{Torchrun, lookup}
	ompi := env{OpenMPI, lookup}
	hydra := env{MPICH, lookup}
	slurm := env{Slurm, lookup}
	var (
		j   Job
		err error
	)
	switch {
	case torch.has("RANK") || torch.has("WORLD_SIZE") || torch.has("LOCAL_RANK") || torch.has("LOCAL_WORLD_SIZE"):
		j, err = readRanks(torch, "RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE")
		if err == nil && !torch.has("TORCHELASTIC_RUN_ID") {
			err = agreeWithMPI(j, torch, ompi, hydra)
		}
	case ompi.has("OMPI_COMM_WORLD_RANK") || ompi.has("OMPI_COMM_WORLD_SIZE") || ompi.has("OMPI_COMM_WORLD_LOCAL_RANK") || ompi.has("OMPI_COMM_WORLD_LOCAL_SIZE"):
		j, err = readRanks(ompi, "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE")
	case hydra.has("MPI_LOCALRANKID") || hydra.has("MPI_LOCALNRANKS") ||
		(!slurm.has("SLURM_STEP_NUM_TASKS") && (hydra.has("PMI_RANK") || hydra.has("PMI_SIZE"))):
		j, err = readRanks(hydra, "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "MPI_LOCALNRANKS")
	case slurm.has("SLURM_STEP_NUM_TASKS"):
		j, err = readSlurm(slurm)
	default:
		return Job{Size: 1, LocalSize: 1}, nil
	}
	if err != nil {
		return Job{}, err
	}
	if j.Size > 1 {
		if j.Addr, err = meetingAddr(j, lookup); err != nil {
			return Job{}, err
		}
	}
	return j, nil
}

// readRanks reads a launcher's rank, size, local rank and (optional)
// local size variables and checks them against each other.
func readRanks(v env, rankVar, sizeVar, localVar, localSizeVar string) (Job, error) {
	together := strings.Join([]string{rankVar, sizeVar, localVar}, ", ")
	j := Job{Launcher: v.launcher, localVar: localVar}
	var err error
	if j.Rank, err = v.count(rankVar, together); err != nil {
		return Job{}, err
	}
	if j.Size, err = v.count(sizeVar, together); err != nil {
		return Job{}, err
	}
	if j.LocalRank, err = v.count(localVar, together); err != nil {
		return Job{}, err
	}
	if j.LocalSize, err = v.optCount(localSizeVar); err != nil {
		return Job{}, err
	}
	if j.Size < 1 {
		return Job{}, v.fail(sizeVar, "a job has at least one rank")
	}
	if j.Rank >= j.Size {
		return Job{}, v.fail(rankVar, "rank %d of %s=%d ranks: want a rank below the size", j.Rank, sizeVar, j.Size)
	}
	switch {
	case j.LocalSize < 0:
		j.LocalSize = 0
		if j.LocalRank >= j.Size {
			return Job{}, v.fail(localVar, "local rank %d of %s=%d ranks in all", j.LocalRank, sizeVar, j.Size)
		}
	case j.LocalSize < 1 || j.LocalSize > j.Size:
		return Job{}, v.fail(localSizeVar, "%d ranks on this node of %s=%d: want 1 to %d", j.LocalSize, sizeVar, j.Size, j.Size)
	case j.LocalRank >= j.LocalSize:
		return Job{}, v.fail(localVar, "local rank %d of %s=%d ranks on this node", j.LocalRank, localSizeVar, j.LocalSize)
	}
	return j, nil
}

// agreeWithMPI refuses RANK and WORLD_SIZE set by hand (not by torchrun)
// that disagree with the MPI launcher that did start the process: one of
// them is stale, and which one wins would be a guess.
func agreeWithMPI(j Job, torch, ompi, hydra env) error {
	for _, m := range []struct {
		v              env
		rankVar, sizeV string
	}{{ompi, "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"}, {hydra, "PMI_RANK", "PMI_SIZE"}} {
		for _, p := range []struct {
			mine  string
			mv    int
			their string
		}{{"RANK", j.Rank, m.rankVar}, {"WORLD_SIZE", j.Size, m.sizeV}} {
			s, ok := m.v.lookup(p.their)
			if !ok {
				continue
			}
			if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil && n != p.mv {
				return torch.fail(p.mine, "%s=%q says otherwise, and torchrun did not start this process (no TORCHELASTIC_RUN_ID): unset the stale variable",
					p.their, s)
			}
		}
	}
	return nil
}

// readSlurm reads an srun task's variables.
func readSlurm(v env) (Job, error) {
	const together = "SLURM_PROCID, SLURM_STEP_NUM_TASKS, SLURM_LOCALID"
	j := Job{Launcher: Slurm, localVar: "SLURM_LOCALID"}
	var err error
	if j.Rank, err = v.count("SLURM_PROCID", together); err != nil {
		return Job{}, err
	}
	if j.Size, err = v.count("SLURM_STEP_NUM_TASKS", together); err != nil {
		return Job{}, err
	}
	if j.LocalRank, err = v.count("SLURM_LOCALID", together); err != nil {
		return Job{}, err
	}
	if j.Size < 1 {
		return Job{}, v.fail("SLURM_STEP_NUM_TASKS", "a job step has at least one task")
	}
	if j.Rank >= j.Size {
		return Job{}, v.fail("SLURM_PROCID", "task %d of SLURM_STEP_NUM_TASKS=%d", j.Rank, j.Size)
	}
	if j.LocalRank >= j.Size {
		return Job{}, v.fail("SLURM_LOCALID", "local task %d of SLURM_STEP_NUM_TASKS=%d in all", j.LocalRank, j.Size)
	}
	// This node's task count: SLURM_STEP_TASKS_PER_NODE ("2(x3),1") at
	// SLURM_NODEID, where both are set.
	per, ok := v.lookup("SLURM_STEP_TASKS_PER_NODE")
	if node, err := v.optCount("SLURM_NODEID"); err != nil {
		return Job{}, err
	} else if ok && node >= 0 {
		counts, perr := tasksPerNode(per)
		switch {
		case perr != nil:
			return Job{}, v.fail("SLURM_STEP_TASKS_PER_NODE", "%v", perr)
		case node >= len(counts):
			return Job{}, v.fail("SLURM_NODEID", "node %d of the %d that SLURM_STEP_TASKS_PER_NODE=%q lists", node, len(counts), per)
		}
		j.LocalSize = counts[node]
		if j.LocalRank >= j.LocalSize {
			return Job{}, v.fail("SLURM_LOCALID", "local task %d of %d on node %d (SLURM_STEP_TASKS_PER_NODE=%q)", j.LocalRank, j.LocalSize, node, per)
		}
	}
	return j, nil
}

// tasksPerNode expands Slurm's compressed per-node task counts: "2(x3),1"
// is 2, 2, 2, 1.
func tasksPerNode(s string) ([]int, error) {
	var out []int
	for _, item := range strings.Split(strings.TrimSpace(s), ",") {
		count, reps := item, "1"
		if i := strings.Index(item, "(x"); i >= 0 && strings.HasSuffix(item, ")") {
			count, reps = item[:i], item[i+2:len(item)-1]
		}
		c, err1 := strconv.Atoi(count)
		r, err2 := strconv.Atoi(reps)
		if err1 != nil || err2 != nil || c < 1 || r < 1 {
			return nil, fmt.Errorf("%q is not a task count such as 2 or 2(x3)", item)
		}
		for range r {
			out = append(out, c)
		}
	}
	return out, nil
}

// meetingAddr is where a job of several ranks meets: NCCL_COMM_ID as
// given, else MASTER_ADDR:MASTER_PORT+1, with the launcher's defaults for
// what is unset.
func meetingAddr(j Job, lookup func(string) (string, bool)) (string, error) {
	v := env{j.Launcher, lookup}
	if id, ok := lookup("NCCL_COMM_ID"); ok {
		host, port, err := net.SplitHostPort(strings.TrimSpace(id))
		if err != nil || host == "" {
			return "", v.fail("NCCL_COMM_ID", "want host:port, [ipv6]:port or hostname:port")
		}
		if p, err := strconv.Atoi(port); err != nil || p < 1 || p > 65535 {
			return "", v.fail("NCCL_COMM_ID", "port %q: want 1 to 65535", port)
		}
		return net.JoinHostPort(host, port), nil
	}
	host, ok := lookup("MASTER_ADDR")
	host = strings.TrimSpace(host)
	if ok && host == "" {
		return "", v.fail("MASTER_ADDR", "empty: want rank 0's host name or address")
	}
	if !ok {
		var err error
		if host, err = defaultHost(j, v); err != nil {
			return "", err
		}
	}
	port := 0
	if s, ok := lookup("MASTER_PORT"); ok {
		p, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || p < 1 || p > 65534 {
			return "", v.fail("MASTER_PORT", "want a port from 1 to 65534 (the ranks meet at MASTER_PORT+1)")
		}
		port = p
	} else {
		var err error
		if port, err = defaultPort(j, v); err != nil {
			return "", err
		}
	}
	return net.JoinHostPort(host, strconv.Itoa(port+1)), nil
}

// defaultHost is MASTER_ADDR where the environment leaves it out.
func defaultHost(j Job, v env) (string, error) {
	switch j.Launcher {
	case OpenMPI, MPICH:
		if j.LocalSize == j.Size {
			return "127.0.0.1", nil // every rank on this node
		}
		return "", v.fail("MASTER_ADDR", "the %d ranks span several nodes (%d on this one): set it to rank 0's host and pass it to every rank (mpirun -x MASTER_ADDR, mpiexec -genv MASTER_ADDR …)",
			j.Size, j.LocalSize)
	case Slurm:
		for _, name := range []string{"SLURM_STEP_NODELIST", "SLURM_JOB_NODELIST", "SLURM_NODELIST"} {
			if list, ok := v.lookup(name); ok {
				first, err := firstHost(list)
				if err != nil {
					return "", v.fail(name, "%v", err)
				}
				return first, nil
			}
		}
		return "", v.fail("MASTER_ADDR", "nor is SLURM_STEP_NODELIST, to take rank 0's node from: set MASTER_ADDR to rank 0's host")
	}
	return "", v.fail("MASTER_ADDR", "%s sets it for a job of %d ranks: want rank 0's host name or address", j.Launcher.name(), j.Size)
}

// defaultPort is MASTER_PORT where the environment leaves it out.
func defaultPort(j Job, v env) (int, error) {
	switch j.Launcher {
	case OpenMPI, MPICH:
		return defaultMasterPort, nil
	case Slurm:
		id, ok := v.lookup("SLURM_JOB_ID")
		job, err := strconv.Atoi(strings.TrimSpace(id))
		if !ok || err != nil || job < 0 {
			return 0, v.fail("MASTER_PORT", "nor is a numeric SLURM_JOB_ID (%q) to derive one from: set MASTER_PORT", id)
		}
		step := 0
		if s, ok := v.lookup("SLURM_STEP_ID"); ok {
			step, _ = strconv.Atoi(strings.TrimSpace(s)) // a non-numeric step (batch, extern) counts as 0
		}
		return slurmPortBase + (31*job+max(step, 0))%slurmPorts, nil
	}
	return 0, v.fail("MASTER_PORT", "%s sets it for a job of %d ranks: want the port of rank 0's rendezvous", j.Launcher.name(), j.Size)
}
