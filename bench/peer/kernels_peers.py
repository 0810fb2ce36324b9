#!/usr/bin/env python3
"""kernels_peers: the PyTorch and CuPy side of bench/kernels.

Times, on the same GPU and at the same sizes as bench/kernels:

  1. a + b, float32, n elements: torch.add(a, b, out=c), cupy.add(a, b,
     out=c) (device time, cuda events; gbps = 3 arrays x 4 B x n / time);
  2. a*b + c: PyTorch eager a*b+c (two kernels and a temporary; the result
     allocated), torch.addcmul(c, a, b, out=d) (one kernel), CuPy a*b+c and
     cupy.fuse'd a*b+c;
  3. torch.sum(a), cupy.sum(a): device time, and host wall time of a batch
     with one synchronize;
  4. torch.matmul of two n x n float32 matrices with
     torch.backends.cuda.matmul.allow_tf32 = False (allocating, and out=),
     cupy.matmul (TFLOP/s = 2n^3 / time); torch.bmm and cupy.matmul of two
     stacks of b matrices n x n (TFLOP/s = 2bn^3 / time);
  4b. torch.var, torch.std of all the elements of a float32 array, and
     torch.sum and torch.var over its first two axes (CuPy's too), device
     time;
  5. a + b on 1,024 elements from Python, host time per op: batches of
     calls, synchronized between batches (torch.add(a, b, out=c), a + b,
     cupy.add(out=), and the interpreter's empty loop);
  6. the elementwise functions of issue 27 (bench/kernels/functions.go):
     each torch function with out= where torch has it (isnan, isinf and
     isfinite allocate their result: they take no out=) on the same
     operands' ranges (MATH below; torch has no cbrt: torch.pow(p, 1/3)
     on positive p), the functions of a group interleaved, n elements;
  7. the 3-op chain sin(a*b + c): torch eager (three kernels, two
     temporaries, the result allocated), CuPy eager and cupy.fuse'd;
  8. float16 and bfloat16: torch.add(a, b, out=c) at n elements (CuPy's
     cupy.add for float16; CuPy has no bfloat16), torch.matmul at the
     matmul size (cuBLAS, float32 accumulation, torch's default
     reduced-precision-reduction flags, recorded in a note);
  8b. with --kernels-bin (bench/kernels' binary; the GPU bundle passes
     it), the float16 and bfloat16 matmuls again in --rounds rounds, each
     running that binary's matmul case alone and torch.matmul back to
     back in alternating order, once after two warm-up matmuls and once
     after --matmul-warm-ms of them: their targets are judged on the
     median of the latter rounds' ratios (alternated_half_matmul says
     why).

Row names match bench/kernels' rows. When DIR (--out) already holds
kernels.json from bench/kernels (the GPU bundle runs the Go programs
first), its sizes are used, and "vs gpuarr" rows give the ratios against
the issue's targets (met: 1 or 0) when both ran on the same device.

Writes DIR/kernels_peers.json in the bench/report schema (benchmark, device,
backend, driver_version, date, commit, notes, rows of name/labels/metrics).
Without torch, CuPy or a GPU it writes what it could measure and a note, and
exits 0.

    python3 bench/peer/kernels_peers.py --out bench/results
"""

import argparse
import json
import os
import platform
import re
import sys
import time

import _peer
from _peer import NONE_MEASURED, import_cupy, import_torch, measure_each, percentile, summarize

# Row names shared with bench/kernels (stream.go, matmul.go, small.go).
CASE_ADD = "a + b, float32"
CASE_FUSED = "a*b + c, float32"
CASE_SUM = "Sum, float32"
CASE_MATMUL = "matmul, float32, no TF32"
CASE_BMM = "batched matmul, float32, no TF32"
CASE_VAR = "Var, float32"
CASE_STD = "Std, float32"
CASE_SUM2 = "Sum over two axes, float32"
CASE_SMALL = "small a + b, float32, host time per op"
CASE_VS = "vs gpuarr"
CASE_CHAIN = "Sin(a*b + c), float32: a 3-op chain"


def case_half_add(dt):
    return "a + b, " + dt


def case_half_matmul(dt):
    return "matmul, " + dt + ", float32 accumulation"


# The elementwise functions of bench/kernels/functions.go, in its order:
# (row name, gpuarr's path, torch's path, bytes read and written per
# element, make), make(torch, t) giving the call to time on the tensors t
# (u, p, w, o: float32; a, k, io: int32). The ranges are functions.go's: u in [-0.99, 0.99), p in
# [1, 4), w standard normal, a in [0, 1e9), k in [0, 32).
U_RANGE = ", u in [-0.99, 0.99)"
P_RANGE = ", p in [1, 4)"
UP_RANGE = ", u in [-0.99, 0.99), p in [1, 4)"
AK_RANGE = ", a in [0, 1e9), k in [0, 32)"
W_RANGE = ", w ~ N(0, 1)"


def _math_table():
    rows = []

    def unary(name, torch_name, operand="u"):
        rng = {"u": U_RANGE, "p": P_RANGE, "w": W_RANGE}[operand]
        suffix = ", w ~ N(0,1)" if operand == "w" else ""
        rows.append((name + ", float32" + suffix, "gpuarr.EvalInto(o, %s(%s))%s" % (name, operand, rng),
                     "torch.%s(%s, out=o)%s" % (torch_name, operand, rng), 8,
                     lambda torch, t: (lambda f=getattr(torch, torch_name), x=t[operand], o=t["o"]: f(x, out=o))))

    def binary(name, torch_name, x="u", y="p"):
        rows.append((name + ", float32", "gpuarr.EvalInto(o, %s(%s, %s))%s" % (name, x, y, UP_RANGE),
                     "torch.%s(%s, %s, out=o)%s" % (torch_name, x, y, UP_RANGE), 12,
                     lambda torch, t: (lambda f=getattr(torch, torch_name), a=t[x], b=t[y], o=t["o"]: f(a, b, out=o))))

    def mask(name, torch_name):
        rows.append((name + ", float32 → bool", "gpuarr.EvalInto(m, %s(u))%s" % (name, U_RANGE),
                     "torch.%s(u) (result allocated: it takes no out=)%s" % (torch_name, U_RANGE), 5,
                     lambda torch, t: (lambda f=getattr(torch, torch_name), x=t["u"]: f(x))))

    def integer(name, call, torch_name, args, nbytes):
        rows.append((name + ", int32", "gpuarr.EvalInto(o, %s)%s" % (call, AK_RANGE),
                     "torch.%s(%s, out=o)%s" % (torch_name, ", ".join(args), AK_RANGE), nbytes,
                     lambda torch, t: (lambda f=getattr(torch, torch_name), xs=tuple(t[v] for v in args), o=t["io"]: f(*xs, out=o))))

    for name in ("Sin", "Cos", "Tan", "Asin", "Acos", "Atan"):
        unary(name, name.lower())
    binary("Atan2", "atan2")
    for name in ("Sinh", "Cosh", "Tanh", "Asinh"):
        unary(name, name.lower())
    unary("Acosh", "acosh", "p")
    for name in ("Atanh", "Exp", "Exp2", "Expm1"):
        unary(name, name.lower())
    for name in ("Log", "Log2", "Log10", "Log1p", "Sqrt"):
        unary(name, name.lower(), "p")
    rows.append(("Cbrt, float32", "gpuarr.EvalInto(o, Cbrt(p))" + P_RANGE,
                 "torch.pow(p, 1/3, out=o) (torch has no cbrt; p > 0)" + P_RANGE, 8,
                 lambda torch, t: (lambda p=t["p"], o=t["o"]: torch.pow(p, 1.0 / 3.0, out=o))))
    unary("Rsqrt", "rsqrt", "p")
    for name in ("Floor", "Ceil", "Trunc", "Round", "Sign", "Abs", "Erf", "Erfc"):
        unary(name, name.lower())
    binary("Hypot", "hypot")
    binary("Copysign", "copysign", "p", "u")
    binary("Pow", "pow", "p", "u")
    binary("FloorDiv", "floor_divide")
    binary("Mod", "remainder")
    binary("Rem", "fmod")
    for name in ("IsNaN", "IsInf", "IsFinite"):
        mask(name, name.lower())
    binary("Minimum", "minimum")
    binary("Maximum", "maximum")
    binary("Fmin", "fmin")
    binary("Fmax", "fmax")
    rows.append(("Clamp (NumPy's clip), float32", "gpuarr.EvalInto(o, Clamp(u, -0.5, 0.5))" + U_RANGE,
                 "torch.clamp(u, -0.5, 0.5, out=o)" + U_RANGE, 8,
                 lambda torch, t: (lambda u=t["u"], o=t["o"]: torch.clamp(u, -0.5, 0.5, out=o))))
    # The functions whose float32 arithmetic changes with |x| (at 1; erfc
    # at 1/2), on data on both sides (a third of w beyond 1).
    for name in ("Atan", "Sinh", "Cosh", "Tanh", "Asinh", "Expm1", "Erf", "Erfc"):
        unary(name, name.lower(), "w")
    integer("BitAnd", "BitAnd(a, k)", "bitwise_and", ("a", "k"), 12)
    integer("BitOr", "BitOr(a, k)", "bitwise_or", ("a", "k"), 12)
    integer("BitXor", "BitXor(a, k)", "bitwise_xor", ("a", "k"), 12)
    integer("Invert", "Invert(a)", "bitwise_not", ("a",), 8)
    integer("LeftShift", "LeftShift(a, k)", "bitwise_left_shift", ("a", "k"), 12)
    integer("RightShift", "RightShift(a, k)", "bitwise_right_shift", ("a", "k"), 12)
    return rows


MATH = _math_table()

# Targets (bench/kernels/main.go has the same).
TARGET_ADD = 0.95     # gpuarr GB/s / torch.add(out=)'s
TARGET_FUSED = 1.3    # torch eager a*b+c time / gpuarr fused time
TARGET_SUM = 0.90     # torch.sum time / gpuarr Sum time
TARGET_MATMUL = 0.95  # gpuarr TFLOP/s / torch.matmul's
TARGET_BMM = 0.95     # gpuarr batched TFLOP/s / torch.bmm's
TARGET_STATS = 0.90   # torch.var/std/sum(dim=(0,1)) time / gpuarr's
TARGET_SMALL = 1.0    # torch.add(out=) host time / gpuarr EvalInto's
TARGET_MATH = 0.95    # gpuarr function throughput / the torch function's
TARGET_CHAIN = 1.3    # torch eager sin(a*b+c) time / gpuarr fused time
TARGET_HALF_ADD = 0.95     # float16, bfloat16 a+b: gpuarr GB/s / torch.add(out=)'s
TARGET_HALF_MATMUL = 0.95  # float16, bfloat16: gpuarr TFLOP/s / torch.matmul's


def size_label(n):
    if n > 0 and n & (n - 1) == 0:
        return "2^%d" % (n.bit_length() - 1)
    return str(n)


class Report(_peer.Report):
    """Rows labelled by the path timed and the size, as bench/kernels'."""

    def __init__(self):
        super().__init__("kernels_peers")

    def add_case(self, name, path, size, metrics):
        return self.add(name, {"path": path, "size": size}, metrics)

    def find(self, name, path):
        for r in self.rows:
            if r["name"] == name and r["labels"].get("path") == path:
                return r["metrics"]
        return None

    def markdown(self):
        keys = ["p50_ns", "p99_ns", "gbps", "tflops", "ratio"]
        lines = [
            self.heading(),
            "",
            "| case | path | size | " + " | ".join(keys) + " | target | verdict |",
            "|" + " --- |" * (5 + len(keys)),
        ]
        misses = []
        for r in self.rows:
            m, ts = r["metrics"], r.get("targets", [])
            cells = [r["name"], r["labels"].get("path", ""), r["labels"].get("size", "")]
            cells += ["%.4g" % m[k] if k in m else "—" for k in keys]
            if ts:
                met = all(t["met"] for t in ts)
                cells += [", ".join("%s %s %.4g" % (t["metric"], t["op"], t["value"]) for t in ts), "met" if met else "missed"]
                if not met:
                    misses.append("- Missed: %s: %s" % (r["labels"].get("path", r["name"]), "; ".join(
                        "%s = %.4g (target %s %.4g)" % (t["metric"], m.get(t["metric"], float("nan")), t["op"], t["value"]) for t in ts)))
            else:
                cells += ["—", "—"]
            lines.append("| " + " | ".join(cells) + " |")
        judged = sum(1 for r in self.rows if r.get("targets"))
        if judged:
            lines += ["", "Targets: %d judged, %d met, %d missed." % (judged, judged - len(misses), len(misses))] + misses
        lines += [""] + self.notes
        return "\n".join(lines)


class Sizes:
    def __init__(self, n, mat, small, bmm=(512, 256), stat=(4096, 4096, 16)):
        self.n, self.mat, self.small = n, mat, small
        self.bmm, self.stat = bmm, stat


def sizes_from(gp, sizes):
    """The sizes bench/kernels used, read from its size labels."""
    for r in gp.get("rows", []):
        size = r.get("labels", {}).get("size", "")
        m = re.fullmatch(r"2\^(\d+)", size)
        if r["name"] in (CASE_ADD, CASE_FUSED, CASE_SUM) and m:
            sizes.n = 1 << int(m.group(1))
        m = re.fullmatch(r"(\d+)×\d+", size)
        if r["name"] == CASE_MATMUL and m:
            sizes.mat = int(m.group(1))
        if r["name"] == CASE_SMALL and size.isdigit():
            sizes.small = int(size)
        m = re.fullmatch(r"(\d+)×(\d+)×(\d+)", size)
        if r["name"] == CASE_BMM and m:
            sizes.bmm = (int(m.group(1)), int(m.group(2)))
        if r["name"] in (CASE_VAR, CASE_STD, CASE_SUM2) and m:
            sizes.stat = tuple(int(g) for g in m.groups())
    return sizes


def interleaved(samples, ops, timed):
    """timed(op) of each op, samples times, the ops in rotating order:
    the samples of each op, in the order of ops."""
    got = [[] for _ in ops]
    for i in range(samples):
        for j in range(len(ops)):
            k = (i + j) % len(ops)
            got[k].append(timed(ops[k]))
    return got


def device_times(make_event, elapsed_ms, sync, samples, batch, ops, warm=3):
    """Per-op device nanoseconds of each path in ops: samples of `batch`
    calls between two timing events, paths interleaved."""
    start, end = make_event(), make_event()
    for op in ops:
        for _ in range(warm):
            op()
    sync()

    def timed(op):
        start.record()
        for _ in range(batch):
            op()
        end.record()
        end.synchronize()
        return elapsed_ms(start, end) * 1e6 / batch

    return interleaved(samples, ops, timed)


def host_times(sync, batches, batch, ops, warm=5):
    """Per-op host nanoseconds of each path: batches of `batch` calls with
    sync (untimed) after each batch, paths interleaved."""
    for _ in range(warm):
        for op in ops:
            for _ in range(batch):
                op()
            sync()

    def timed(op):
        t = time.perf_counter_ns()
        for _ in range(batch):
            op()
        ns = (time.perf_counter_ns() - t) / batch
        sync()
        return ns

    return interleaved(batches, ops, timed)


def wall_times(sync, samples, batch, op):
    """Host nanoseconds per op of batches of `batch` calls and one sync."""
    out = []
    for _ in range(samples):
        t = time.perf_counter_ns()
        for _ in range(batch):
            op()
        sync()
        out.append((time.perf_counter_ns() - t) / batch)
    return out


def with_rate(m, gbytes=None, flops=None):
    if gbytes is not None and m["p50_ns"] > 0:
        m["gbps"] = gbytes / m["p50_ns"]
        m["bytes_per_op"] = gbytes
    if flops is not None and m["p50_ns"] > 0:
        m["tflops"] = flops / m["p50_ns"] / 1e3
        m["flops_per_op"] = flops
    return m


def guarded(rep, label, case, done):
    """Runs one case; an exception is recorded as a failure (the other
    cases are still measured), and the arrays the case made (its locals)
    are freed by done() either way."""
    try:
        case()
    except Exception as e:  # record, measure the other cases, fail at the end
        rep.fail("%s not measured: %s: %s." % (label, type(e).__name__, str(e).strip()[:300]))
    finally:
        done()


def bench_torch(rep, sz, args):
    torch = import_torch(rep)
    if torch is None:
        return False
    f32 = torch.float32
    ev = lambda: torch.cuda.Event(enable_timing=True)
    ms = lambda s, e: s.elapsed_time(e)
    sync = torch.cuda.synchronize

    def full(shape, v):
        return torch.full(shape, v, dtype=f32, device="cuda")

    def dtimes(ops, samples=args.samples, batch=args.op_batch):
        return device_times(ev, ms, sync, samples, batch, ops)

    def done():
        sync()
        torch.cuda.empty_cache()

    n, size = sz.n, size_label(sz.n)

    def case_add():
        a, b, c = full((n,), 1.25), full((n,), 2.5), torch.empty(n, dtype=f32, device="cuda")
        t, = dtimes([lambda: torch.add(a, b, out=c)])
        rep.add_case(CASE_ADD, "torch.add(a, b, out=c)", size, with_rate(summarize(t), gbytes=12.0 * n))

    def case_fused():
        a, b, c = full((n,), 1.5), full((n,), 2.0), full((n,), 0.25)
        d = torch.empty(n, dtype=f32, device="cuda")
        eager, addcmul = dtimes([lambda: a * b + c, lambda: torch.addcmul(c, a, b, out=d)])
        rep.add_case(CASE_FUSED, "torch eager a*b + c (2 kernels, a temporary, result allocated)", size,
                with_rate(summarize(eager), gbytes=16.0 * n))
        rep.add_case(CASE_FUSED, "torch.addcmul(c, a, b, out=d) (one kernel)", size,
                with_rate(summarize(addcmul), gbytes=16.0 * n))

    def case_sum():
        x = full((n,), 0.5)
        t, = dtimes([lambda: torch.sum(x)])
        rep.add_case(CASE_SUM, "torch.sum(x), device time", size, with_rate(summarize(t), gbytes=4.0 * n))
        w = wall_times(sync, args.samples, args.op_batch, lambda: torch.sum(x))
        rep.add_case(CASE_SUM, "torch.sum(x), host wall, torch.cuda.synchronize per batch", size,
                with_rate(summarize(w), gbytes=4.0 * n))

    def case_matmul():
        m = sz.mat
        torch.backends.cuda.matmul.allow_tf32 = False
        if hasattr(torch, "set_float32_matmul_precision"):
            torch.set_float32_matmul_precision("highest")
        a, b = full((m, m), 1.0), full((m, m), 0.5)
        c = torch.empty((m, m), dtype=f32, device="cuda")
        alloc, into = dtimes([lambda: torch.matmul(a, b), lambda: torch.matmul(a, b, out=c)],
                             samples=max(5, args.samples // 3), batch=max(1, args.op_batch // 5))
        flops = 2.0 * m ** 3
        rep.add_case(CASE_MATMUL, "torch.matmul(a, b), allow_tf32=False", "%d×%d" % (m, m),
                with_rate(summarize(alloc), flops=flops))
        rep.add_case(CASE_MATMUL, "torch.matmul(a, b, out=c), allow_tf32=False", "%d×%d" % (m, m),
                with_rate(summarize(into), flops=flops))

    def case_small():
        k = sz.small
        a, b, c = full((k,), 1.0), full((k,), 2.0), torch.empty(k, dtype=f32, device="cuda")
        into, plus = host_times(sync, args.batches, args.launch_batch,
                                [lambda: torch.add(a, b, out=c), lambda: a + b])
        rep.add_case(CASE_SMALL, "torch.add(a, b, out=c)", str(k), summarize(into))
        rep.add_case(CASE_SMALL, "torch a + b (result allocated)", str(k), summarize(plus))

    def case_bmm():
        bs, m = sz.bmm
        torch.backends.cuda.matmul.allow_tf32 = False
        a, b = full((bs, m, m), 1.0), full((bs, m, m), 0.5)
        c = torch.empty((bs, m, m), dtype=f32, device="cuda")
        alloc, into = dtimes([lambda: torch.bmm(a, b), lambda: torch.bmm(a, b, out=c)])
        flops, size = 2.0 * bs * m ** 3, "%d×%d×%d" % (bs, m, m)
        rep.add_case(CASE_BMM, "torch.bmm(a, b), allow_tf32=False", size, with_rate(summarize(alloc), flops=flops))
        rep.add_case(CASE_BMM, "torch.bmm(a, b, out=c), allow_tf32=False", size, with_rate(summarize(into), flops=flops))

    def case_stats():
        shape = sz.stat
        x = torch.rand(shape, dtype=f32, device="cuda")
        size, gb = "%d×%d×%d" % shape, 4.0 * shape[0] * shape[1] * shape[2]
        v, s, s2, v2 = dtimes([lambda: torch.var(x), lambda: torch.std(x), lambda: torch.sum(x, dim=(0, 1)),
                               lambda: torch.var(x, dim=(0, 1))])
        rep.add_case(CASE_VAR, "torch.var(x)", size, with_rate(summarize(v), gbytes=gb))
        rep.add_case(CASE_STD, "torch.std(x)", size, with_rate(summarize(s), gbytes=gb))
        rep.add_case(CASE_SUM2, "torch.sum(x, dim=(0, 1))", size, with_rate(summarize(s2), gbytes=gb))
        rep.add_case(CASE_VAR, "torch.var(x, dim=(0, 1))", size, with_rate(summarize(v2), gbytes=gb))

    def case_chain():
        a, b, c = full((n,), 1.5), full((n,), 2.0), full((n,), 0.25)
        eager, = dtimes([lambda: torch.sin(a * b + c)])
        rep.add_case(CASE_CHAIN, "torch eager torch.sin(a*b + c) (3 kernels, 2 temporaries, result allocated)", size,
                with_rate(summarize(eager), gbytes=16.0 * n))

    def case_math():
        # The float32 functions (and masks) with u, p, w, o; then the int32
        # ones with a, k, io: at most four n-element tensors at a time.
        t = {"u": torch.rand(n, dtype=f32, device="cuda").mul_(1.98).sub_(0.99),
             "p": torch.rand(n, dtype=f32, device="cuda").mul_(3.0).add_(1.0),
             "w": torch.randn(n, dtype=f32, device="cuda"),
             "o": torch.empty(n, dtype=f32, device="cuda")}
        math_group(t, [r for r in MATH if not r[0].endswith(", int32")])
        t.clear()
        done()
        i32 = torch.int32
        t = {"a": torch.randint(0, 10 ** 9, (n,), dtype=i32, device="cuda"),
             "k": torch.randint(0, 32, (n,), dtype=i32, device="cuda"),
             "io": torch.empty(n, dtype=i32, device="cuda")}
        math_group(t, [r for r in MATH if r[0].endswith(", int32")])

    def math_group(t, rows):
        ops = [r[4](torch, t) for r in rows]
        got = dtimes(ops, samples=args.math_samples)
        for r, g in zip(rows, got):
            rep.add_case(r[0], r[2], size, with_rate(summarize(g), gbytes=r[3] * float(n)))

    def case_half():
        m = sz.mat
        for name, dt in (("float16", torch.float16), ("bfloat16", torch.bfloat16)):
            a, b = torch.full((n,), 1.25, dtype=dt, device="cuda"), torch.full((n,), 2.5, dtype=dt, device="cuda")
            c = torch.empty(n, dtype=dt, device="cuda")
            t, = dtimes([lambda: torch.add(a, b, out=c)])
            rep.add_case(case_half_add(name), "torch.add(a, b, out=c)", size, with_rate(summarize(t), gbytes=6.0 * n))
            x, y = torch.full((m, m), 1.0, dtype=dt, device="cuda"), torch.full((m, m), 0.5, dtype=dt, device="cuda")
            z = torch.empty((m, m), dtype=dt, device="cuda")
            alloc, into = dtimes([lambda: torch.matmul(x, y), lambda: torch.matmul(x, y, out=z)],
                                 samples=max(5, args.samples // 3), batch=max(1, args.op_batch // 5))
            flops, msize = 2.0 * m ** 3, "%d×%d" % (m, m)
            rep.add_case(case_half_matmul(name), "torch.matmul(a, b)", msize, with_rate(summarize(alloc), flops=flops))
            rep.add_case(case_half_matmul(name), "torch.matmul(a, b, out=c)", msize, with_rate(summarize(into), flops=flops))
        flags = torch.backends.cuda.matmul
        rep.note("PyTorch float16/bfloat16 matmul with torch's defaults: allow_fp16_reduced_precision_reduction = %s, "
                 "allow_bf16_reduced_precision_reduction = %s (gpuarr's cublasGemmEx uses the handle's default math "
                 "mode, which allows them too); preferred BLAS library %s." % (
                     getattr(flags, "allow_fp16_reduced_precision_reduction", "?"),
                     getattr(flags, "allow_bf16_reduced_precision_reduction", "?"),
                     torch.backends.cuda.preferred_blas_library() if hasattr(torch.backends.cuda, "preferred_blas_library") else "?"))

    for name, case in (("a + b", case_add), ("a*b + c", case_fused), ("sin(a*b + c)", case_chain),
                       ("elementwise functions", case_math), ("float16, bfloat16", case_half), ("sum", case_sum),
                       ("matmul", case_matmul), ("batched matmul", case_bmm), ("var, std, two-axis sum", case_stats),
                       ("small a + b", case_small)):
        guarded(rep, "PyTorch " + name, case, done)
    rep.note("PyTorch %s (CUDA %s) on %s; matmul with torch.backends.cuda.matmul.allow_tf32 = False." % (
        torch.__version__, torch.version.cuda, rep.device))
    return True


def bench_cupy(rep, sz, args):
    cupy = import_cupy(rep)
    if cupy is None:
        return False
    f32 = cupy.float32
    ev = cupy.cuda.Event
    ms = cupy.cuda.get_elapsed_time
    sync = cupy.cuda.Device().synchronize
    pool = cupy.get_default_memory_pool()

    def dtimes(ops, samples=args.samples, batch=args.op_batch):
        return device_times(ev, ms, sync, samples, batch, ops)

    def done():
        sync()
        pool.free_all_blocks()

    n, size = sz.n, size_label(sz.n)

    def case_add():
        a, b, c = cupy.full(n, 1.25, f32), cupy.full(n, 2.5, f32), cupy.empty(n, f32)
        t, = dtimes([lambda: cupy.add(a, b, out=c)])
        rep.add_case(CASE_ADD, "cupy.add(a, b, out=c)", size, with_rate(summarize(t), gbytes=12.0 * n))

    def case_fused():
        a, b, c = cupy.full(n, 1.5, f32), cupy.full(n, 2.0, f32), cupy.full(n, 0.25, f32)
        plain, = dtimes([lambda: a * b + c])
        rep.add_case(CASE_FUSED, "cupy a*b + c (2 kernels, a temporary)", size, with_rate(summarize(plain), gbytes=16.0 * n))

        def mul_add(x, y, z):  # a named function: cupy.fuse names its kernel after it
            return x * y + z
        fused = cupy.fuse(mul_add)
        fz, = dtimes([lambda: fused(a, b, c)])
        rep.add_case(CASE_FUSED, "cupy.fuse(a*b + c) (one kernel)", size, with_rate(summarize(fz), gbytes=16.0 * n))

    def case_sum():
        x = cupy.full(n, 0.5, f32)
        t, = dtimes([lambda: cupy.sum(x)])
        rep.add_case(CASE_SUM, "cupy.sum(x), device time", size, with_rate(summarize(t), gbytes=4.0 * n))

    def case_matmul():
        m = sz.mat
        a, b = cupy.full((m, m), 1.0, f32), cupy.full((m, m), 0.5, f32)
        t, = dtimes([lambda: cupy.matmul(a, b)], samples=max(5, args.samples // 3), batch=max(1, args.op_batch // 5))
        rep.add_case(CASE_MATMUL, "cupy.matmul(a, b)", "%d×%d" % (m, m), with_rate(summarize(t), flops=2.0 * m ** 3))

    def case_small():
        k = sz.small
        a, b, c = cupy.full(k, 1.0, f32), cupy.full(k, 2.0, f32), cupy.empty(k, f32)
        into, = host_times(sync, args.batches, args.launch_batch, [lambda: cupy.add(a, b, out=c)])
        rep.add_case(CASE_SMALL, "cupy.add(a, b, out=c)", str(k), summarize(into))

    def case_bmm():
        bs, m = sz.bmm
        a, b = cupy.full((bs, m, m), 1.0, dtype=f32), cupy.full((bs, m, m), 0.5, dtype=f32)
        t, = dtimes([lambda: cupy.matmul(a, b)])
        rep.add_case(CASE_BMM, "cupy.matmul(a, b)", "%d×%d×%d" % (bs, m, m), with_rate(summarize(t), flops=2.0 * bs * m ** 3))

    def case_stats():
        shape = sz.stat
        x = cupy.random.random_sample(shape, dtype=f32)
        size, gb = "%d×%d×%d" % shape, 4.0 * shape[0] * shape[1] * shape[2]
        v, s, s2 = dtimes([lambda: cupy.var(x), lambda: cupy.std(x), lambda: cupy.sum(x, axis=(0, 1))])
        rep.add_case(CASE_VAR, "cupy.var(x)", size, with_rate(summarize(v), gbytes=gb))
        rep.add_case(CASE_STD, "cupy.std(x)", size, with_rate(summarize(s), gbytes=gb))
        rep.add_case(CASE_SUM2, "cupy.sum(x, axis=(0, 1))", size, with_rate(summarize(s2), gbytes=gb))

    def case_chain():
        a, b, c = cupy.full(n, 1.5, f32), cupy.full(n, 2.0, f32), cupy.full(n, 0.25, f32)
        plain, = dtimes([lambda: cupy.sin(a * b + c)])
        rep.add_case(CASE_CHAIN, "cupy eager cupy.sin(a*b + c) (3 kernels, 2 temporaries)", size,
                with_rate(summarize(plain), gbytes=16.0 * n))

        def sin_mul_add(x, y, z):  # a named function: cupy.fuse names its kernel after it
            return cupy.sin(x * y + z)
        fused = cupy.fuse(sin_mul_add)
        fz, = dtimes([lambda: fused(a, b, c)])
        rep.add_case(CASE_CHAIN, "cupy.fuse(sin(a*b + c)) (one kernel)", size, with_rate(summarize(fz), gbytes=16.0 * n))

    def case_half():
        f16 = cupy.float16
        a, b, c = cupy.full(n, 1.25, f16), cupy.full(n, 2.5, f16), cupy.empty(n, f16)
        t, = dtimes([lambda: cupy.add(a, b, out=c)])
        rep.add_case(case_half_add("float16"), "cupy.add(a, b, out=c)", size, with_rate(summarize(t), gbytes=6.0 * n))

    for name, case in (("a + b", case_add), ("a*b + c", case_fused), ("sin(a*b + c)", case_chain),
                       ("float16 a + b", case_half), ("sum", case_sum),
                       ("matmul", case_matmul), ("batched matmul", case_bmm), ("var, std, two-axis sum", case_stats),
                       ("small a + b", case_small)):
        guarded(rep, "CuPy " + name, case, done)
    rep.note("CuPy %s on %s (CUPY_TF32 %s: matmul in full float32 unless it is 1); the elementwise functions of "
             "issue 27 are compared with PyTorch only (its target), not timed in CuPy." % (
        cupy.__version__, rep.device, os.environ.get("CUPY_TF32", "unset")))
    return True


def compare(rep, gp, alternated=False):
    """Adds the "vs gpuarr" rows: the issue's ratios, gpuarr's rows against
    this script's, and whether each target is met. With alternated, the
    float16/bfloat16 matmul targets are left to alternated_half_matmul's
    rows, and these rows of that case are shown without a verdict."""
    g = {(r["name"], r["labels"].get("path")): r["metrics"] for r in gp.get("rows", [])}

    def one(label, gname, gpath, pname, ppath, ratio, target, higher_better=True):
        gm, pm = g.get((gname, gpath)), rep.find(pname, ppath)
        if not gm or not pm or gm.get("p50_ns", 0) <= 0 or pm.get("p50_ns", 0) <= 0:
            return
        r = ratio(gm, pm)
        m = {"ratio": r, "gpuarr_p50_ns": gm["p50_ns"], "peer_p50_ns": pm["p50_ns"]}
        rep.add_case(CASE_VS, label, "", m)
        if target is not None:
            rep.judge("ratio", ">=" if higher_better else "<=", target)

    by_time = lambda gm, pm: pm["p50_ns"] / gm["p50_ns"]  # > 1: gpuarr faster
    one("a + b: gpuarr EvalInto GB/s / torch.add(out=) GB/s",
        CASE_ADD, "gpuarr.EvalInto(c, Add(a, b))", CASE_ADD, "torch.add(a, b, out=c)", by_time, TARGET_ADD)
    one("a + b: gpuarr EvalInto GB/s / cupy.add(out=) GB/s",
        CASE_ADD, "gpuarr.EvalInto(c, Add(a, b))", CASE_ADD, "cupy.add(a, b, out=c)", by_time, None)
    fused = "gpuarr.EvalInto(d, Add(Mul(a, b), c))"
    one("a*b + c: torch eager time / gpuarr fused EvalInto time",
        CASE_FUSED, fused, CASE_FUSED, "torch eager a*b + c (2 kernels, a temporary, result allocated)", by_time, TARGET_FUSED)
    one("a*b + c: cupy a*b + c time / gpuarr fused EvalInto time",
        CASE_FUSED, fused, CASE_FUSED, "cupy a*b + c (2 kernels, a temporary)", by_time, TARGET_FUSED)
    one("a*b + c: torch eager time / gpuarr FMA EvalInto time",
        CASE_FUSED, "gpuarr.EvalInto(d, FMA(a, b, c))", CASE_FUSED,
        "torch eager a*b + c (2 kernels, a temporary, result allocated)", by_time, None)
    one("a*b + c: torch eager time / gpuarr Eval (allocating) + Release time",
        CASE_FUSED, "gpuarr.Eval(Add(Mul(a, b), c)) + Release", CASE_FUSED,
        "torch eager a*b + c (2 kernels, a temporary, result allocated)", by_time, None)
    one("a*b + c: torch.addcmul(out=) time / gpuarr fused EvalInto time (both one kernel)",
        CASE_FUSED, fused, CASE_FUSED, "torch.addcmul(c, a, b, out=d) (one kernel)", by_time, None)
    one("Sum: torch.sum time / gpuarr.Sum time (device)",
        CASE_SUM, "gpuarr.Sum(x) + Release, device time", CASE_SUM, "torch.sum(x), device time", by_time, TARGET_SUM)
    one("Sum: torch.sum time / gpuarr.Sum time (host wall, sync per batch)",
        CASE_SUM, "gpuarr.Sum(x) + Release, host wall, dev.Synchronize per batch", CASE_SUM,
        "torch.sum(x), host wall, torch.cuda.synchronize per batch", by_time, None)
    one("matmul: gpuarr.Matmul TFLOP/s / torch.matmul TFLOP/s",
        CASE_MATMUL, "gpuarr.Matmul(a, b) + Release", CASE_MATMUL, "torch.matmul(a, b), allow_tf32=False", by_time, TARGET_MATMUL)
    one("matmul: gpuarr.MatmulInto TFLOP/s / torch.matmul(out=) TFLOP/s",
        CASE_MATMUL, "gpuarr.MatmulInto(c, a, b)", CASE_MATMUL, "torch.matmul(a, b, out=c), allow_tf32=False", by_time, None)
    one("batched matmul: gpuarr.Matmul TFLOP/s / torch.bmm TFLOP/s",
        CASE_BMM, "gpuarr.Matmul(a, b) + Release", CASE_BMM, "torch.bmm(a, b), allow_tf32=False", by_time, TARGET_BMM)
    one("batched matmul: gpuarr.MatmulInto TFLOP/s / torch.bmm(out=) TFLOP/s",
        CASE_BMM, "gpuarr.MatmulInto(c, a, b)", CASE_BMM, "torch.bmm(a, b, out=c), allow_tf32=False", by_time, None)
    one("Var: torch.var time / gpuarr.Var time (all axes)",
        CASE_VAR, "gpuarr.Var(x) + Release, all axes", CASE_VAR, "torch.var(x)", by_time, TARGET_STATS)
    one("Std: torch.std time / gpuarr.Std time (all axes)",
        CASE_STD, "gpuarr.Std(x) + Release, all axes", CASE_STD, "torch.std(x)", by_time, TARGET_STATS)
    one("Sum over axes (0, 1): torch.sum time / gpuarr.Sum time",
        CASE_SUM2, "gpuarr.Sum(x, Axis(0), Axis(1)) + Release", CASE_SUM2, "torch.sum(x, dim=(0, 1))", by_time, TARGET_STATS)
    one("Var over axes (0, 1): torch.var time / gpuarr.Var time",
        CASE_VAR, "gpuarr.Var(x, Axis(0), Axis(1)) + Release", CASE_VAR, "torch.var(x, dim=(0, 1))", by_time, None)
    chain = "gpuarr.EvalInto(e, Sin(Add(Mul(a, b), c)))"
    one("sin(a*b + c): torch eager time / gpuarr fused EvalInto time",
        CASE_CHAIN, chain, CASE_CHAIN, "torch eager torch.sin(a*b + c) (3 kernels, 2 temporaries, result allocated)",
        by_time, TARGET_CHAIN)
    one("sin(a*b + c): torch eager time / gpuarr Eval (allocating) + Release time",
        CASE_CHAIN, "gpuarr.Eval(Sin(Add(Mul(a, b), c))) + Release", CASE_CHAIN,
        "torch eager torch.sin(a*b + c) (3 kernels, 2 temporaries, result allocated)", by_time, None)
    one("sin(a*b + c): cupy eager time / gpuarr fused EvalInto time",
        CASE_CHAIN, chain, CASE_CHAIN, "cupy eager cupy.sin(a*b + c) (3 kernels, 2 temporaries)", by_time, None)
    one("sin(a*b + c): cupy.fuse time / gpuarr fused EvalInto time (both one kernel)",
        CASE_CHAIN, chain, CASE_CHAIN, "cupy.fuse(sin(a*b + c)) (one kernel)", by_time, None)
    for name, gpath, ppath, _, _ in MATH:
        call = re.sub(r" \(.*\)$", "", re.sub(r", [a-z] (in|~) .*$", "", ppath))
        one("%s: gpuarr EvalInto throughput / %s throughput" % (name, call),
            name, gpath, name, ppath, by_time, TARGET_MATH)
    for dt in ("float16", "bfloat16"):
        one("a + b, %s: gpuarr EvalInto GB/s / torch.add(out=) GB/s" % dt,
            case_half_add(dt), "gpuarr.EvalInto(c, Add(a, b))", case_half_add(dt), "torch.add(a, b, out=c)", by_time,
            TARGET_HALF_ADD)
        one("matmul, %s: gpuarr.Matmul TFLOP/s / torch.matmul TFLOP/s%s" % (
            dt, " (each timed once, minutes apart; judged on the alternated rounds)" if alternated else ""),
            case_half_matmul(dt), "gpuarr.Matmul(a, b) + Release", case_half_matmul(dt), "torch.matmul(a, b)", by_time,
            None if alternated else TARGET_HALF_MATMUL)
        one("matmul, %s: gpuarr.MatmulInto TFLOP/s / torch.matmul(out=) TFLOP/s" % dt,
            case_half_matmul(dt), "gpuarr.MatmulInto(c, a, b)", case_half_matmul(dt), "torch.matmul(a, b, out=c)", by_time,
            None)
    one("a + b, float16: gpuarr EvalInto GB/s / cupy.add(out=) GB/s",
        case_half_add("float16"), "gpuarr.EvalInto(c, Add(a, b))", case_half_add("float16"), "cupy.add(a, b, out=c)",
        by_time, None)
    one("small a + b: torch.add(out=) host time / gpuarr EvalInto host time (> 1: gpuarr faster)",
        CASE_SMALL, "gpuarr.EvalInto(c, Add(a, b))", CASE_SMALL, "torch.add(a, b, out=c)", by_time, TARGET_SMALL)
    one("small a + b: torch a + b host time / gpuarr Eval + Release host time",
        CASE_SMALL, "gpuarr.Eval(Add(a, b)) + Release", CASE_SMALL, "torch a + b (result allocated)", by_time, None)
    one("small a + b: cupy.add(out=) host time / gpuarr EvalInto host time",
        CASE_SMALL, "gpuarr.EvalInto(c, Add(a, b))", CASE_SMALL, "cupy.add(a, b, out=c)", by_time, None)
    rep.note("vs gpuarr: ratio is the peer's median time over gpuarr's (for a + b, the elementwise functions and matmul that is gpuarr's GB/s or TFLOP/s over the peer's), so above 1 gpuarr is faster; gpuarr's figures come from kernels.json (commit %s) of the same run; a ratio with a target has its verdict." % (
        gp.get("commit") or "unknown"))

HALF_MATMUL_PATHS = (
    # (gpuarr's path in kernels.json, torch's call, target)
    ("gpuarr.Matmul(a, b) + Release", "torch.matmul(a, b)", TARGET_HALF_MATMUL),
    ("gpuarr.MatmulInto(c, a, b)", "torch.matmul(a, b, out=c)", None),
    ("device.Stream.Gemm (cuBLAS GemmEx, raw pointers)", "torch.matmul(a, b, out=c)", None),
)
HALF_MATMUL_ONLY = "float16/bfloat16 matmul"  # bench/kernels' -only name of the case


def alternated_half_matmul(rep, sz, args, warm_ms, judged):
    """The float16 and bfloat16 matmul ratios from args.rounds rounds, each
    timing gpuarr (bench/kernels -only, a fresh process) and torch.matmul
    (this process) back to back, in alternating order (gpuarr first in even
    rounds): a 16-bit GEMM at this size runs at the GPU's power limit, and
    its rate drifts by more than the target's margin over minutes, so each
    round's ratio compares two timings seconds apart. Each side runs
    matmuls for warm_ms before each type's samples (0: two per path), so
    that both are timed at the clocks a sustained load holds rather than
    in the burst after idle. Adds per dtype and path a "vs gpuarr" row
    whose ratio is the median of the rounds' ratios (torch's median time
    over gpuarr's), with their min and max; with judged, the Matmul rows
    carry the target."""
    import subprocess
    import tempfile

    import torch

    sync = torch.cuda.synchronize
    ev = lambda: torch.cuda.Event(enable_timing=True)
    ms = lambda s, e: s.elapsed_time(e)
    m = sz.mat
    samples, batch = max(5, args.samples // 3), max(1, args.op_batch // 5)  # bench/kernels' matmul sampling
    dts = (("float16", torch.float16), ("bfloat16", torch.bfloat16))
    ratios = {(name, p[0]): [] for name, _ in dts for p in HALF_MATMUL_PATHS}
    times = {k: ([], []) for k in ratios}

    def gpuarr_round(tmp):
        cmd = [args.kernels_bin, "-only", HALF_MATMUL_ONLY, "-matmul", str(m), "-matmul-warm", "%dms" % warm_ms,
               "-samples", str(args.samples), "-op-batch", str(args.op_batch), "-out", tmp]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        if r.returncode != 0:
            raise RuntimeError("%s exited %d: %s" % (" ".join(cmd), r.returncode, r.stderr.strip()[-300:]))
        with open(os.path.join(tmp, "kernels.json")) as f:
            rows = json.load(f)["rows"]
        return {(r["name"], r["labels"].get("path")): r["metrics"]["p50_ns"] for r in rows}

    def torch_round():
        got = {}
        for name, dt in dts:
            x, y = torch.full((m, m), 1.0, dtype=dt, device="cuda"), torch.full((m, m), 0.5, dtype=dt, device="cuda")
            z = torch.empty((m, m), dtype=dt, device="cuda")
            start = time.perf_counter()
            while (time.perf_counter() - start) * 1e3 < warm_ms:  # bench/kernels' warmFor
                for _ in range(8):
                    torch.matmul(x, y, out=z)
                sync()
            alloc, into = device_times(ev, ms, sync, samples, batch,
                                       [lambda: torch.matmul(x, y), lambda: torch.matmul(x, y, out=z)], warm=2)
            got[(name, "torch.matmul(a, b)")] = summarize(alloc)["p50_ns"]
            got[(name, "torch.matmul(a, b, out=c)")] = summarize(into)["p50_ns"]
            del x, y, z
            sync()
            torch.cuda.empty_cache()
        return got

    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.rounds):
            if i % 2 == 0:
                g, t = gpuarr_round(tmp), torch_round()
            else:
                t, g = torch_round(), gpuarr_round(tmp)
            for name, _ in dts:
                for gpath, tpath, _ in HALF_MATMUL_PATHS:
                    gt, tt = g.get((case_half_matmul(name), gpath), 0), t[(name, tpath)]
                    if gt <= 0:
                        raise RuntimeError("bench/kernels -only %r wrote no %r row for %s" % (HALF_MATMUL_ONLY, gpath, name))
                    ratios[(name, gpath)].append(tt / gt)
                    times[(name, gpath)][0].append(gt)
                    times[(name, gpath)][1].append(tt)
    for name, _ in dts:
        for gpath, tpath, target in HALF_MATMUL_PATHS:
            rs = ratios[(name, gpath)]
            gt, tt = times[(name, gpath)]
            call = gpath.split(" (")[0].replace("(a, b) + Release", "").replace("(c, a, b)", "")
            rep.add_case(CASE_VS, "matmul, %s: %s TFLOP/s / %s TFLOP/s, median of %d alternated rounds, %s" % (
                name, call, tpath, len(rs), "after %d ms of warm-up matmuls" % warm_ms if warm_ms else "two warm-up matmuls"), "", {
                "ratio": percentile(rs, 50), "ratio_min": min(rs), "ratio_max": max(rs), "rounds": len(rs),
                "gpuarr_p50_ns": percentile(gt, 50), "peer_p50_ns": percentile(tt, 50)})
            if target is not None and judged:
                rep.judge("ratio", ">=", target)
    rep.note("Alternated rounds (float16/bfloat16 matmul, %d², %s): %d rounds, each running bench/kernels -only %r "
             "(%s, a fresh process) and torch.matmul in this process back to back, gpuarr first in even rounds; "
             "each side %d samples of %d matmuls per path after warm-up; a row's ratio is the median of the rounds' "
             "ratios (torch's median time over gpuarr's), ratio_min and ratio_max their range%s." % (
                 m, "%d ms of warm-up matmuls per type" % warm_ms if warm_ms else "two warm-up matmuls per path",
                 args.rounds, HALF_MATMUL_ONLY, args.kernels_bin, samples, batch,
                 "; these rows carry the targets" if judged else "; shown without a verdict"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default="", help="directory for kernels_peers.json (none: print only); "
                    "its kernels.json, if any, gives the sizes and the ratios")
    ap.add_argument("--gpuarr", default="", help="bench/kernels' JSON (default: OUT/kernels.json)")
    ap.add_argument("--n", type=int, default=0, help="elements of cases 1-3 (default: kernels.json's, else 2^28)")
    ap.add_argument("--matmul", type=int, default=0, help="matmul size (default: kernels.json's, else 8192)")
    ap.add_argument("--small", type=int, default=0, help="elements of case 5 (default: kernels.json's, else 1024)")
    ap.add_argument("--quick", action="store_true", help="small sizes and few samples")
    ap.add_argument("--samples", type=int, default=30)
    ap.add_argument("--math-samples", type=int, default=7, help="samples per elementwise function (bench/kernels' -math-samples)")
    ap.add_argument("--op-batch", type=int, default=10)
    ap.add_argument("--batches", type=int, default=200)
    ap.add_argument("--launch-batch", type=int, default=256)
    ap.add_argument("--kernels-bin", default="", help="bench/kernels' binary: with it, the float16/bfloat16 matmul "
                    "targets are judged on --rounds rounds alternating it (-only) with torch.matmul")
    ap.add_argument("--rounds", type=int, default=7, help="alternated rounds of the float16/bfloat16 matmul")
    ap.add_argument("--matmul-warm-ms", type=int, default=1000, help="warm-up matmuls per type and side before the "
                    "judged alternated rounds' samples (milliseconds)")
    args = ap.parse_args()

    sizes = Sizes(1 << 28, 8192, 1024)
    if args.quick:
        sizes = Sizes(1 << 20, 256, 1024, (8, 32), (128, 64, 16))
        args.samples, args.op_batch, args.batches, args.launch_batch = 10, 2, 40, 64
        args.math_samples = 3
    rep = Report()
    gpath = args.gpuarr or (os.path.join(args.out, "kernels.json") if args.out else "")
    gp = None
    if gpath and os.path.exists(gpath):
        try:
            with open(gpath) as f:
                gp = json.load(f)
            sizes = sizes_from(gp, sizes)
        except Exception as e:
            rep.fail("cannot read %s: %s" % (gpath, e))
            gp = None
    for attr, v in (("n", args.n), ("mat", args.matmul), ("small", args.small)):
        if v > 0:
            setattr(sizes, attr, v)

    rep.add_case(CASE_SMALL, "python loop + call (floor)", str(sizes.small),
            summarize(host_times(lambda: None, args.batches, args.launch_batch, [lambda: None])[0]))
    measured = measure_each(rep, (("PyTorch", bench_torch), ("CuPy", bench_cupy)), sizes, args)
    rep.note("Sizes: n = %d (a + b, a*b + c, sin(a*b + c), the elementwise functions, float16/bfloat16 a + b, sum), matmul %d² (float32, float16, bfloat16), batched matmul %d × %d², var/std/two-axis sum %s, "
             "small op %d elements%s. Device time from cuda events around "
             "%d ops per sample, %d samples (matmul: fewer); host time per op from Python %s: %d batches of %d calls, "
             "synchronized between batches." % (
                 sizes.n, sizes.mat, sizes.bmm[0], sizes.bmm[1], "×".join(map(str, sizes.stat)), sizes.small,
                 " (from kernels.json)" if gp else "", args.op_batch, args.samples,
                 platform.python_version(), args.batches, args.launch_batch))
    if not measured:
        rep.note(NONE_MEASURED)
    if gp is None:
        rep.note("No bench/kernels JSON at %s: no ratios against gpuarr." % (gpath or "(no --out)"))
    elif gp.get("backend") != "cuda" or rep.backend != "cuda":
        rep.note("No ratios against gpuarr: kernels.json ran on %s (%s), this script on %s (%s)." % (
            gp.get("device"), gp.get("backend"), rep.device, rep.backend))
    else:
        if gp.get("device") != rep.device:
            rep.note("Device names differ: kernels.json says %s, the frameworks %s." % (gp.get("device"), rep.device))
        alternated = bool(args.kernels_bin) and rep.find(case_half_matmul("float16"), "torch.matmul(a, b)") is not None
        compare(rep, gp, alternated)
        if alternated:
            # Judged after a sustained warm-up; the burst after two
            # warm-up matmuls (the single-process rows' way) is shown too.
            for warm_ms, judged in ((0, False), (args.matmul_warm_ms, True)):
                guarded(rep, "alternated float16/bfloat16 matmul (warm-up %d ms)" % warm_ms,
                        lambda: alternated_half_matmul(rep, sizes, args, warm_ms, judged), lambda: None)
    rep.write(args.out)
    print(rep.markdown())
    return rep.exit_code()


if __name__ == "__main__":
    sys.exit(main())
