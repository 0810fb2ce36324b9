#!/usr/bin/env bash
# multinode.sh runs gpuarr's launcher and data-parallel checks on one machine
# of four GPUs (nvidia-h100-x4) from the GPU bundle (make gpu-bundle), with no
# Go toolchain there. From the repository root:
#
#   bash .gpu/multinode.sh
#
# Steps (each under `timeout`, the whole within GPUARR_RUN_BUDGET, default
# 540 s):
#
#   info        nvidia-smi, the topology, torch and NCCL versions, the
#               launchers found
#   one-gpu     examples/multigpu and examples/ddp on GPU 0 alone: the
#               reference losses
#   torchrun    each example as 4 ranks under torchrun, as two simulated
#               nodes of two GPUs: two torchrun invocations (--nnodes=2,
#               --node_rank 0 and 1, CUDA_VISIBLE_DEVICES=0,1 and 2,3, one
#               MASTER_ADDR on loopback, static rendezvous)
#   mpirun      each example as `mpirun -np 4` (Open MPI: --allow-run-as-root,
#               --bind-to none; MPICH's Hydra is recognized too)
#   scaling     bench/ddp under torchrun on 1, 2 and 4 GPUs (one process a
#               GPU; with 2 and 4 also all-reduce bus bandwidth at 1 MiB,
#               64 MiB and 1 GiB), then bench/peer/ddp_peers.py (PyTorch DDP
#               and torch.distributed, same model, sizes and method)
#   summary     multinode.json: every run's verdict, the 4-rank losses
#               against the one-GPU run (relative difference ≤ 1e-9), samples/s
#               and scaling beside DDP's, bus bandwidth beside torch's, and
#               the issue's targets (≥ 1.85× at 2, ≥ 3.5× at 4, ≥ 0.95× DDP)
#
# Every example run checks its own losses against one GPU (rank 0) and fails
# when they differ; the summary compares them with the one-gpu step's again.
# NCCL_NVLS_ENABLE=0 always (no NVLink multicast on shared GPUs).
#
# MULTINODE_BENCH_ARGS adds flags to bench/ddp and ddp_peers.py alike (both
# take --width, --layers, --rows, --steps, --warmup, --reps, --max-bytes),
# MULTINODE_PEER_ARGS to ddp_peers.py alone (--cpu checks the script on a
# machine without GPUs).
#
# $OUT (default .gpu/out-multinode) gets summary.txt, multinode.json, the
# benchmark JSON files and results.tar.gz (summary.txt, COMMIT, logs/,
# results/: make gpu-results DIR=... unpacks it like run.sh's). The script
# exits 1 when any step failed (a missed performance target is reported in
# multinode.json and the summary, and is not a failure of the run).
set -uo pipefail

BUNDLE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$BUNDLE")
cd "$ROOT" || exit 1

OUT=${OUT:-$BUNDLE/out-multinode}
mkdir -p "$OUT"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/gpuarr-multinode.XXXXXX")
LOGS=$WORK/logs
RES=$WORK/results
mkdir -p "$LOGS" "$RES"
SUMMARY=$WORK/summary.txt
: >"$SUMMARY"

export GPUARR_DEVICE=${GPUARR_DEVICE:-cuda}
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export PYTHONUNBUFFERED=1
# A rank that never arrives fails the run in two minutes instead of ten.
export GPUARR_INIT_TIMEOUT=${GPUARR_INIT_TIMEOUT:-120s}
GPUARR_COMMIT=$(cat "$BUNDLE/COMMIT" 2>/dev/null || echo unknown)
export GPUARR_COMMIT
GPUS=${GPUARR_GPUS:-4}
read -r -a BENCH_ARGS <<<"${MULTINODE_BENCH_ARGS:-}"
read -r -a PEER_ARGS <<<"${MULTINODE_PEER_ARGS:-}"

BUDGET=${GPUARR_RUN_BUDGET:-540}
LAUNCH_LIMIT=${GPUARR_LAUNCH_LIMIT:-150}
START=$SECONDS
failed=0

now() { echo "${EPOCHREALTIME:-$(date +%s.%N)}"; }

# record STATUS KIND NAME SECONDS NOTE
record() {
	printf '%-4s  %-8s  %-28s  %7.1fs  %s\n' "$1" "$2" "$3" "$4" "$5" | tee -a "$SUMMARY"
	[[ $1 != FAIL ]] || failed=1
}

# limit_for WANT prints WANT, or less so that the budget holds (0: no time).
limit_for() {
	local left=$((BUDGET - (SECONDS - START) - 15))
	if ((left < 20)); then echo 0; elif (($1 < left)); then echo "$1"; else echo "$left"; fi
}

tail_log() {
	echo "----- last lines of logs/$1.log"
	tail -n 30 "$LOGS/$1.log" | cut -c1-300
	echo "-----"
}

# step KIND NAME LIMIT COMMAND... runs one command under timeout, its output
# in logs/NAME.log.
step() {
	local kind=$1 name=$2 limit
	limit=$(limit_for "$3")
	shift 3
	if ((limit == 0)); then
		record FAIL "$kind" "$name" 0 "no time left in the ${BUDGET}s budget"
		return 1
	fi
	local t0 rc
	t0=$(now)
	timeout -k 10 "$limit" "$@" >"$LOGS/$name.log" 2>&1 </dev/null
	rc=$?
	local secs note="exit 0" status=PASS
	secs=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
	if ((rc != 0)); then
		status=FAIL note="exit $rc"
		((rc == 124 || rc == 137)) && note="timed out after ${limit}s"
	fi
	record "$status" "$kind" "$name" "$secs" "$note"
	[[ $status == PASS ]] || tail_log "$name"
	[[ $status == PASS ]]
}

# A port for each launch: torchrun's store takes MASTER_PORT and gpuarr's
# ranks meet at MASTER_PORT+1, so launches step by 10.
# Below 32768, where Linux picks its ephemeral ports.
NEXT_PORT=$((20000 + RANDOM % 1200 * 10))
port() {
	PORT=$NEXT_PORT
	NEXT_PORT=$((NEXT_PORT + 10))
}

echo "gpuarr multinode run: commit $GPUARR_COMMIT, GPUARR_DEVICE=$GPUARR_DEVICE, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "summary.txt, multinode.json and results.tar.gz go to $OUT"
echo

# ---- setup -----------------------------------------------------------------
archive=
for a in "$BUNDLE"/bin.tar.xz "$BUNDLE"/bin.tar.gz; do
	[[ -f $a ]] && archive=$a && break
done
BIN=$WORK/bin
if [[ -z $archive ]]; then
	record FAIL setup unpack 0 "no bin.tar.xz or bin.tar.gz in $BUNDLE: run make gpu-bundle"
elif ! tar -C "$WORK" -xf "$archive" 2>"$LOGS/unpack.log" &&
	! python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2], filter="data")' "$archive" "$WORK" 2>>"$LOGS/unpack.log"; then
	record FAIL setup unpack 0 "could not unpack $(basename "$archive"); see logs/unpack.log"
fi
for b in examples-multigpu examples-ddp bench-ddp; do
	[[ -x $BIN/$b ]] || record FAIL setup "$b" 0 "binary missing from the bundle"
done
[[ -f $BUNDLE/peer/ddp_peers.py ]] || record FAIL setup ddp_peers.py 0 "peer script missing from the bundle"

# torchrun, or the module it runs.
TORCHRUN=()
if command -v torchrun >/dev/null; then
	TORCHRUN=(torchrun)
elif python3 -c 'import torch.distributed.run' 2>/dev/null; then
	TORCHRUN=(python3 -m torch.distributed.run)
else
	record FAIL setup torchrun 0 "neither torchrun nor python3 -m torch.distributed.run"
fi

# mpirun: PATH first, then where MPI installs often live, then the one
# mpi4py was built with.
MPIRUN=
for m in "$(command -v mpirun 2>/dev/null)" "$(command -v mpiexec 2>/dev/null)" /usr/local/mpi/bin/mpirun /opt/hpcx/ompi/bin/mpirun \
	/usr/lib64/openmpi/bin/mpirun /usr/lib/x86_64-linux-gnu/openmpi/bin/mpirun /opt/openmpi/bin/mpirun; do
	[[ -n $m && -x $m ]] && MPIRUN=$m && break
done
if [[ -z $MPIRUN ]]; then
	d=$(python3 -c 'import mpi4py, os; c = mpi4py.get_config(); print(os.path.dirname(c.get("mpicc", "")))' 2>/dev/null || true)
	for m in "$d/mpirun" "$d/mpiexec"; do
		[[ -n $d && -x $m ]] && MPIRUN=$m && break
	done
fi
MPI_KIND=
if [[ -n $MPIRUN ]]; then
	v=$("$MPIRUN" --version 2>&1 | head -5)
	if grep -qi "open mpi\|open-mpi\|openrte\|prte" <<<"$v"; then
		MPI_KIND=openmpi
	elif grep -qi "hydra\|mpich\|intel" <<<"$v"; then
		MPI_KIND=hydra
	fi
fi

step info nvidia-smi 60 bash -c 'nvidia-smi; echo; nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv; echo; nvidia-smi topo -m; exit 0'
export MN_TORCHRUN="${TORCHRUN[*]:-none}" MN_MPIRUN="$MPIRUN" MN_MPI_KIND="${MPI_KIND:-unknown kind}"
step info versions 60 bash -c 'python3 -c "import torch; print(\"torch\", torch.__version__, \"NCCL\", torch.cuda.nccl.version(), \"GPUs\", torch.cuda.device_count())"
	echo "torchrun: $MN_TORCHRUN"; echo "mpirun: ${MN_MPIRUN:-none} ($MN_MPI_KIND)"; [[ -z $MN_MPIRUN ]] || "$MN_MPIRUN" --version; exit 0'
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
if ((ngpu < GPUS)); then
	record FAIL setup gpus 0 "$ngpu GPUs visible, the run needs $GPUS (nvidia-h100-x4)"
fi

# ---- the one-GPU references -------------------------------------------------
step one-gpu multigpu-1gpu 120 env CUDA_VISIBLE_DEVICES=0 "$BIN/examples-multigpu" -devices 1 -result "$RES/multigpu-1gpu.json"
step one-gpu ddp-1gpu 120 env CUDA_VISIBLE_DEVICES=0 "$BIN/examples-ddp" -devices 1 -result "$RES/ddp-1gpu.json"

# ---- torchrun: two simulated nodes of two GPUs ------------------------------
# torchrun_nodes NAME PROGRAM ARGS... starts the two node agents at once and
# waits for both; each node's output is its own log.
torchrun_nodes() {
	local name=$1 limit t0 rc0 rc1 secs pids=()
	shift
	limit=$(limit_for "$LAUNCH_LIMIT")
	if ((${#TORCHRUN[@]} == 0 || limit == 0)); then
		record FAIL torchrun "$name" 0 "no torchrun, or no time left"
		return
	fi
	port
	t0=$(now)
	for node in 0 1; do
		local visible=0,1
		((node == 1)) && visible=2,3
		CUDA_VISIBLE_DEVICES=$visible timeout -k 10 "$limit" "${TORCHRUN[@]}" --nnodes=2 --node_rank=$node --nproc_per_node=2 \
			--rdzv_backend=static --master_addr=127.0.0.1 --master_port=$PORT --max_restarts=0 \
			--no_python "$@" >"$LOGS/$name-node$node.log" 2>&1 </dev/null &
		pids[node]=$!
	done
	wait "${pids[0]}"
	rc0=$?
	wait "${pids[1]}"
	rc1=$?
	secs=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
	if ((rc0 == 0 && rc1 == 0)); then
		record PASS torchrun "$name" "$secs" "exit 0 on both nodes (MASTER_PORT $PORT)"
	else
		local why="node 0 exit $rc0, node 1 exit $rc1"
		((rc0 == 124 || rc0 == 137 || rc1 == 124 || rc1 == 137)) && why="$why (124, 137: timed out after ${limit}s)"
		record FAIL torchrun "$name" "$secs" "$why"
		tail_log "$name-node0"
		tail_log "$name-node1"
	fi
}
torchrun_nodes multigpu-torchrun "$BIN/examples-multigpu" -result "$RES/multigpu-torchrun.json"
torchrun_nodes ddp-torchrun "$BIN/examples-ddp" -result "$RES/ddp-torchrun.json"

# ---- mpirun -np 4 -------------------------------------------------------------
mpi_run() {
	local name=$1
	shift
	if [[ -z $MPIRUN ]]; then
		record FAIL mpirun "$name" 0 "no mpirun or mpiexec found (PATH, /usr/local/mpi, /opt/hpcx, mpi4py's)"
		return
	fi
	port
	local cmd=("$MPIRUN")
	case $MPI_KIND in
	openmpi)
		# --oversubscribe: Open MPI counts a slot a core and refuses more ranks
		# than that; the ranks here wait on GPUs, not cores.
		cmd+=(--allow-run-as-root --oversubscribe -np "$GPUS" --bind-to none)
		for v in GPUARR_DEVICE GPUARR_INIT_TIMEOUT GPUARR_COMMIT NCCL_NVLS_ENABLE TORCH_SYMM_MEM_DISABLE_MULTICAST NVSHMEM_DISABLE_NVLS; do
			cmd+=(-x "$v")
		done
		cmd+=(-x MASTER_ADDR=127.0.0.1 -x "MASTER_PORT=$PORT")
		;;
	*)
		cmd+=(-np "$GPUS" -genv MASTER_ADDR 127.0.0.1 -genv MASTER_PORT "$PORT")
		;;
	esac
	step mpirun "$name" "$LAUNCH_LIMIT" env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "${cmd[@]}" "$@"
}
mpi_run multigpu-mpirun "$BIN/examples-multigpu" -result "$RES/multigpu-mpirun.json"
mpi_run ddp-mpirun "$BIN/examples-ddp" -result "$RES/ddp-mpirun.json"

# ---- scaling: bench/ddp under torchrun beside PyTorch DDP ---------------------
for k in 1 2 4; do
	if ((${#TORCHRUN[@]} == 0)); then
		record FAIL scaling "ddp-torchrun-$k" 0 "no torchrun"
		continue
	fi
	port
	step scaling "bench-ddp-$k" "$LAUNCH_LIMIT" "${TORCHRUN[@]}" --nnodes=1 --node_rank=0 --nproc_per_node=$k \
		--rdzv_backend=static --master_addr=127.0.0.1 --master_port=$PORT --max_restarts=0 \
		--no_python "$BIN/bench-ddp" -out "$RES" -name "ddp-torchrun-$k" "${BENCH_ARGS[@]}"
done
step scaling ddp-peers 240 python3 "$BUNDLE/peer/ddp_peers.py" --out "$RES" --ranks 1,2,4 --strict "${BENCH_ARGS[@]}" "${PEER_ARGS[@]}"

# ---- summary --------------------------------------------------------------------
cat >"$WORK/summarize.py" <<'EOF'
import json, os, sys

res, out = sys.argv[1], sys.argv[2]
doc = {"commit": os.environ.get("GPUARR_COMMIT", ""), "runs": {}, "losses": [], "scaling": [], "allreduce": [], "targets": [], "problems": []}

def load(name):
    p = os.path.join(res, name)
    try:
        with open(p) as f:
            return json.load(f)
    except Exception as e:
        doc["problems"].append("%s: %s" % (name, e))
        return None

# Losses: every launched run against its own one-GPU reference (the program
# checked that) and against the separate one-GPU run.
for prog in ("multigpu", "ddp"):
    one = load("%s-1gpu.json" % prog)
    for how in ("torchrun", "mpirun"):
        r = load("%s-%s.json" % (prog, how))
        if not r or not one:
            continue
        if prog == "multigpu":
            mine, ref = r["final_loss"], one["final_loss"]
        else:
            mine, ref = r["losses"][-1], one["losses"][-1]
        rel = abs(mine - ref) / max(abs(ref), 1e-300)
        ok = r["match"] and r["ranks"] == 4 and rel <= 1e-9
        doc["losses"].append({"program": prog, "launcher": how, "ranks": r["ranks"], "final_loss": mine,
                              "one_gpu_final_loss": ref, "rel_diff": rel, "match": ok})
        if not ok:
            doc["problems"].append("%s under %s: %d ranks, final loss %.17g against one GPU's %.17g (relative %.3g)" % (prog, how, r["ranks"], mine, ref, rel))

def rows(rep, name):
    return [r for r in (rep or {}).get("rows", []) if r["name"] == name]

peers = load("ddp_peers.json")
ddp = {int(r["labels"]["ranks"]): r["metrics"] for r in rows(peers, "step")}
torch_bw = {int(r["labels"]["bytes"]): r["metrics"] for r in rows(peers, "allreduce") if r["labels"]["ranks"] == "4"}
ours = {}
bw = {}
for k in (1, 2, 4):
    rep = load("ddp-torchrun-%d.json" % k)
    for r in rows(rep, "step"):
        ours[k] = r["metrics"]
    if k == 4:
        bw = {int(r["labels"]["bytes"]): r["metrics"] for r in rows(rep, "allreduce")}
for k in (1, 2, 4):
    g, d = ours.get(k), ddp.get(k)
    row = {"ranks": k}
    if g:
        row.update(gpuarr_samples_per_s=g["samples_per_s"], gpuarr_step_ms=g["step_ms"])
        if 1 in ours:
            row["gpuarr_scaling"] = g["samples_per_s"] / ours[1]["samples_per_s"]
    if d:
        row.update(ddp_samples_per_s=d["samples_per_s"], ddp_step_ms=d["step_ms"])
        if 1 in ddp:
            row["ddp_scaling"] = d["samples_per_s"] / ddp[1]["samples_per_s"]
    if g and d:
        row["gpuarr_over_ddp"] = g["samples_per_s"] / d["samples_per_s"]
    doc["scaling"].append(row)
for b in sorted(set(bw) | set(torch_bw)):
    doc["allreduce"].append({"ranks": 4, "bytes": b, "gpuarr_busbw_GBps": bw.get(b, {}).get("busbw_GBps"),
                             "torch_busbw_GBps": torch_bw.get(b, {}).get("busbw_GBps")})

def target(what, value, want):
    doc["targets"].append({"target": what, "value": value, "want": want, "met": value is not None and value >= want})

by = {r["ranks"]: r for r in doc["scaling"]}
target("gpuarr scaling at 2 GPUs", by[2].get("gpuarr_scaling"), 1.85)
target("gpuarr scaling at 4 GPUs", by[4].get("gpuarr_scaling"), 3.5)
for k in (1, 2, 4):
    target("gpuarr/DDP samples/s at %d GPU(s)" % k, by[k].get("gpuarr_over_ddp"), 0.95)
if ours.get(1) and ours[1]["step_ms"] < 5:
    doc["problems"].append("the one-GPU step is %.2f ms, under the 5 ms the issue asks for" % ours[1]["step_ms"])

with open(out, "w") as f:
    json.dump(doc, f, indent=2)

fmt = lambda v, p="%.2f": "-" if v is None else p % v
print("| GPUs | gpuarr samples/s | DDP samples/s | gpuarr scaling | DDP scaling | gpuarr / DDP | gpuarr step ms |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for r in doc["scaling"]:
    print("| %d | %s | %s | %s | %s | %s | %s |" % (r["ranks"], fmt(r.get("gpuarr_samples_per_s"), "%.0f"), fmt(r.get("ddp_samples_per_s"), "%.0f"),
          fmt(r.get("gpuarr_scaling")), fmt(r.get("ddp_scaling")), fmt(r.get("gpuarr_over_ddp")), fmt(r.get("gpuarr_step_ms"))))
print()
print("| all-reduce, 4 GPUs | gpuarr busbw GB/s | torch.distributed busbw GB/s |")
print("| --- | --- | --- |")
for r in doc["allreduce"]:
    print("| %d MiB | %s | %s |" % (r["bytes"] >> 20, fmt(r["gpuarr_busbw_GBps"], "%.1f"), fmt(r["torch_busbw_GBps"], "%.1f")))
print()
for r in doc["losses"]:
    print("%-8s %-8s %d ranks: final loss %.17g, one GPU %.17g, relative %.3g: %s" % (r["program"], r["launcher"], r["ranks"], r["final_loss"],
          r["one_gpu_final_loss"], r["rel_diff"], "match" if r["match"] else "MISMATCH"))
for t in doc["targets"]:
    print("target %-36s %s (want >= %s): %s" % (t["target"], fmt(t["value"], "%.3f"), t["want"], "met" if t["met"] else "MISSED"))
for p in doc["problems"]:
    print("PROBLEM:", p)
sys.exit(1 if doc["problems"] else 0)
EOF
step summary multinode 60 python3 "$WORK/summarize.py" "$RES" "$WORK/multinode.json"
cat "$LOGS/multinode.log" 2>/dev/null

# ---- pack ---------------------------------------------------------------------
cp "$BUNDLE/COMMIT" "$WORK/COMMIT" 2>/dev/null || echo "$GPUARR_COMMIT" >"$WORK/COMMIT"
cp "$SUMMARY" "$OUT/summary.txt"
[[ -f $WORK/multinode.json ]] && cp "$WORK/multinode.json" "$OUT/multinode.json" && cp "$WORK/multinode.json" "$RES/multinode.json"
tar -C "$WORK" -czf "$OUT/results.tar.gz" summary.txt COMMIT logs results
for j in ddp-torchrun-1 ddp-torchrun-2 ddp-torchrun-4 ddp_peers; do
	[[ -f $RES/$j.json ]] && cp "$RES/$j.json" "$OUT/$j.json"
done

echo
echo "===== summary ($((SECONDS - START))s, commit $GPUARR_COMMIT)"
cat "$SUMMARY"
echo "$(grep -c '^PASS' "$SUMMARY") passed, $(grep -c '^FAIL' "$SUMMARY") failed; $OUT: $(cd "$OUT" && ls | tr '\n' ' ')"
rm -rf "$WORK"
exit "$failed"
