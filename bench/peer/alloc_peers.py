#!/usr/bin/env python3
"""alloc_peers: the frameworks' allocators, against bench/alloc.

Times, from Python, alloc+free of a cached block on the current stream at
the sizes bench/alloc uses (512 B, 64 KiB, 1 MiB, 16 MiB, 64 MiB):

  * PyTorch's caching allocator: torch.cuda.caching_allocator_alloc /
    caching_allocator_delete;
  * CuPy's MemoryPool: pool.malloc(n) and dropping the MemoryPointer;
  * torch.empty(1, device="cuda") created and deleted (a tensor's whole
    allocation path);

plus an empty loop of the same shape (the interpreter's own cost per
iteration, included in every figure above). Each sample is one batch's mean
per iteration; p50/p99 are nearest-rank over the batches, as bench/report
computes them.

Writes DIR/alloc_peers.json in the bench/report schema (benchmark, device,
backend, driver_version, date, commit, notes, rows of name/labels/metrics).
Without torch, CuPy or a GPU it writes what it could measure and a note
saying what failed, and exits 1.

    python3 bench/peer/alloc_peers.py --out bench/results
"""

import argparse
import platform
import sys
import time

from _peer import NONE_MEASURED, Report, import_cupy, import_torch, measure_each, summarize

SIZES = [512, 64 << 10, 1 << 20, 16 << 20, 64 << 20]


def size_label(n):
    if n >= 1 << 20 and n % (1 << 20) == 0:
        return "%d MiB" % (n >> 20)
    if n >= 1 << 10 and n % (1 << 10) == 0:
        return "%d KiB" % (n >> 10)
    return "%d B" % n


def time_batches(batches, batch, op):
    """Per-iteration nanoseconds of each batch of `batch` calls to op."""
    out = []
    for _ in range(batches):
        t = time.perf_counter_ns()
        for _ in range(batch):
            op()
        out.append((time.perf_counter_ns() - t) / batch)
    return out


def markdown(rep):
    lines = [
        rep.heading(),
        "",
        "| resource | size | p50_ns | p99_ns | min_ns |",
        "| --- | --- | --- | --- | --- |",
    ]
    for r in rep.rows:
        m = r["metrics"]
        lines.append("| %s | %s | %.1f | %.1f | %.1f |" % (
            r["labels"].get("resource", ""), r["labels"].get("size", ""),
            m["p50_ns"], m["p99_ns"], m["min_ns"]))
    lines += [""] + rep.notes
    return "\n".join(lines)


def bench_torch(rep, batches, batch):
    torch = import_torch(rep)
    if torch is None:
        return False
    dev = torch.cuda.current_device()
    stream = torch.cuda.current_stream()
    alloc, delete = torch.cuda.caching_allocator_alloc, torch.cuda.caching_allocator_delete
    for n in SIZES:
        def op():
            delete(alloc(n, dev, stream))
        time_batches(3, batch, op)  # warm up: the block is cached from here on
        m = summarize(time_batches(batches, batch, op))
        rep.add("hot", {"resource": "torch caching allocator", "size": size_label(n),
                        "api": "torch.cuda.caching_allocator_alloc/delete"}, m)

    def empty():
        t = torch.empty(1, device="cuda")
        del t
    time_batches(3, batch, empty)
    rep.add("hot", {"resource": "torch.empty(1) + del", "size": "4 B", "api": "torch.empty"},
            summarize(time_batches(batches, batch, empty)))
    torch.cuda.synchronize()
    rep.note("PyTorch %s (CUDA %s), caching allocator on the current stream of %s." % (
        torch.__version__, torch.version.cuda, rep.device))
    return True


def bench_cupy(rep, batches, batch):
    cupy = import_cupy(rep)
    if cupy is None:
        return False
    pool = cupy.cuda.MemoryPool()
    for n in SIZES:
        def op():
            mem = pool.malloc(n)
            del mem  # back to the pool
        time_batches(3, batch, op)
        m = summarize(time_batches(batches, batch, op))
        rep.add("hot", {"resource": "cupy MemoryPool", "size": size_label(n),
                        "api": "MemoryPool.malloc + del"}, m)
    cupy.cuda.Device().synchronize()
    pool.free_all_blocks()
    rep.note("CuPy %s, a private cupy.cuda.MemoryPool on the current stream." % cupy.__version__)
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default="", help="directory for alloc_peers.json (none: print only)")
    ap.add_argument("--batches", type=int, default=200)
    ap.add_argument("--batch", type=int, default=1000)
    args = ap.parse_args()

    rep = Report("alloc_peers")
    # The interpreter's cost per loop iteration and call, in every figure.
    rep.add("hot", {"resource": "python loop + call (floor)", "size": "-", "api": "none"},
            summarize(time_batches(args.batches, args.batch, lambda: None)))
    measured = measure_each(rep, (("PyTorch", bench_torch), ("CuPy", bench_cupy)), args.batches, args.batch)
    rep.note("Per alloc+free pair timed from Python %s: %d batches of %d, each sample one batch's mean; "
             "the floor row is the loop and call alone." % (platform.python_version(), args.batches, args.batch))
    if not measured:
        rep.note(NONE_MEASURED)
    rep.write(args.out)
    print(markdown(rep))
    return rep.exit_code()


if __name__ == "__main__":
    sys.exit(main())
