"""_peer: what the peer scripts share (not a peer script itself: bundle.sh
copies it beside them and runs only the scripts whose names do not start
with "_"; they import it from their own directory).

  * percentile and summarize: sample statistics computed as bench/report
    computes them;
  * Report: a result in the bench/report schema (benchmark, device, backend,
    driver_version, date, commit, notes, rows of name/labels/metrics),
    written to DIR/<benchmark>.json;
  * import_torch and import_cupy: the framework, or None with a note saying
    why it cannot be measured on this machine;
  * measure_each: runs each framework's measurement, a failure becoming a
    note rather than failing the GPU run (NONE_MEASURED is the note when
    none could be measured).

It needs neither torch nor CuPy.
"""

import ctypes
import datetime
import json
import os


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

    def add(self, name, labels, metrics):
        """Appends a row and returns its metrics."""
        self.rows.append({"name": name, "labels": labels, "metrics": metrics})
        return metrics

    def note(self, text):
        self.notes.append(text)

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
    None, with a note saying why PyTorch is not measured."""
    try:
        import torch
    except Exception as e:  # ImportError, or a broken install
        rep.note("PyTorch not measured: import torch failed (%s)." % e)
        return None
    if not torch.cuda.is_available():
        rep.note("PyTorch %s not measured: torch.cuda.is_available() is False." % torch.__version__)
        return None
    rep.device, rep.backend = torch.cuda.get_device_name(torch.cuda.current_device()), "cuda"
    return torch


def import_cupy(rep):
    """cupy with a CUDA device, rep's device set to the current one; or
    None, with a note saying why CuPy is not measured."""
    try:
        import cupy
    except Exception as e:
        rep.note("CuPy not measured: import cupy failed (%s)." % e)
        return None
    try:
        if cupy.cuda.runtime.getDeviceCount() == 0:
            rep.note("CuPy %s not measured: no CUDA device." % cupy.__version__)
            return None
        props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
        name = props["name"]
        rep.device = name.decode() if isinstance(name, bytes) else name
        rep.backend = "cuda"
    except Exception as e:
        rep.note("CuPy not measured: %s." % e)
        return None
    return cupy


def measure_each(rep, benches, *args):
    """Calls each (name, bench) of benches as bench(rep, *args), a bench
    returning whether it measured anything; an exception becomes a note.
    Returns whether any measured anything."""
    measured = False
    for name, bench in benches:
        try:
            measured = bench(rep, *args) or measured
        except Exception as e:  # report, don't fail the GPU run
            rep.note("%s measurement failed: %s: %s." % (name, type(e).__name__, e))
    return measured


NONE_MEASURED = "Neither PyTorch nor CuPy could be measured on this machine."
