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
Without torch, CuPy or a GPU it writes what it could measure and a note, and
exits 0.

    python3 bench/peer/alloc_peers.py --out bench/results
"""

import argparse
import ctypes
import datetime
import json
import math
import os
import platform
import sys
import time

SIZES = [512, 64 << 10, 1 << 20, 16 << 20, 64 << 20]


def size_label(n):
    if n >= 1 << 20 and n % (1 << 20) == 0:
        return "%d MiB" % (n >> 20)
    if n >= 1 << 10 and n % (1 << 10) == 0:
        return "%d KiB" % (n >> 10)
    return "%d B" % n


def percentile(samples, p):
    """Nearest rank, as bench/report.Percentile."""
    if not samples:
        return 0.0
    s = sorted(samples)
    rank = int(p / 100.0 * len(s) + 0.5) - 1
    return s[min(max(rank, 0), len(s) - 1)]


def time_batches(batches, batch, op):
    """Per-iteration nanoseconds of each batch of `batch` calls to op."""
    out = []
    for _ in range(batches):
        t = time.perf_counter_ns()
        for _ in range(batch):
            op()
        out.append((time.perf_counter_ns() - t) / batch)
    return out


def summarize(samples):
    return {
        "p50_ns": percentile(samples, 50),
        "p99_ns": percentile(samples, 99),
        "min_ns": min(samples) if samples else 0.0,
        "mean_ns": sum(samples) / len(samples) if samples else 0.0,
    }


def driver_version():
    """cuDriverGetVersion through libcuda (0 when there is none)."""
    try:
        lib = ctypes.CDLL("libcuda.so.1")
        v = ctypes.c_int(0)
        if lib.cuDriverGetVersion(ctypes.byref(v)) == 0:
            return v.value
    except OSError:
        pass
    return 0


def go_time(dt):
    """The date as Go's time.Time marshals it (RFC 3339, UTC)."""
    return dt.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class Report:
    def __init__(self):
        self.device = "none"
        self.backend = "none"
        self.notes = []
        self.rows = []

    def add(self, name, labels, metrics):
        self.rows.append({"name": name, "labels": labels, "metrics": metrics})

    def note(self, text):
        self.notes.append(text)

    def write(self, out_dir):
        doc = {
            "benchmark": "alloc_peers",
            "device": self.device,
            "backend": self.backend,
            "driver_version": driver_version(),
            "date": go_time(datetime.datetime.now(datetime.timezone.utc)),
            "commit": os.environ.get("GPUARR_COMMIT", ""),
            "notes": self.notes,
            "rows": self.rows,
        }
        text = json.dumps(doc, indent=2) + "\n"
        if out_dir:
            os.makedirs(out_dir, exist_ok=True)
            with open(os.path.join(out_dir, "alloc_peers.json"), "w") as f:
                f.write(text)
        return doc

    def markdown(self):
        lines = [
            "### alloc_peers — %s (driver %d)" % (self.device, driver_version()),
            "",
            "| resource | size | p50_ns | p99_ns | min_ns |",
            "| --- | --- | --- | --- | --- |",
        ]
        for r in self.rows:
            m = r["metrics"]
            lines.append("| %s | %s | %.1f | %.1f | %.1f |" % (
                r["labels"].get("resource", ""), r["labels"].get("size", ""),
                m["p50_ns"], m["p99_ns"], m["min_ns"]))
        lines += [""] + self.notes
        return "\n".join(lines)


def bench_torch(rep, batches, batch):
    try:
        import torch
    except Exception as e:  # ImportError, or a broken install
        rep.note("PyTorch not measured: import torch failed (%s)." % e)
        return False
    if not torch.cuda.is_available():
        rep.note("PyTorch %s not measured: torch.cuda.is_available() is False." % torch.__version__)
        return False
    dev = torch.cuda.current_device()
    rep.device, rep.backend = torch.cuda.get_device_name(dev), "cuda"
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
    try:
        import cupy
    except Exception as e:
        rep.note("CuPy not measured: import cupy failed (%s)." % e)
        return False
    try:
        if cupy.cuda.runtime.getDeviceCount() == 0:
            rep.note("CuPy %s not measured: no CUDA device." % cupy.__version__)
            return False
        props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
        name = props["name"]
        rep.device = name.decode() if isinstance(name, bytes) else name
        rep.backend = "cuda"
    except Exception as e:
        rep.note("CuPy not measured: %s." % e)
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

    rep = Report()
    # The interpreter's cost per loop iteration and call, in every figure.
    rep.add("hot", {"resource": "python loop + call (floor)", "size": "-", "api": "none"},
            summarize(time_batches(args.batches, args.batch, lambda: None)))
    measured = []
    for name, bench in (("PyTorch", bench_torch), ("CuPy", bench_cupy)):
        try:
            measured.append(bench(rep, args.batches, args.batch))
        except Exception as e:  # report, don't fail the GPU run
            rep.note("%s measurement failed: %s: %s." % (name, type(e).__name__, e))
            measured.append(False)
    rep.note("Per alloc+free pair timed from Python %s: %d batches of %d, each sample one batch's mean; "
             "the floor row is the loop and call alone." % (platform.python_version(), args.batches, args.batch))
    if not any(measured):
        rep.note("Neither PyTorch nor CuPy could be measured on this machine.")
    rep.write(args.out)
    print(rep.markdown())
    return 0


if __name__ == "__main__":
    sys.exit(main())
