package main

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gpuarr/gpuarr/bench/report"
)

// The targets the three-mode benchmark is held to, checked by summarizeRuns.
const (
	targetEagerVsRelease  = 1.10 // eager time ≤ this × release time
	targetDisabledVsEager = 1.15 // disabled time ≥ this × eager time
	targetGCFraction      = 0.05 // time the loop waited for collections
	targetMaxPauseMs      = 20
	// The loop with unified memory as every array's default
	// (GPUARR_DEFAULT_MEMORY=unified, variant "unified") runs at 0.95×
	// eager's speed or better (eager's loop time over its).
	targetUnifiedSpeedVsEager = 0.95
)

// unifiedVariant is the key of eager's runs with unified memory as the
// default (run.sh's train-eager-unified-N).
const unifiedVariant = "eager (unified)"

// summarizeRuns combines the train-<mode>[-<tag>].json reports in dir into
// train-summary.json: per mode, the median and p99 of the total time and of
// the loop alone, and the worst of the GC figures; then the ratios between
// modes, both of the medians and as the median of the ratios between runs
// with the same tag (the runs of one round, taken back to back). It prints
// the summary as a Markdown table.
func summarizeRuns(dir string, w io.Writer) error {
	paths, err := filepath.Glob(filepath.Join(dir, "train-*.json"))
	if err != nil {
		return err
	}
	runs := map[string][]report.Row{} // by mode, or mode and variant
	var first *report.Report
	for _, p := range paths {
		if filepath.Base(p) == "train-summary.json" {
			continue
		}
		r, err := report.Load(p)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		if first == nil {
			first = r
		}
		for _, row := range r.Rows {
			k := row.Labels["mode"]
			if v := row.Labels["variant"]; v != "" {
				k += " (" + v + ")"
			}
			runs[k] = append(runs[k], row)
		}
	}
	if first == nil {
		return fmt.Errorf("-summarize %s: no train-*.json there", dir)
	}
	sum := report.New("train-summary", first.Device, first.Backend, first.Driver)
	sum.Commit = first.Commit
	medians := map[string]map[string]float64{}
	order := []string{string(Eager), string(Disabled), string(Release)}
	var variants []string
	for k := range runs {
		if !slices.Contains(order, k) {
			variants = append(variants, k)
		}
	}
	slices.Sort(variants)
	for _, m := range append(order, variants...) {
		rows := runs[m]
		if len(rows) == 0 {
			continue
		}
		col := func(k string) []float64 {
			v := make([]float64, len(rows))
			for i, r := range rows {
				v[i] = r.Metrics[k]
			}
			return v
		}
		total, loop := report.Summarize(col("total_s")), report.Summarize(col("loop_s"))
		met := map[string]float64{
			"runs":   float64(len(rows)),
			"p50_s":  total.P50,
			"p99_s":  total.P99,
			"loop_s": loop.P50,
			// The loop's p99 over runs: with a handful of runs, the worst.
			"loop_p99_s":             loop.P99,
			"epochs_per_s":           report.Percentile(col("epochs_per_s"), 50),
			"collections":            report.Percentile(col("collections"), 50),
			"ladder_runs":            slices.Max(col("ladder_runs")),
			"gc_fraction":            slices.Max(col("gc_fraction")),
			"max_pause_ms":           slices.Max(col("max_pause_ms")),
			"gc_background_s":        report.Percentile(col("gc_background_s"), 50),
			"ooms":                   sumOf(col("ooms")),
			"peak_used_gib":          slices.Max(col("peak_used_bytes")) / (1 << 30),
			"final_loss":             slices.Max(col("final_loss")),
			"epoch_p50_ms":           report.Percentile(col("epoch_p50_ms"), 50),
			"background_collections": report.Percentile(col("background_collections"), 50),
		}
		medians[m] = met
		sum.Add(m, map[string]string{"limit": rows[0].Labels["limit"]}, met)
	}
	ratio := map[string]float64{}
	pair := func(name string, num, den string) {
		if medians[num] == nil || medians[den] == nil {
			return
		}
		ratio[name+"_total"] = medians[num]["p50_s"] / medians[den]["p50_s"]
		ratio[name+"_loop"] = medians[num]["loop_s"] / medians[den]["loop_s"]
		if v, ok := pairedRatio(runs[num], runs[den], "total_s"); ok {
			ratio[name+"_total_paired"] = v
		}
	}
	pair("eager_vs_release", string(Eager), string(Release))
	pair("disabled_vs_eager", string(Disabled), string(Eager))
	for _, v := range variants {
		pair(strings.NewReplacer(" (", "_", ")", "", " ", "_").Replace(v)+"_vs_release", v, string(Release))
	}
	pair("eager_unified_vs_eager", unifiedVariant, string(Eager))
	if v, ok := ratio["eager_unified_vs_eager_loop"]; ok && v > 0 {
		ratio["eager_unified_speed_vs_eager_loop"] = 1 / v
	}
	if len(ratio) > 0 {
		sum.Add("ratios", nil, ratio)
	}
	judgeTargets(sum, ratio)
	if err := sum.WriteJSON(dir); err != nil {
		return err
	}
	table := *sum
	table.Rows = slices.DeleteFunc(slices.Clone(sum.Rows), func(r report.Row) bool { return r.Name == "ratios" })
	table.Markdown(w, []string{"limit"}, []string{"runs", "p50_s", "p99_s", "loop_s", "loop_p99_s", "collections", "ladder_runs", "gc_fraction", "max_pause_ms", "gc_background_s", "ooms"})
	var keys []string
	for k := range ratio {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	targets := map[string]report.Target{}
	for _, r := range sum.Rows {
		if r.Name == "ratios" {
			for _, t := range r.Targets {
				targets[t.Metric] = t
			}
		}
	}
	fmt.Fprintln(w)
	for _, k := range keys {
		verdict := ""
		if t, ok := targets[k]; ok {
			verdict = fmt.Sprintf(" (target %s %.2f: %s)", t.Op, t.Value, map[bool]string{true: "met", false: "MISSED"}[t.Met])
		}
		fmt.Fprintf(w, "- %s: %.3f%s\n", strings.ReplaceAll(k, "_", " "), ratio[k], verdict)
	}
	return nil
}

// pairedRatio is the median over tags of num's metric k over den's, for
// the tags both modes ran under.
func pairedRatio(num, den []report.Row, k string) (float64, bool) {
	byTag := map[string]float64{}
	for _, r := range den {
		if t := r.Labels["run"]; t != "" {
			byTag[t] = r.Metrics[k]
		}
	}
	var v []float64
	for _, r := range num {
		if d, ok := byTag[r.Labels["run"]]; ok && d > 0 {
			v = append(v, r.Metrics[k]/d)
		}
	}
	if len(v) == 0 {
		return 0, false
	}
	return report.Percentile(v, 50), true
}

// judgeTargets gives the summary's rows their targets: no OOM in any
// mode; eager's GC time and longest pause; the ratios between modes.
func judgeTargets(sum *report.Report, ratio map[string]float64) {
	for i := range sum.Rows {
		r := &sum.Rows[i]
		switch r.Name {
		case string(Eager):
			r.Judge("gc_fraction", report.AtMost, targetGCFraction).Judge("max_pause_ms", report.AtMost, targetMaxPauseMs)
			r.Judge("ooms", report.AtMost, 0)
		case string(Disabled), string(Release):
			r.Judge("ooms", report.AtMost, 0)
		case "ratios":
			// The targets are on the training loop (the 100 epochs), which
			// is what the seed's "Total time" times; the run's total adds
			// the setup (generating the data, loading cuBLAS), the same
			// work in every mode.
			if _, ok := ratio["eager_vs_release_loop"]; ok {
				r.Judge("eager_vs_release_loop", report.AtMost, targetEagerVsRelease)
				sum.Note("eager vs release, with the setup: %.3f× (the target is on the training loop)", ratio["eager_vs_release_total"])
			}
			if _, ok := ratio["disabled_vs_eager_loop"]; ok {
				r.Judge("disabled_vs_eager_loop", report.AtLeast, targetDisabledVsEager)
				sum.Note("disabled vs eager, with the setup: %.3f× (the target is on the training loop)", ratio["disabled_vs_eager_total"])
			}
			if _, ok := ratio["eager_unified_speed_vs_eager_loop"]; ok {
				r.Judge("eager_unified_speed_vs_eager_loop", report.AtLeast, targetUnifiedSpeedVsEager)
				sum.Note("eager with unified memory as the default vs eager on device memory, with the setup: %.3f× the time (the target, on the training loop, is the speed: eager's loop time over unified's)", ratio["eager_unified_vs_eager_total"])
			}
		}
	}
}

func sumOf(v []float64) float64 {
	t := 0.0
	for _, x := range v {
		t += x
	}
	return t
}
