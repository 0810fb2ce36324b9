#!/usr/bin/env python3
"""graphs_peers: PyTorch's side of bench/graphs (graphs with constant memory).

  * The seed program: one torch.cuda.CUDAGraph per batch size 1..128 of
    a**2 + b*2 over rows of 1024 float32 (pinned inputs copied in, the
    output copied to pinned memory), all sharing one pool (pool=), captured
    in ascending and descending order on one side stream: device memory
    growth (torch.cuda.mem_get_info before and after the captures), growth
    of torch.cuda.memory_reserved, and capture time per batch size.
  * The host cost of CUDAGraph.replay() of a 20-operation chain of small
    elementwise ops (torch.mul(src, 1.0001, out=dst) back and forth over
    1024 float32) against issuing the same 20 operations eagerly.

Writes DIR/graphs_peers.json in the bench/report schema. Without torch or a
GPU it writes a note and exits 0.

    python3 bench/peer/graphs_peers.py --out bench/results
"""

import argparse
import json
import sys
import time

import _peer
from _peer import percentile

MAX_BATCH = 128
ROW = 1024
CHAIN_OPS = 20
CHAIN_LEN = 1024
MIB = 1.0 / (1 << 20)


def seed(torch, rep, descending):
    static_a = torch.zeros((MAX_BATCH, ROW), device="cpu").pin_memory()
    static_b = torch.zeros((MAX_BATCH, ROW), device="cpu").pin_memory()
    static_out = torch.zeros((MAX_BATCH, ROW), device="cpu").pin_memory()

    def compute(bs):
        a = static_a[:bs].to("cuda", non_blocking=True)
        b = static_b[:bs].to("cuda", non_blocking=True)
        out = a ** 2 + b * 2
        static_out[:bs].copy_(out, non_blocking=True)

    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for bs in range(1, MAX_BATCH + 1):
            compute(bs)
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()

    free0, total = torch.cuda.mem_get_info()
    reserved0 = torch.cuda.memory_reserved()
    graphs, pool = {}, None
    order = range(MAX_BATCH, 0, -1) if descending else range(1, MAX_BATCH + 1)
    t = time.perf_counter()
    for bs in order:
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g, pool=pool, stream=s):
            compute(bs)
        graphs[bs] = g
        pool = g.pool()
    per_size = (time.perf_counter() - t) / MAX_BATCH
    torch.cuda.synchronize()
    free1, _ = torch.cuda.mem_get_info()
    reserved1 = torch.cuda.memory_reserved()

    # Check one replay, as the seed does.
    static_a[:2] += 1
    static_b[:2] += 2
    graphs[2].replay()
    torch.cuda.synchronize()
    want = static_a[:2] ** 2 + static_b[:2] * 2
    ok = bool(torch.equal(static_out[:2], want))
    rep.add("seed", {"scenario": "seed 1..128", "order": "descending" if descending else "ascending", "upstream": "torch"}, {
        "working_set_mib": 2 * MAX_BATCH * ROW * 4 * MIB,
        "device_growth_mib": (free0 - free1) * MIB,
        "pool_reserved_mib": (reserved1 - reserved0) * MIB,
        "capture_us_per_size": per_size * 1e6,
        "replay_checked": 1.0 if ok else 0.0,
    })
    del graphs
    torch.cuda.synchronize()
    torch.cuda.empty_cache()


def chain(torch, rep, batches, batch):
    x = torch.zeros(CHAIN_LEN, device="cuda")
    y = torch.zeros(CHAIN_LEN, device="cuda")

    def once():
        src, dst = x, y
        for _ in range(CHAIN_OPS):
            torch.mul(src, 1.0001, out=dst)
            src, dst = dst, src

    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        once()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g, stream=s):
        once()
    torch.cuda.synchronize()

    eager, replay = [], []
    for i in range(2 * batches):
        graph = i % 2 == 1
        torch.cuda.synchronize()
        t = time.perf_counter_ns()
        for _ in range(batch):
            if graph:
                g.replay()
            else:
                once()
        ns = (time.perf_counter_ns() - t) / batch
        (replay if graph else eager).append(ns)
    torch.cuda.synchronize()
    e50, r50 = percentile(eager, 50), percentile(replay, 50)
    rep.add("chain eager", {"scenario": "20-op chain", "order": "eager"},
            {"p50_ns": e50, "p99_ns": percentile(eager, 99)})
    rep.add("chain replay", {"scenario": "20-op chain", "order": "graph replay"},
            {"p50_ns": r50, "p99_ns": percentile(replay, 99), "ratio_eager_vs_replay": e50 / r50 if r50 else 0.0})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="")
    ap.add_argument("--batches", type=int, default=200)
    ap.add_argument("--batch", type=int, default=20)
    args = ap.parse_args()
    rep = _peer.Report("graphs_peers")
    torch = _peer.import_torch(rep)
    if torch is not None:
        for desc in (False, True):
            seed(torch, rep, desc)
        chain(torch, rep, args.batches, args.batch)
        rep.note("PyTorch %s, CUDA %s; seed as in ../shared/seeds/graph-capture-batch-sizes.md (output copied with "
                 "copy_(non_blocking=True) into pinned memory instead of ctypes cudaMemcpyAsync); chain: %d batches of %d."
                 % (torch.__version__, torch.version.cuda, args.batches, args.batch))
    rep.write(args.out)
    print(rep.heading())
    for r in rep.rows:
        print("| %s | %s | %s |" % (r["name"], json.dumps(r["labels"]), json.dumps(r["metrics"])))
    for n in rep.notes:
        print(n)
    return rep.exit_code()


if __name__ == "__main__":
    sys.exit(main())
