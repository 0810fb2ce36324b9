package main

import (
	"strconv"
	"strings"

	"github.com/gpuarr/gpuarr/bench/report"
)

// Results written before rows carried their targets (the JSON under
// bench/results up to commit 7f980c5) show a target as a metric ("target",
// "target_mib"), sometimes with a 0/1 verdict ("target_met", "met") that
// not every row had. judgeLegacy gives such rows the targets the programs
// now set with Row.Judge, from the same constants, so that old and new
// results are judged alike; legacyMetrics are then not shown.

var legacyMetrics = []string{"target", "target_met", "met", "target_mib"}

// The targets bench/alloc and bench/train held their figures to.
const (
	allocHotP50Ns       = 100
	allocHotP99Ns       = 1000
	allocHotVsDriver    = 10
	allocScaling        = 8
	allocHoleNs         = 200
	allocHoleScaling    = 1.5
	trainEagerVsRelease = 1.10
	trainDisabledVsEag  = 1.15
	trainGCFraction     = 0.05
	trainMaxPauseMs     = 20
)

// judgeLegacy judges the rows of a report written before rows carried
// targets (none of its rows has one) by the rules of its benchmark, and
// drops the legacy target metrics from every row. A report that carries
// targets is left as it is.
func judgeLegacy(r *report.Report) {
	for _, row := range r.Rows {
		if len(row.Targets) > 0 {
			return
		}
	}
	for i := range r.Rows {
		row := &r.Rows[i]
		judgeLegacyRow(r.Benchmark, row)
		for _, k := range legacyMetrics {
			delete(row.Metrics, k)
		}
	}
}

func judgeLegacyRow(benchmark string, row *report.Row) {
	m := row.Metrics
	target, hasTarget := m["target"]
	path := row.Labels["path"]
	switch benchmark {
	case "stress":
		if _, ok := m["wrong"]; ok {
			row.Judge("wrong", report.AtMost, 0)
		}
	case "array":
		// Nanosecond targets on the median; ratio targets on vs_ref.
		if hasTarget {
			if target > 10 {
				row.Judge("p50_ns", report.AtMost, target)
			} else {
				row.Judge("vs_ref", report.AtMost, target)
			}
		}
	case "binding":
		if hasTarget {
			row.Judge("ratio_vs_c", report.AtMost, target)
		}
	case "alloc":
		judgeLegacyAlloc(row)
	case "graphs":
		if t, ok := m["target_mib"]; ok {
			row.Judge("pool_reserved_mib", report.AtMost, t)
		}
	case "kernels":
		// The a + b, a*b + c, Sum and matmul targets compare with PyTorch:
		// kernels_peers.json judges them. Only the host-side ones are
		// kernels.json's own.
		switch {
		case !hasTarget:
		case strings.HasPrefix(row.Name, "small a + b"):
			row.Judge("vs_ref", report.AtMost, target)
		case strings.HasPrefix(row.Name, "host overhead of a cached expression"):
			row.Judge("p50_ns", report.AtMost, target)
		}
	case "kernels_peers":
		// Every ratio with a target was "above is better" (kernels_peers.py).
		if hasTarget {
			row.Judge("ratio", report.AtLeast, target)
		}
	case "unified":
		switch {
		case !hasTarget:
		case target >= 1000:
			row.Judge("p50_ns", report.AtMost, target)
		case path == "prefetched unified arrays":
			row.Judge("vs_ref", report.AtLeast, target)
		default:
			row.Judge("vs_ref", report.AtMost, target)
		}
	case "train-summary":
		switch row.Name {
		case "eager":
			row.Judge("gc_fraction", report.AtMost, trainGCFraction).Judge("max_pause_ms", report.AtMost, trainMaxPauseMs)
			row.Judge("ooms", report.AtMost, 0)
		case "disabled", "release":
			row.Judge("ooms", report.AtMost, 0)
		case "ratios":
			if _, ok := m["eager_vs_release_loop"]; ok {
				row.Judge("eager_vs_release_loop", report.AtMost, trainEagerVsRelease)
			}
			if _, ok := m["disabled_vs_eager_loop"]; ok {
				row.Judge("disabled_vs_eager_loop", report.AtLeast, trainDisabledVsEag)
			}
		}
	}
}

// judgeLegacyAlloc: the hot path and scaling targets were on the caching
// pool's rows, the holes target on every holes row.
func judgeLegacyAlloc(row *report.Row) {
	m, l := row.Metrics, row.Labels
	switch row.Name {
	case "hot":
		if l["resource"] != "caching" {
			return
		}
		row.Judge("p50_ns", report.AtMost, allocHotP50Ns).Judge("p99_ns", report.AtMost, allocHotP99Ns)
		if _, ok := m["driver_over_ours"]; ok {
			row.Judge("driver_over_ours", report.AtLeast, allocHotVsDriver)
		}
	case "scaling":
		if g, _ := strconv.Atoi(l["goroutines"]); l["resource"] == "caching" && g > 1 {
			row.Judge("speedup", report.AtLeast, allocScaling)
		}
	case "holes":
		row.Judge("p50_ns", report.AtMost, allocHoleNs).Judge("over_0_holes", report.AtMost, allocHoleScaling)
	}
}
