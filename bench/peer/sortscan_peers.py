#!/usr/bin/env python3
"""sortscan_peers: the PyTorch side of bench/sortscan (issue 29).

Times, on the same GPU and at the sizes bench/sortscan used (its "sizes"
row in DIR/sortscan.json; the issue's sizes when there is none), in device
time (cuda events around batches, results freed as they come):

  1. torch.sort(x) and torch.argsort(x) of 2^26 float32;
  2. torch.sort(x, dim=1) of 2^16 x 1024 float32;
  3. torch.cumsum(x, 0) of 2^28 float32;
  4. torch.index_select(x, 0, idx): 2^26 random int64 indices into 2^28;
  5. x.index_add_(0, idx, src): 2^26 float32 into 2^28;
  6. torch.cat of 8 arrays of 2^25 float32;
  7. torch.masked_select(x, x > 0.5) of 2^28 uniform float32;
  8. torch.topk(x, 100) of 2^24 float32.

Row names match bench/sortscan's. When sortscan.json is there, "vs gpuarr"
rows give the issue's ratios (the peer's median time over gpuarr's, so
above 1 gpuarr is faster) and judge the targets: Sort and Argsort >= 0.8x
torch.sort, the segmented sort >= 0.8x torch.sort(dim=1), Cumsum >= 0.9x
torch.cumsum, Take >= 0.9x index_select, IndexAdd >= 0.9x index_add_,
MaskedSelect >= 0.8x masked_select, TopK >= 0.8x topk. (Concatenate's
target, against the device copy, is judged by bench/sortscan itself.)

Writes DIR/sortscan_peers.json in the bench/report schema. Without torch or
a GPU it writes what it could and a note, and exits 1 (a failure).

    python3 bench/peer/sortscan_peers.py --out bench/results
"""

import argparse
import json
import os
import sys

import _peer
from _peer import import_torch, summarize

CASE_SORT = "sort, float32"
CASE_SEG = "segmented sort, float32"
CASE_CUMSUM = "cumsum, float32"
CASE_TAKE = "take, float32"
CASE_INDEX_ADD = "index add, float32"
CASE_CONCAT = "concatenate 8 arrays, float32"
CASE_MASKED = "masked select 50%, float32"
CASE_TOPK = "topk 100, float32"
CASE_VS = "vs gpuarr"


class Report(_peer.Report):
    def __init__(self):
        super().__init__("sortscan_peers")

    def add_case(self, name, path, size, metrics):
        return self.add(name, {"path": path, "size": size}, metrics)

    def markdown(self):
        keys = ["p50_ns", "p99_ns", "ratio"]
        lines = [self.heading(), "", "| case | path | size | " + " | ".join(keys) + " | target | verdict |",
                 "|" + " --- |" * (5 + len(keys))]
        for r in self.rows:
            m, ts = r["metrics"], r.get("targets", [])
            cells = [r["name"], r["labels"].get("path", ""), r["labels"].get("size", "")]
            cells += ["%.4g" % m[k] if k in m else "—" for k in keys]
            if ts:
                cells += [", ".join("%s %s %.4g" % (t["metric"], t["op"], t["value"]) for t in ts),
                          "met" if all(t["met"] for t in ts) else "missed"]
            else:
                cells += ["—", "—"]
            lines.append("| " + " | ".join(cells) + " |")
        return "\n".join(lines + [""] + self.notes)


def label(n):
    n = int(n)
    if n > 0 and n & (n - 1) == 0:
        return "2^%d" % (n.bit_length() - 1)
    return str(n)


def sizes_of(gp):
    sz = {"sort_n": 1 << 26, "seg_rows": 1 << 16, "seg_cols": 1024, "scan_n": 1 << 28, "take_n": 1 << 26,
          "take_from": 1 << 28, "top_n": 1 << 24, "top_k": 100, "concat_arrays": 8}
    for r in gp.get("rows", []):
        if r["name"] == "sizes":
            sz.update({k: int(v) for k, v in r["metrics"].items()})
    return sz


def bench_torch(rep, sz, args):
    torch = import_torch(rep)
    if torch is None:
        return False
    dev = "cuda"
    f32 = torch.float32
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)

    def times(*ops):
        for op in ops:
            for _ in range(2):
                op()
        torch.cuda.synchronize()
        got = [[] for _ in ops]
        for i in range(args.samples):
            for j in range(len(ops)):
                k = (i + j) % len(ops)
                start.record()
                for _ in range(args.batch):
                    ops[k]()
                end.record()
                end.synchronize()
                got[k].append(start.elapsed_time(end) * 1e6 / args.batch)
        return got

    def case(name, fn):
        try:
            fn()
        except Exception as e:
            rep.fail("PyTorch %s not measured: %s: %s" % (name, type(e).__name__, str(e)[:300]))
        finally:
            torch.cuda.synchronize()
            torch.cuda.empty_cache()

    g = torch.Generator(device=dev)
    g.manual_seed(29)

    def uniform(n):
        return torch.rand(n, device=dev, dtype=f32, generator=g)

    def c_sort():
        n = sz["sort_n"]
        x = uniform(n)
        s, a = times(lambda: torch.sort(x), lambda: torch.argsort(x))
        rep.add_case(CASE_SORT, "torch.sort(x)", label(n), summarize(s))
        rep.add_case(CASE_SORT, "torch.argsort(x)", label(n), summarize(a))

    def c_seg():
        r, c = sz["seg_rows"], sz["seg_cols"]
        m = uniform(r * c).reshape(r, c)
        s, = times(lambda: torch.sort(m, dim=1))
        rep.add_case(CASE_SEG, "torch.sort(x, dim=1)", "%d×%d" % (r, c), summarize(s))

    def c_cumsum():
        n = sz["scan_n"]
        x = torch.full((n,), 0.5, device=dev, dtype=f32)
        s, = times(lambda: torch.cumsum(x, 0))
        rep.add_case(CASE_CUMSUM, "torch.cumsum(x, 0)", label(n), summarize(s))

    def c_take():
        m, n = sz["take_n"], sz["take_from"]
        x = uniform(n)
        idx = torch.randint(0, n, (m,), device=dev, dtype=torch.int64, generator=g)
        s, = times(lambda: torch.index_select(x, 0, idx))
        rep.add_case(CASE_TAKE, "torch.index_select(x, 0, idx)", "%s of %s" % (label(m), label(n)), summarize(s))

    def c_index_add():
        m, n = sz["take_n"], sz["take_from"]
        x = torch.zeros(n, device=dev, dtype=f32)
        src = uniform(m)
        idx = torch.randint(0, n, (m,), device=dev, dtype=torch.int64, generator=g)
        s, = times(lambda: x.index_add_(0, idx, src))
        rep.add_case(CASE_INDEX_ADD, "x.index_add_(0, idx, src)", "%s into %s" % (label(m), label(n)), summarize(s))

    def c_concat():
        n, k = sz["scan_n"], sz["concat_arrays"]
        xs = [torch.full((n // k,), float(i), device=dev, dtype=f32) for i in range(k)]
        s, = times(lambda: torch.cat(xs))
        rep.add_case(CASE_CONCAT, "torch.cat(xs)", "%d × %s" % (k, label(n // k)), summarize(s))

    def c_masked():
        n = sz["scan_n"]
        x = uniform(n)
        s, = times(lambda: torch.masked_select(x, x > 0.5))
        rep.add_case(CASE_MASKED, "torch.masked_select(x, x > 0.5)", label(n), summarize(s))

    def c_topk():
        n, k = sz["top_n"], sz["top_k"]
        x = uniform(n)
        s, = times(lambda: torch.topk(x, k))
        rep.add_case(CASE_TOPK, "torch.topk(x, %d)" % k, label(n), summarize(s))

    for name, fn in (("sort", c_sort), ("segmented sort", c_seg), ("cumsum", c_cumsum), ("take", c_take),
                     ("index add", c_index_add), ("concatenate", c_concat), ("masked select", c_masked),
                     ("topk", c_topk)):
        case(name, fn)
    rep.note("PyTorch %s (CUDA %s) on %s; device time from cuda events around %d calls per sample, %d samples, calls interleaved." % (
        torch.__version__, torch.version.cuda, rep.device, args.batch, args.samples))
    return True


def compare(rep, gp):
    g = {(r["name"], r.get("labels", {}).get("path")): r["metrics"] for r in gp.get("rows", [])}

    def peer(name, path):
        for r in rep.rows:
            if r["name"] == name and r["labels"].get("path") == path:
                return r["metrics"]
        return None

    def one(text, gname, gpath, pname, ppath, target):
        gm, pm = g.get((gname, gpath)), peer(pname, ppath)
        if not gm or not pm or gm.get("p50_ns", 0) <= 0 or pm.get("p50_ns", 0) <= 0:
            rep.note("%s: not compared (a side is missing)." % text)
            return
        rep.add_case(CASE_VS, text, "", {"ratio": pm["p50_ns"] / gm["p50_ns"], "gpuarr_p50_ns": gm["p50_ns"],
                                          "peer_p50_ns": pm["p50_ns"]})
        if target is not None:
            rep.judge("ratio", ">=", target)

    one("Sort: torch.sort time / gpuarr.Sort time", CASE_SORT, "gpuarr.Sort(x)", CASE_SORT, "torch.sort(x)", 0.8)
    one("Argsort: torch.sort time / gpuarr.Argsort time", CASE_SORT, "gpuarr.Argsort(x)", CASE_SORT, "torch.sort(x)", 0.8)
    one("segmented sort: torch.sort(dim=1) time / gpuarr.Sort(Axis(-1)) time", CASE_SEG, "gpuarr.Sort(x, Axis(-1))",
        CASE_SEG, "torch.sort(x, dim=1)", 0.8)
    one("segmented argsort: torch.sort(dim=1) time / gpuarr.Argsort(Axis(-1)) time", CASE_SEG, "gpuarr.Argsort(x, Axis(-1))",
        CASE_SEG, "torch.sort(x, dim=1)", None)
    one("Cumsum: torch.cumsum time / gpuarr.Cumsum time", CASE_CUMSUM, "gpuarr.Cumsum(x)", CASE_CUMSUM, "torch.cumsum(x, 0)", 0.9)
    one("Take: torch.index_select time / gpuarr.Take time", CASE_TAKE, "gpuarr.Take(x, idx)", CASE_TAKE,
        "torch.index_select(x, 0, idx)", 0.9)
    one("IndexAdd: torch.index_add_ time / gpuarr.IndexAdd time", CASE_INDEX_ADD, "gpuarr.IndexAdd(x, idx, src)",
        CASE_INDEX_ADD, "x.index_add_(0, idx, src)", 0.9)
    one("Concatenate: torch.cat time / gpuarr.Concatenate time", CASE_CONCAT, "gpuarr.Concatenate(xs)", CASE_CONCAT,
        "torch.cat(xs)", None)
    one("MaskedSelect: torch.masked_select time / gpuarr.MaskedSelect time", CASE_MASKED,
        "gpuarr.MaskedSelect(x, Greater(x, 0.5))", CASE_MASKED, "torch.masked_select(x, x > 0.5)", 0.8)
    one("TopK: torch.topk time / gpuarr.TopK time", CASE_TOPK, "gpuarr.TopK(x, 100)", CASE_TOPK, "torch.topk(x, 100)", 0.8)
    rep.note("vs gpuarr: ratio is the peer's median device time over gpuarr's from sortscan.json (commit %s) of the same run; above 1 gpuarr is faster." % (
        gp.get("commit") or "unknown"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="", help="directory for sortscan_peers.json (and where sortscan.json is read)")
    ap.add_argument("--samples", type=int, default=15)
    ap.add_argument("--batch", type=int, default=3)
    args = ap.parse_args()
    rep = Report()
    gp = {}
    path = os.path.join(args.out, "sortscan.json") if args.out else ""
    if path and os.path.exists(path):
        with open(path) as f:
            gp = json.load(f)
    sz = sizes_of(gp)
    if gp.get("backend", "cuda") != "cuda":
        rep.note("sortscan.json was measured on the %s backend: no comparison." % gp.get("backend"))
        gp = {}
    measured = bench_torch(rep, sz, args)
    if measured and gp:
        compare(rep, gp)
    elif not gp:
        rep.note("No sortscan.json from a GPU run in %s: PyTorch's figures only." % (args.out or "(no --out)"))
    rep.write(args.out)
    print(rep.markdown())
    return rep.exit_code()


if __name__ == "__main__":
    sys.exit(main())
