package collective_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/collective"
)

// vars is an environment for ReadJob and Init's Env option.
type vars map[string]string

func (v vars) lookup(k string) (string, bool) {
	s, ok := v[k]
	return s, ok
}

// with is v plus more (more wins).
func (v vars) with(more vars) vars {
	out := vars{}
	for k, x := range v {
		out[k] = x
	}
	for k, x := range more {
		out[k] = x
	}
	return out
}

// without is v less the named variables.
func (v vars) without(names ...string) vars {
	out := v.with(nil)
	for _, k := range names {
		delete(out, k)
	}
	return out
}

// torchrun's worker 3 of 4: node 1 of two simulated nodes of two.
var torchrunEnv = vars{
	"RANK": "3", "WORLD_SIZE": "4", "LOCAL_RANK": "1", "LOCAL_WORLD_SIZE": "2",
	"GROUP_RANK": "1", "MASTER_ADDR": "10.0.0.1", "MASTER_PORT": "29500", "TORCHELASTIC_RUN_ID": "none",
}

// mpirun -np 4 on one node, rank 2.
var openMPIEnv = vars{
	"OMPI_COMM_WORLD_RANK": "2", "OMPI_COMM_WORLD_SIZE": "4",
	"OMPI_COMM_WORLD_LOCAL_RANK": "2", "OMPI_COMM_WORLD_LOCAL_SIZE": "4",
}

// MPICH's mpiexec -n 2, rank 1.
var hydraEnv = vars{"PMI_RANK": "1", "PMI_SIZE": "2", "MPI_LOCALRANKID": "1", "MPI_LOCALNRANKS": "2"}

// srun -N4 --ntasks-per-node=2: task 5 on the third node.
var slurmEnv = vars{
	"SLURM_PROCID": "5", "SLURM_STEP_NUM_TASKS": "8", "SLURM_NTASKS": "8", "SLURM_LOCALID": "1",
	"SLURM_NODEID": "2", "SLURM_STEP_TASKS_PER_NODE": "2(x4)", "SLURM_STEP_NODELIST": "gpu[07-10]",
	"SLURM_JOB_NODELIST": "gpu[07-10]", "SLURM_JOB_ID": "1234", "SLURM_STEP_ID": "0",
}

func TestReadJob(t *testing.T) {
	slurmPort := 20000 + (31*1234)%20000 + 1
	cases := []struct {
		name string
		env  vars
		want collective.Job
	}{
		{"no launcher", vars{"HOME": "/root"}, collective.Job{Size: 1, LocalSize: 1}},
		{"torchrun", torchrunEnv, collective.Job{Launcher: collective.Torchrun, Rank: 3, Size: 4, LocalRank: 1, LocalSize: 2, Addr: "10.0.0.1:29501"}},
		{"torchrun, one rank needs no master", vars{"RANK": "0", "WORLD_SIZE": "1", "LOCAL_RANK": "0", "LOCAL_WORLD_SIZE": "1"},
			collective.Job{Launcher: collective.Torchrun, Size: 1, LocalSize: 1}},
		{"torchrun, IPv6 master", torchrunEnv.with(vars{"MASTER_ADDR": "fd00::1"}),
			collective.Job{Launcher: collective.Torchrun, Rank: 3, Size: 4, LocalRank: 1, LocalSize: 2, Addr: "[fd00::1]:29501"}},
		{"torchrun, no LOCAL_WORLD_SIZE", torchrunEnv.without("LOCAL_WORLD_SIZE"),
			collective.Job{Launcher: collective.Torchrun, Rank: 3, Size: 4, LocalRank: 1, Addr: "10.0.0.1:29501"}},
		{"NCCL_COMM_ID is the address as given", torchrunEnv.without("MASTER_ADDR", "MASTER_PORT").with(vars{"NCCL_COMM_ID": "node0:4000"}),
			collective.Job{Launcher: collective.Torchrun, Rank: 3, Size: 4, LocalRank: 1, LocalSize: 2, Addr: "node0:4000"}},
		{"torchrun under srun: torchrun's ranks", torchrunEnv.with(slurmEnv),
			collective.Job{Launcher: collective.Torchrun, Rank: 3, Size: 4, LocalRank: 1, LocalSize: 2, Addr: "10.0.0.1:29501"}},
		{"torchrun's variables beside an MPI launcher's that torchrun set", torchrunEnv.with(vars{"OMPI_COMM_WORLD_RANK": "0", "OMPI_COMM_WORLD_SIZE": "2"}),
			collective.Job{Launcher: collective.Torchrun, Rank: 3, Size: 4, LocalRank: 1, LocalSize: 2, Addr: "10.0.0.1:29501"}},
		{"Open MPI on one node", openMPIEnv, collective.Job{Launcher: collective.OpenMPI, Rank: 2, Size: 4, LocalRank: 2, LocalSize: 4, Addr: "127.0.0.1:29501"}},
		{"Open MPI with a master", openMPIEnv.with(vars{"MASTER_ADDR": "h0", "MASTER_PORT": "6000"}),
			collective.Job{Launcher: collective.OpenMPI, Rank: 2, Size: 4, LocalRank: 2, LocalSize: 4, Addr: "h0:6001"}},
		{"Open MPI on two nodes", openMPIEnv.with(vars{"OMPI_COMM_WORLD_LOCAL_SIZE": "2", "OMPI_COMM_WORLD_LOCAL_RANK": "0", "MASTER_ADDR": "h0"}),
			collective.Job{Launcher: collective.OpenMPI, Rank: 2, Size: 4, LocalRank: 0, LocalSize: 2, Addr: "h0:29501"}},
		{"mpirun inside a Slurm allocation: Open MPI's ranks", openMPIEnv.with(slurmEnv),
			collective.Job{Launcher: collective.OpenMPI, Rank: 2, Size: 4, LocalRank: 2, LocalSize: 4, Addr: "127.0.0.1:29501"}},
		{"MPICH", hydraEnv, collective.Job{Launcher: collective.MPICH, Rank: 1, Size: 2, LocalRank: 1, LocalSize: 2, Addr: "127.0.0.1:29501"}},
		{"Slurm", slurmEnv, collective.Job{Launcher: collective.Slurm, Rank: 5, Size: 8, LocalRank: 1, LocalSize: 2, Addr: "gpu07:" + itoa(slurmPort)}},
		{"Slurm with a master", slurmEnv.with(vars{"MASTER_ADDR": "gpu09", "MASTER_PORT": "7000"}),
			collective.Job{Launcher: collective.Slurm, Rank: 5, Size: 8, LocalRank: 1, LocalSize: 2, Addr: "gpu09:7001"}},
		{"Slurm without the step's node list", slurmEnv.without("SLURM_STEP_NODELIST").with(vars{"SLURM_JOB_NODELIST": "a1,b[2-3]"}),
			collective.Job{Launcher: collective.Slurm, Rank: 5, Size: 8, LocalRank: 1, LocalSize: 2, Addr: "a1:" + itoa(slurmPort)}},
		{"Slurm without a node id", slurmEnv.without("SLURM_NODEID"),
			collective.Job{Launcher: collective.Slurm, Rank: 5, Size: 8, LocalRank: 1, Addr: "gpu07:" + itoa(slurmPort)}},
		{"srun with PMI-2: Slurm's ranks", slurmEnv.with(vars{"PMI_RANK": "5", "PMI_SIZE": "8"}),
			collective.Job{Launcher: collective.Slurm, Rank: 5, Size: 8, LocalRank: 1, LocalSize: 2, Addr: "gpu07:" + itoa(slurmPort)}},
		{"a batch script, not an srun step: one rank", slurmEnv.without("SLURM_STEP_NUM_TASKS", "SLURM_STEP_ID", "SLURM_STEP_NODELIST", "SLURM_STEP_TASKS_PER_NODE"),
			collective.Job{Size: 1, LocalSize: 1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := collective.ReadJob(tc.env.lookup)
			require.NoError(t, err)
			require.Equal(t, tc.want.Launcher, got.Launcher)
			require.Equal(t, tc.want.Rank, got.Rank, "rank")
			require.Equal(t, tc.want.Size, got.Size, "size")
			require.Equal(t, tc.want.LocalRank, got.LocalRank, "local rank")
			require.Equal(t, tc.want.LocalSize, got.LocalSize, "local size")
			require.Equal(t, tc.want.Addr, got.Addr, "address")
		})
	}
}

func itoa(n int) string {
	b := []byte{}
	for n > 0 || len(b) == 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	return string(b)
}

// Every incomplete, malformed or contradictory environment names the
// variable to fix.
func TestReadJobErrors(t *testing.T) {
	cases := []struct {
		name     string
		env      vars
		variable string
		set      bool
		msg      string
	}{
		{"torchrun without RANK", torchrunEnv.without("RANK"), "RANK", false, "RANK, WORLD_SIZE, LOCAL_RANK together"},
		{"torchrun without WORLD_SIZE", torchrunEnv.without("WORLD_SIZE"), "WORLD_SIZE", false, "together"},
		{"torchrun without LOCAL_RANK", torchrunEnv.without("LOCAL_RANK"), "LOCAL_RANK", false, "together"},
		{"only LOCAL_WORLD_SIZE", vars{"LOCAL_WORLD_SIZE": "2"}, "RANK", false, "together"},
		{"rank not a number", torchrunEnv.with(vars{"RANK": "three"}), "RANK", true, "non-negative integer"},
		{"negative rank", torchrunEnv.with(vars{"RANK": "-1"}), "RANK", true, "non-negative integer"},
		{"rank past the size", torchrunEnv.with(vars{"RANK": "4"}), "RANK", true, "rank 4 of WORLD_SIZE=4"},
		{"no ranks", torchrunEnv.with(vars{"WORLD_SIZE": "0", "RANK": "0"}), "WORLD_SIZE", true, "at least one"},
		{"local rank past the local size", torchrunEnv.with(vars{"LOCAL_RANK": "2"}), "LOCAL_RANK", true, "LOCAL_WORLD_SIZE=2"},
		{"local size past the size", torchrunEnv.with(vars{"LOCAL_WORLD_SIZE": "8"}), "LOCAL_WORLD_SIZE", true, "want 1 to 4"},
		{"local rank past the size", torchrunEnv.without("LOCAL_WORLD_SIZE").with(vars{"LOCAL_RANK": "4"}), "LOCAL_RANK", true, "WORLD_SIZE=4"},
		{"no master address", torchrunEnv.without("MASTER_ADDR"), "MASTER_ADDR", false, "rank 0's host"},
		{"empty master address", torchrunEnv.with(vars{"MASTER_ADDR": " "}), "MASTER_ADDR", true, "empty"},
		{"no master port", torchrunEnv.without("MASTER_PORT"), "MASTER_PORT", false, "port"},
		{"master port not a number", torchrunEnv.with(vars{"MASTER_PORT": "http"}), "MASTER_PORT", true, "1 to 65534"},
		{"master port leaves no room for +1", torchrunEnv.with(vars{"MASTER_PORT": "65535"}), "MASTER_PORT", true, "MASTER_PORT+1"},
		{"NCCL_COMM_ID without a port", torchrunEnv.with(vars{"NCCL_COMM_ID": "node0"}), "NCCL_COMM_ID", true, "host:port"},
		{"NCCL_COMM_ID with a bad port", torchrunEnv.with(vars{"NCCL_COMM_ID": "node0:0"}), "NCCL_COMM_ID", true, "1 to 65535"},
		{"stale RANK under mpirun", vars{"RANK": "1", "WORLD_SIZE": "4", "LOCAL_RANK": "1"}.with(openMPIEnv), "RANK", true, "OMPI_COMM_WORLD_RANK"},
		{"stale WORLD_SIZE under mpiexec", vars{"RANK": "1", "WORLD_SIZE": "4", "LOCAL_RANK": "1"}.with(hydraEnv), "WORLD_SIZE", true, "PMI_SIZE"},
		{"Open MPI without its size", openMPIEnv.without("OMPI_COMM_WORLD_SIZE"), "OMPI_COMM_WORLD_SIZE", false, "together"},
		{"Open MPI rank past the size", openMPIEnv.with(vars{"OMPI_COMM_WORLD_RANK": "9"}), "OMPI_COMM_WORLD_RANK", true, "OMPI_COMM_WORLD_SIZE=4"},
		{"Open MPI on two nodes without a master", openMPIEnv.with(vars{"OMPI_COMM_WORLD_LOCAL_SIZE": "2", "OMPI_COMM_WORLD_LOCAL_RANK": "0"}),
			"MASTER_ADDR", false, "span several nodes"},
		{"PMI_RANK alone", vars{"PMI_RANK": "0", "PMI_SIZE": "2"}, "MPI_LOCALRANKID", false, "together"},
		{"MPICH local rank past the local size", hydraEnv.with(vars{"MPI_LOCALRANKID": "3"}), "MPI_LOCALRANKID", true, "MPI_LOCALNRANKS=2"},
		{"Slurm without SLURM_PROCID", slurmEnv.without("SLURM_PROCID"), "SLURM_PROCID", false, "together"},
		{"Slurm without SLURM_LOCALID", slurmEnv.without("SLURM_LOCALID"), "SLURM_LOCALID", false, "together"},
		{"Slurm task past the step", slurmEnv.with(vars{"SLURM_PROCID": "8"}), "SLURM_PROCID", true, "SLURM_STEP_NUM_TASKS=8"},
		{"Slurm malformed tasks per node", slurmEnv.with(vars{"SLURM_STEP_TASKS_PER_NODE": "2(x"}), "SLURM_STEP_TASKS_PER_NODE", true, "task count"},
		{"Slurm node past the list", slurmEnv.with(vars{"SLURM_NODEID": "4"}), "SLURM_NODEID", true, "node 4 of the 4"},
		{"Slurm local task past its node", slurmEnv.with(vars{"SLURM_LOCALID": "2"}), "SLURM_LOCALID", true, "local task 2 of 2"},
		{"Slurm malformed node list", slurmEnv.with(vars{"SLURM_STEP_NODELIST": "gpu[07-10"}), "SLURM_STEP_NODELIST", true, "without its ]"},
		{"Slurm without any node list", slurmEnv.without("SLURM_STEP_NODELIST", "SLURM_JOB_NODELIST"), "MASTER_ADDR", false, "SLURM_STEP_NODELIST"},
		{"Slurm without a job id to derive a port", slurmEnv.without("SLURM_JOB_ID"), "MASTER_PORT", false, "SLURM_JOB_ID"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := collective.ReadJob(tc.env.lookup)
			require.ErrorIs(t, err, collective.ErrEnvironment)
			var ee *collective.EnvError
			require.True(t, errors.As(err, &ee), "%v", err)
			require.Equal(t, tc.variable, ee.Var, "%v", err)
			require.Equal(t, tc.set, ee.Set, "%v", err)
			require.ErrorContains(t, err, tc.variable)
			require.ErrorContains(t, err, tc.msg)
		})
	}
}
