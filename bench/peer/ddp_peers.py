#!/usr/bin/env python3
"""ddp_peers: PyTorch DistributedDataParallel and torch.distributed beside
bench/ddp, on the same model, sizes and method.

  * samples/s of a training step: --layers nn.Linear(--width, --width,
    bias=False) with ReLU between, mean squared error, plain SGD (lr 1e-4),
    float32 without TF32, --rows samples per rank, wrapped in
    DDP(bucket_cap_mb=25, gradient_as_bucket_view=True); one process per
    GPU (torch.multiprocessing, NCCL, a file:// store) for 1, 2, 4, ... GPUs
    (--ranks); --reps repetitions of --steps steps after --warmup, each
    timed from a barrier to torch.cuda.synchronize, the slowest rank's
    time, the median repetition kept;
  * at the largest rank count of two or more: in-place float32 all-reduce
    at 1 MiB, 64 MiB and 1 GiB, back-to-back calls after a barrier, time
    per call = total / calls, busbw = bytes / time * 2(n-1)/n.

Writes DIR/ddp_peers.json (--name) in the bench/report schema. Without
torch or a GPU, or when a measurement fails, it writes a note and exits 0;
with --strict it exits 1 instead (bench/gpu/multinode.sh uses it). --cpu
runs the same code on the CPU with gloo, to check the script where there
is no GPU (its figures mean nothing).

    python3 bench/peer/ddp_peers.py --out bench/results [--ranks 1,2,4]
"""

import argparse
import json
import os
import sys
import tempfile
import time
import traceback

import _peer

MIB = 1 << 20
ALLREDUCE = [(MIB, 50), (64 * MIB, 20), (1 << 30, 10)]


def worker(rank, world, args, store, result):
    import torch
    import torch.distributed as dist
    import torch.nn as nn
    import torch.nn.functional as F
    from torch.nn.parallel import DistributedDataParallel as DDP

    if args.cpu:
        dev, backend, ids = torch.device("cpu"), "gloo", None
        sync = lambda: None  # noqa: E731
    else:
        torch.cuda.set_device(rank)
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        torch.set_float32_matmul_precision("highest")
        dev, backend, ids = torch.device("cuda", rank), "nccl", [rank]
        sync = torch.cuda.synchronize
    dist.init_process_group(backend, init_method="file://" + store, world_size=world, rank=rank)
    try:
        torch.manual_seed(1)
        layers = []
        for i in range(args.layers):
            layers.append(nn.Linear(args.width, args.width, bias=False))
            if i < args.layers - 1:
                layers.append(nn.ReLU())
        model = nn.Sequential(*layers).to(dev)
        ddp = DDP(model, device_ids=ids, bucket_cap_mb=25, gradient_as_bucket_view=True)
        opt = torch.optim.SGD(ddp.parameters(), lr=1e-4)
        g = torch.Generator(device=dev)
        g.manual_seed(100 + rank)
        x = torch.randn(args.rows, args.width, device=dev, generator=g)
        y = torch.randn(args.rows, args.width, device=dev, generator=g)

        def step():
            opt.zero_grad(set_to_none=True)
            loss = F.mse_loss(ddp(x), y)
            loss.backward()
            opt.step()
            return loss

        def slowest(v):
            t = torch.tensor([v], device=dev, dtype=torch.float64)
            dist.all_reduce(t, op=dist.ReduceOp.MAX)
            return t.item()

        for _ in range(args.warmup):
            step()
        sync()
        secs = []
        loss = None
        for _ in range(args.reps):
            slowest(0.0)  # a barrier that waits on the device too
            t0 = time.perf_counter()
            for _ in range(args.steps):
                loss = step()
            sync()
            secs.append(slowest(time.perf_counter() - t0))
        out = {"secs": secs, "loss": float(loss.item())}

        if args.allreduce and world >= 2:
            rows = []
            for n, iters in ALLREDUCE:
                if n > args.max_bytes:
                    continue
                t = torch.ones(n // 4, dtype=torch.float32, device=dev)
                for _ in range(3):
                    dist.all_reduce(t)
                sync()
                slowest(0.0)
                t0 = time.perf_counter()
                for _ in range(iters):
                    dist.all_reduce(t)
                sync()
                per = slowest(time.perf_counter() - t0) / iters
                rows.append((n, per))
                del t
            out["allreduce"] = rows
        if rank == 0:
            with open(result, "w") as f:
                json.dump(out, f)
    finally:
        dist.destroy_process_group()
    if args.cpu:
        # The CPU check leaves at once: with some torch versions gloo can
        # hang in the interpreter's exit.
        sys.stdout.flush()
        os._exit(0)


def measure(torch, rep, args, world):
    import torch.multiprocessing as mp

    store = tempfile.NamedTemporaryFile(delete=False).name
    os.remove(store)
    result = tempfile.NamedTemporaryFile(delete=False, suffix=".json").name
    try:
        mp.spawn(worker, args=(world, args, store, result), nprocs=world, join=True)
        with open(result) as f:
            out = json.load(f)
    finally:
        for p in (result, store):
            if os.path.exists(p):
                os.remove(p)
    secs = sorted(out["secs"])
    med = secs[len(secs) // 2]
    samples = args.rows * world * args.steps / med
    allr = [args.rows * world * args.steps / s for s in secs]
    print("ddp, %d rank(s): %.0f samples/s, %.2f ms a step, loss %.4g" % (world, samples, med / args.steps * 1e3, out["loss"]))
    rep.add("step", {"ranks": str(world), "mode": "ddp", "rows_per_rank": str(args.rows), "width": str(args.width), "layers": str(args.layers)},
            {"samples_per_s": samples, "step_ms": med / args.steps * 1e3, "samples_per_s_min": min(allr),
             "samples_per_s_max": max(allr), "final_loss": out["loss"]})
    for n, per in out.get("allreduce", []):
        busbw = n / per * 2 * (world - 1) / world / 1e9
        print("torch.distributed, %d ranks: all-reduce %5d MiB: %.1f us, bus bandwidth %.1f GB/s" % (world, n // MIB, per * 1e6, busbw))
        rep.add("allreduce", {"ranks": str(world), "mode": "torch.distributed", "bytes": str(n)}, {"time_us": per * 1e6, "busbw_GBps": busbw})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="", help="directory for the JSON report (none: print only)")
    ap.add_argument("--name", default="ddp_peers", help="report name")
    ap.add_argument("--ranks", default="", help="comma-separated GPU counts (default 1, 2, 4, ... up to the GPUs)")
    ap.add_argument("--width", type=int, default=4096)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--rows", type=int, default=1024)
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--max-bytes", dest="max_bytes", type=int, default=1 << 30)
    ap.add_argument("--no-allreduce", dest="allreduce", action="store_false")
    ap.add_argument("--strict", action="store_true", help="exit 1 when anything could not be measured")
    ap.add_argument("--cpu", action="store_true", help="gloo on the CPU: checks the script without a GPU")
    args = ap.parse_args()
    os.environ["NCCL_NVLS_ENABLE"] = "0"  # no NVLink multicast on shared GPUs
    rep = _peer.Report(args.name)
    rep.note("model: %d linear layers of %dx%d float32 (no bias, ReLU between, MSE, SGD), %d samples per rank and step, "
             "DDP(bucket_cap_mb=25, gradient_as_bucket_view=True); %d repetitions of %d steps after %d, median"
             % (args.layers, args.width, args.width, args.rows, args.reps, args.steps, args.warmup))
    if args.cpu:
        import torch

        rep.device, rep.backend = "cpu", "cpu"
        rep.note("--cpu: gloo on the CPU, a check of the script, not a measurement")
    else:
        torch = _peer.import_torch(rep)
    failed = torch is None
    if torch is not None:
        import torch.distributed as dist

        if args.cpu:
            n = 64
        else:
            rep.note("torch %s, NCCL %s" % (torch.__version__, ".".join(map(str, torch.cuda.nccl.version()))))
            n = torch.cuda.device_count()
        if args.ranks:
            worlds = [int(w) for w in args.ranks.split(",")]
        else:
            worlds, w = [], 1
            while w <= n:
                worlds.append(w)
                w *= 2
        if not args.cpu and not dist.is_nccl_available():
            rep.note("torch.distributed has no NCCL")
            failed = True
        elif any(w > n for w in worlds):
            rep.note("%s GPUs asked for, %d visible" % (worlds, n))
            failed = True
        else:
            base = None
            for w in worlds:
                try:
                    measure(torch, rep, args, w)
                except Exception as e:  # a note, not a failed GPU run, unless --strict
                    traceback.print_exc()
                    rep.note("%d ranks: %s: %s" % (w, type(e).__name__, e))
                    failed = True
            for r in rep.rows:
                if r["name"] == "step" and r["labels"]["ranks"] == "1":
                    base = r["metrics"]["samples_per_s"]
            if base:
                for r in rep.rows:
                    if r["name"] == "step":
                        r["metrics"]["scaling"] = r["metrics"]["samples_per_s"] / base
    rep.write(args.out)
    if failed and args.strict:
        sys.exit(1)


if __name__ == "__main__":
    main()
