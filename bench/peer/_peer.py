"""_peer: what the peer scripts share (not a peer script itself: bundle.sh
copies it beside them and runs only the scripts whose names do not start
with "_"; they import it from their own directory).

  * percentile and summarize: sample statistics computed as bench/report
    computes them;
  * Report: a result in the bench/report schema (benchmark, device, backend,
    driver_version, date, commit, notes, rows of name/labels/metrics),
    written to DIR/<benchmark>.json;
  * import_torch and import_cupy: the framework, or None with a failure
    recorded saying why it cannot be measured on this machine;
  * measure_each: runs each framework's measurement; an exception is
    recorded as a failure (and a note), and the other frameworks are still
    measured (NONE_MEASURED is the note when none could be measured);
  * Report.judge: a row's target and its verdict, in bench/report's form.

A failure (a framework that does not import, a measurement that raised) is
a note in the JSON, a line on stderr, and the script's exit status 1
(Report.exit_code): the GPU run records the step as failed, not as a pass
with a note nobody reads.

It needs neither torch nor CuPy.
"""

import ctypes
import datetime
import json
import os
import sys


def percentile(samples, p):
    """Nearest rank, as bench/report.Percentile."""
    if not samples:
        return 0.0
    s = sorted(samples)
    rank = int(p / 100.0 * len(s) + 0.5) - 1
    return s[min(max(rank, 0), len(s) - 1)]


def summarize(samples):
    """The p50, p99, min and mean of samples (nanoseconds)."""
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
    """One benchmark's result in the bench/report schema."""

    def __init__(self, benchmark):
        self.benchmark = benchmark
        self.device = "none"
        self.backend = "none"
        self.notes = []
        self.rows = []
        self.failures = []

    def add(self, name, labels, metrics):
        """Appends a row and returns its metrics."""
        self.rows.append({"name": name, "labels": labels, "metrics": metrics})
        return metrics

    def judge(self, metric, op, value):
        """Adds to the last row the target metric op value ("<=" or ">=")
        and its verdict, as bench/report's Row.Judge does; returns whether
        it was met."""
        row = self.rows[-1]
        v = row["metrics"].get(metric)
        met = v is not None and (v <= value if op == "<=" else v >= value)
        row.setdefault("targets", []).append({"metric": metric, "op": op, "value": value, "met": met})
        return met

    def note(self, text):
        self.notes.append(text)

    def fail(self, text):
        """Records a failure: a note saying so, and exit status 1."""
        self.failures.append(text)
        self.note("FAILED: " + text)

    def exit_code(self):
        """1 (after naming each failure on stderr) when anything failed,
        else 0."""
        for f in self.failures:
            print("%s: FAILED: %s" % (self.benchmark, f), file=sys.stderr)
        return 1 if self.failures else 0

    def heading(self):
        """The markdown heading of the script's printed table."""
        return "### %s — %s (driver %d)" % (self.benchmark, self.device, driver_version())

    def write(self, out_dir):
        """Writes out_dir/<benchmark>.json (nothing without out_dir) and
        returns the document."""
        doc = {
            "benchmark": self.benchmark,
            "device": self.device,
            "backend": self.backend,
            "driver_version": driver_version(),
            "date": go_time(datetime.datetime.now(datetime.timezone.utc)),
            "commit": os.environ.get("GPUARR_COMMIT", ""),
            "notes": self.notes,
            "rows": self.rows,
        }
        if out_dir:
            os.makedirs(out_dir, exist_ok=True)
            with open(os.path.join(out_dir, self.benchmark + ".json"), "w") as f:
                f.write(json.dumps(doc, indent=2) + "\n")
        return doc


def import_torch(rep):
    """torch with CUDA available, rep's device set to the current one; or
    None, with a failure recorded saying why PyTorch is not measured."""
    try:
        import torch
    except Exception as e:  # ImportError, or a broken install
        rep.fail("PyTorch not measured: import torch failed (%s)." % e)
        return None
    if not torch.cuda.is_available():
        rep.fail("PyTorch %s not measured: torch.cuda.is_available() is False." % torch.__version__)
        return None
    rep.device, rep.backend = torch.cuda.get_device_name(torch.cuda.current_device()), "cuda"
    return torch


def import_cupy(rep):
    """cupy with a CUDA device, rep's device set to the current one; or
    None, with a failure recorded saying why CuPy is not measured."""
    try:
        import cupy
    except Exception as e:
        rep.fail("CuPy not measured: import cupy failed (%s)." % e)
        return None
    try:
        if cupy.cuda.runtime.getDeviceCount() == 0:
            rep.fail("CuPy %s not measured: no CUDA device." % cupy.__version__)
            return None
        props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
        name = props["name"]
        rep.device = name.decode() if isinstance(name, bytes) else name
        rep.backend = "cuda"
    except Exception as e:
        rep.fail("CuPy not measured: %s." % e)
        return None
    return cupy


def measure_each(rep, benches, *args):
    """Calls each (name, bench) of benches as bench(rep, *args), a bench
    returning whether it measured anything; an exception is recorded as a
    failure and the next bench still runs. Returns whether any measured
    anything."""
    measured = False
    for name, bench in benches:
        try:
            measured = bench(rep, *args) or measured
        except Exception as e:  # record, measure the others, fail at the end
            rep.fail("%s measurement failed: %s: %s." % (name, type(e).__name__, e))
    return measured


NONE_MEASURED = "Neither PyTorch nor CuPy could be measured on this machine."
