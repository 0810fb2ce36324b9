#!/usr/bin/env python3
"""collective_peers: torch.distributed (NCCL backend) beside bench/collective.

  * one-rank all-reduce (float32, in place) at 1 MiB .. 1 GiB, world size 1
    (init_process_group with a file:// store): the host time of each
    dist.all_reduce call (issue only) and the time per call with the stream
    synchronized, p50 and p99 over the calls;
  * with two GPUs visible: two-rank all-reduce bus bandwidth at 1 MiB,
    64 MiB and 1 GiB (two processes, one per GPU; busbw = bytes/time ·
    2(n-1)/n), a 1 GiB tensor.to('cuda:1'), and pinned D2H and H2D
    bandwidth at 1 GiB. With fewer GPUs the part is skipped with a note.

Writes DIR/collective_peers.json in the bench/report schema. Without torch,
a GPU or NCCL in torch it writes a note saying so and exits 1; an exception
exits 1 too (with its traceback). Fewer than two GPUs is not a failure: the
two-device part is skipped with a note.

    python3 bench/peer/collective_peers.py --out bench/results
"""

import argparse
import json
import os
import sys
import tempfile
import time

import _peer
from _peer import percentile

MIB = 1 << 20
ONE_RANK_SIZES = [MIB << (2 * i) for i in range(6)]  # 1 MiB .. 1 GiB
TWO_RANK_SIZES = [MIB, 64 * MIB, 1 << 30]


class Report(_peer.Report):
    """Prints each note as it is made (the script prints as it measures)."""

    def __init__(self):
        super().__init__("collective_peers")

    def note(self, text):
        print(text)
        super().note(text)


def one_rank(torch, dist, rep, iters):
    store = tempfile.NamedTemporaryFile(delete=False).name
    os.remove(store)
    dist.init_process_group("nccl", init_method="file://" + store, world_size=1, rank=0)
    try:
        for n in ONE_RANK_SIZES:
            t = torch.ones(n // 4, dtype=torch.float32, device="cuda:0")
            for _ in range(3):
                dist.all_reduce(t)
            torch.cuda.synchronize()
            host, total = [], []
            for _ in range(iters):
                t0 = time.perf_counter_ns()
                dist.all_reduce(t)
                t1 = time.perf_counter_ns()
                torch.cuda.synchronize()
                t2 = time.perf_counter_ns()
                host.append(float(t1 - t0))
                total.append((t2 - t0) / 1e3)
            m = {
                "host_ns_p50": percentile(host, 50), "host_ns_p99": percentile(host, 99),
                "time_us_p50": percentile(total, 50), "time_us_p99": percentile(total, 99),
            }
            print("torch one-rank all-reduce %5d MiB: host %.0f ns, call %.1f us" % (n // MIB, m["host_ns_p50"], m["time_us_p50"]))
            rep.add("allreduce-1rank", {"bytes": str(n)}, m)
            del t
    finally:
        dist.destroy_process_group()


def two_rank_worker(rank, store, result_path, iters):
    import torch
    import torch.distributed as dist

    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", init_method="file://" + store, world_size=2, rank=rank)
    rows = []
    for n in TWO_RANK_SIZES:
        t = torch.ones(n // 4, dtype=torch.float32, device="cuda:%d" % rank)
        for _ in range(3):
            dist.all_reduce(t)
        torch.cuda.synchronize()
        ts = []
        for _ in range(iters):
            dist.barrier()
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            dist.all_reduce(t)
            torch.cuda.synchronize()
            ts.append(time.perf_counter() - t0)
        p50 = percentile(ts, 50)
        rows.append((n, p50, percentile(ts, 99)))
        del t
    dist.destroy_process_group()
    if rank == 0:
        with open(result_path, "w") as f:
            json.dump(rows, f)


def two_devices(torch, rep, iters):
    import torch.multiprocessing as mp

    store = tempfile.NamedTemporaryFile(delete=False).name
    os.remove(store)
    result = tempfile.NamedTemporaryFile(delete=False, suffix=".json").name
    mp.spawn(two_rank_worker, args=(store, result, min(iters, 20)), nprocs=2, join=True)
    with open(result) as f:
        for n, p50, p99 in json.load(f):
            busbw = n / p50 * 2 * (2 - 1) / 2 / 1e9
            print("torch two-rank all-reduce %5d MiB: %.1f us, bus bandwidth %.1f GB/s" % (n // MIB, p50 * 1e6, busbw))
            rep.add("allreduce-2rank", {"bytes": str(n)}, {"time_us_p50": p50 * 1e6, "time_us_p99": p99 * 1e6, "busbw_GBps": busbw})
    os.remove(result)

    n = 1 << 30

    def timed(fn, sync_devs, reps=10):
        ts = []
        for i in range(reps + 2):
            t0 = time.perf_counter()
            fn()
            for d in sync_devs:
                torch.cuda.synchronize(d)
            if i >= 2:
                ts.append(time.perf_counter() - t0)
        return percentile(ts, 50)

    src = torch.ones(n // 4, dtype=torch.float32, device="cuda:0")
    dt = timed(lambda: src.to("cuda:1"), [0, 1])
    print("torch .to('cuda:1') 1024 MiB: %.1f GB/s" % (n / dt / 1e9))
    rep.add("copy-peer", {"bytes": str(n)}, {"GBps": n / dt / 1e9, "time_ms_p50": dt * 1e3})
    host = torch.empty(n // 4, dtype=torch.float32, pin_memory=True)
    dt = timed(lambda: host.copy_(src, non_blocking=True), [0], 5)
    rep.add("copy-d2h-pinned", {"bytes": str(n)}, {"GBps": n / dt / 1e9})
    print("torch pinned D2H: %.1f GB/s" % (n / dt / 1e9))
    dt = timed(lambda: src.copy_(host, non_blocking=True), [0], 5)
    rep.add("copy-h2d-pinned", {"bytes": str(n)}, {"GBps": n / dt / 1e9})
    print("torch pinned H2D: %.1f GB/s" % (n / dt / 1e9))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="", help="directory for collective_peers.json (none: print only)")
    ap.add_argument("--iters", type=int, default=50)
    args = ap.parse_args()
    os.environ["NCCL_NVLS_ENABLE"] = "0"  # no NVLink multicast on shared GPUs
    rep = Report()
    try:
        import torch
        import torch.distributed as dist
    except Exception as e:  # ImportError, or a broken install
        rep.fail("torch not available: %s" % e)
        rep.write(args.out)
        return rep.exit_code()
    if not torch.cuda.is_available() or not dist.is_nccl_available():
        rep.fail("no CUDA device or no NCCL in torch")
        rep.write(args.out)
        return rep.exit_code()
    rep.device, rep.backend = torch.cuda.get_device_name(0), "cuda"
    rep.note("torch %s, NCCL %s" % (torch.__version__, ".".join(map(str, torch.cuda.nccl.version()))))
    one_rank(torch, dist, rep, args.iters)
    if torch.cuda.device_count() >= 2:
        two_devices(torch, rep, args.iters)
    else:
        rep.note("two-device part skipped: %d GPU visible (needs 2)" % torch.cuda.device_count())
    rep.write(args.out)
    return rep.exit_code()


if __name__ == "__main__":
    sys.exit(main())
