#!/usr/bin/env python3
"""linalg_peers: PyTorch's side of bench/linalg (torch.linalg on the GPU).

The same cases as bench/linalg, measured the same way: host wall time of
one call with the stream synchronized after it (torch.linalg's checked
functions synchronize anyway, to read their info), the result freed, p50
over the samples after one warm-up call:

  1. torch.linalg.solve of an 8192×8192 system with a 8192×1 right-hand
     side, float64 and float32;
  2. torch.linalg.cholesky of an 8192×8192 symmetric positive definite
     matrix (m·mᵀ/n + I), float64 and float32;
  3. torch.linalg.svd (full_matrices=True) and torch.linalg.svdvals of a
     4096×4096 float32 matrix;
  4. torch.linalg.eigh of a 4096×4096 symmetric float32 matrix;
  5. torch.linalg.solve of 10,000 float32 systems of 32×32, b 32×1 each;
  6. torch.fft.fft of 2²⁴ complex64 points, torch.fft.rfft of 2²⁶ float32
     points and torch.fft.fft2 of a 4096×4096 complex64 matrix.

When DIR holds linalg.json from bench/linalg (the GPU bundle runs the Go
programs first), its sizes are used, and "vs gpuarr" rows give torch's
p50 over gpuarr's with the issue's targets (met: 1 or 0).

Writes DIR/linalg_peers.json in the bench/report schema. Without torch or
a GPU it writes a note and exits 0.

    python3 bench/peer/linalg_peers.py --out bench/results
"""

import argparse
import json
import os
import sys
import time

import _peer

# The targets: torch's time over gpuarr's, at least this.
TARGETS = {"Solve": 0.95, "Cholesky": 0.95, "SVD": 0.9, "Eigh": 0.9, "Solve batched": 0.9,
           "FFT": 0.95, "RFFT": 0.95, "FFT2": 0.95}


def wall_times(torch, samples, op):
    """Wall time of op() with a synchronization, per sample, after one warm-up."""
    op()
    torch.cuda.synchronize()
    out = []
    for _ in range(samples):
        t = time.perf_counter_ns()
        op()
        torch.cuda.synchronize()
        out.append(float(time.perf_counter_ns() - t))
    return out


def add(rep, name, dtype, size, path, ns, extra=None):
    m = _peer.summarize(ns)
    m.pop("mean_ns", None)
    m.update(extra or {})
    rep.add(name, {"dtype": dtype, "size": size, "path": path}, m)


def bench_torch(torch, rep, sz, samples, small_samples, fft_samples):
    g = torch.Generator(device="cuda")
    g.manual_seed(1)
    dt = {"float32": torch.float32, "float64": torch.float64}

    def randn(shape, dtype):
        return torch.randn(shape, device="cuda", dtype=dtype, generator=g)

    n = sz["solve"]
    for name in ("float64", "float32"):
        a, b = randn((n, n), dt[name]), randn((n, 1), dt[name])

        def solve():
            x = torch.linalg.solve(a, b)
            del x

        add(rep, "Solve", name, "%d×%d, b %d×1" % (n, n, n), "torch.linalg.solve", wall_times(torch, samples, solve))
        del a, b
        m = randn((n, n), dt[name])
        spd = m @ m.T / n + torch.eye(n, device="cuda", dtype=dt[name])
        del m

        def chol():
            l = torch.linalg.cholesky(spd)
            del l

        add(rep, "Cholesky", name, "%d×%d" % (n, n), "torch.linalg.cholesky", wall_times(torch, samples, chol))
        del spd
        torch.cuda.empty_cache()

    n = sz["svd"]
    a = randn((n, n), torch.float32)

    def svd():
        u, s, vh = torch.linalg.svd(a, full_matrices=True)
        del u, s, vh

    def svdvals():
        s = torch.linalg.svdvals(a)
        del s

    add(rep, "SVD", "float32", "%d×%d" % (n, n), "torch.linalg.svd full", wall_times(torch, max(2, samples // 2), svd))
    add(rep, "SVDVals", "float32", "%d×%d" % (n, n), "torch.linalg.svdvals", wall_times(torch, max(2, samples // 2), svdvals))
    sym = a + a.T
    del a

    def eigh():
        w, v = torch.linalg.eigh(sym)
        del w, v

    add(rep, "Eigh", "float32", "%d×%d" % (n, n), "torch.linalg.eigh", wall_times(torch, samples, eigh))
    del sym

    n, count = sz["batch_n"], sz["batch"]
    a = randn((count, n, n), torch.float32) + n / 4 * torch.eye(n, device="cuda")
    b = randn((count, n, 1), torch.float32)

    def bsolve():
        x = torch.linalg.solve(a, b)
        del x

    add(rep, "Solve batched", "float32", "%d × %d×%d, b %d×1" % (count, n, n, n), "torch.linalg.solve",
        wall_times(torch, small_samples, bsolve))
    del a, b
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    bench_fft(torch, rep, sz, fft_samples, randn)
    return True


def pow2(n):
    return "2^%d" % (n.bit_length() - 1) if n > 0 and n & (n - 1) == 0 else str(n)


def bench_fft(torch, rep, sz, samples, randn):
    """torch.fft's side of bench/linalg's FFT cases."""
    n = sz["fft"]
    x = torch.complex(randn((n,), torch.float32), randn((n,), torch.float32))

    def fft1():
        y = torch.fft.fft(x)
        del y

    add(rep, "FFT", "complex64", pow2(n), "torch.fft.fft", wall_times(torch, samples, fft1))
    del x
    n = sz["rfft"]
    r = randn((n,), torch.float32)

    def rfft():
        y = torch.fft.rfft(r)
        del y

    add(rep, "RFFT", "float32", pow2(n), "torch.fft.rfft", wall_times(torch, samples, rfft))
    del r
    n = sz["fft2"]
    m = torch.complex(randn((n, n), torch.float32), randn((n, n), torch.float32))

    def fft2():
        y = torch.fft.fft2(m)
        del y

    add(rep, "FFT2", "complex64", "%d×%d" % (n, n), "torch.fft.fft2", wall_times(torch, samples, fft2))
    del m
    torch.cuda.synchronize()
    torch.cuda.empty_cache()


def sizes_from(gp):
    """The sizes bench/linalg used (its rows' n and batch metrics)."""
    sz = {"solve": 8192, "svd": 4096, "batch_n": 32, "batch": 10000, "fft": 1 << 24, "rfft": 1 << 26, "fft2": 4096}
    for r in (gp or {}).get("rows", []):
        m = r.get("metrics", {})
        if "n" not in m:
            continue
        if r["name"] == "Solve":
            sz["solve"] = int(m["n"])
        elif r["name"] == "SVD":
            sz["svd"] = int(m["n"])
        elif r["name"] == "Solve batched":
            sz["batch_n"], sz["batch"] = int(m["n"]), int(m["batch"])
        elif r["name"] == "FFT":
            sz["fft"] = int(m["n"])
        elif r["name"] == "RFFT":
            sz["rfft"] = int(m["n"])
        elif r["name"] == "FFT2":
            sz["fft2"] = int(m["n"])
    return sz


def compare(rep, gp):
    """The "vs gpuarr" rows: torch's p50 over gpuarr's, for each case both
    measured, with the issue's target where it sets one."""
    if not gp:
        return
    if gp.get("device") != rep.device:
        rep.note("vs gpuarr: not compared: linalg.json was measured on %s, this run on %s." % (gp.get("device"), rep.device))
        return
    mine = {(r["name"], r["labels"]["dtype"]): r["metrics"] for r in rep.rows}
    for r in gp.get("rows", []):
        key = (r["name"], r.get("labels", {}).get("dtype"))
        gm, pm = r.get("metrics", {}), mine.get(key)
        if pm is None or not gm.get("p50_ns"):
            continue
        ratio = pm["p50_ns"] / gm["p50_ns"]
        m = {"ratio": ratio, "gpuarr_p50_ns": gm["p50_ns"], "peer_p50_ns": pm["p50_ns"]}
        target = TARGETS.get(r["name"])
        if target is not None:
            m["target"] = target
            m["met"] = 1.0 if ratio >= target else 0.0
            if ratio < target:
                rep.note("Missed: %s %s is %.3f× torch (target %.2f)." % (r["name"], key[1], ratio, target))
        rep.add("vs gpuarr", {"dtype": key[1], "size": r["labels"].get("size", ""), "path": r["name"]}, m)
    rep.note("vs gpuarr: ratio is torch's p50 over gpuarr's, so above 1 gpuarr is faster; gpuarr's figures come from linalg.json (commit %s) of the same run; met is 1 when the issue's target holds." % gp.get("commit", ""))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="", help="directory for linalg_peers.json (none: print only); "
                    "its linalg.json, if any, gives the sizes and the ratios")
    ap.add_argument("--gpuarr", default="", help="bench/linalg's JSON (default: OUT/linalg.json)")
    ap.add_argument("--samples", type=int, default=7)
    ap.add_argument("--batch-samples", type=int, default=30)
    ap.add_argument("--fft-samples", type=int, default=100)
    args = ap.parse_args()
    rep = _peer.Report("linalg_peers")
    gp = None
    gpath = args.gpuarr or (os.path.join(args.out, "linalg.json") if args.out else "")
    if gpath and os.path.exists(gpath):
        with open(gpath) as f:
            gp = json.load(f)
    sz = sizes_from(gp)
    rep.note("Samples are host wall time per call, stream synchronized, result freed; p50 over %d samples (%d for the batched solve, %d for the FFTs) after one warm-up call; sizes %s%s." % (
        args.samples, args.batch_samples, args.fft_samples, sz, " (from linalg.json)" if gp else ""))
    torch = _peer.import_torch(rep)
    if torch is not None:
        rep.note("PyTorch %s, CUDA %s." % (torch.__version__, torch.version.cuda))
        if _peer.measure_each(rep, [("torch.linalg", lambda r: bench_torch(torch, r, sz, args.samples, args.batch_samples, args.fft_samples))]):
            compare(rep, gp)
    else:
        rep.note(_peer.NONE_MEASURED)
    doc = rep.write(args.out)
    print(rep.heading())
    for r in doc["rows"]:
        print("| %s | %s | %s | %s |" % (r["name"], r["labels"].get("dtype", ""), r["labels"].get("size", ""),
                                        ", ".join("%s=%.4g" % kv for kv in sorted(r["metrics"].items()))))
    for n in doc["notes"]:
        print(n)
    return 0


if __name__ == "__main__":
    sys.exit(main())
