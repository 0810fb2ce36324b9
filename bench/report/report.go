// Package report is the one format every gpuarr benchmark program writes:
// a JSON file under bench/results (device, driver, date, commit, rows) and a
// Markdown table for BENCHMARKS.md. It owns percentiles and ratios so that
// every benchmark reports medians and p99 the same way.
package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Row is one measured configuration. Metrics holds named figures such as
// "p50_ns", "p99_ns", "ratio_vs_driver"; Labels holds the configuration;
// Targets, when the row has any, what it promises and whether it kept it.
type Row struct {
	Name    string             `json:"name"`
	Labels  map[string]string  `json:"labels,omitempty"`
	Metrics map[string]float64 `json:"metrics"`
	Targets []Target           `json:"targets,omitempty"`
}

// Op is how a figure is compared with its target.
type Op string

const (
	AtMost  Op = "<=" // the figure must not exceed the target (times, ratios of our time to a reference)
	AtLeast Op = ">=" // the figure must reach the target (speed-ups, bandwidths)
)

// Target is a row's promise, Metric Op Value, and its verdict: Met when
// the row's own figure keeps it (a row without that figure did not).
type Target struct {
	Metric string  `json:"metric"`
	Op     Op      `json:"op"`
	Value  float64 `json:"value"`
	Met    bool    `json:"met"`
}

// String is the target as "metric op value", e.g. "p50_ns <= 300".
func (t Target) String() string {
	return fmt.Sprintf("%s %s %s", t.Metric, t.Op, formatTarget(t.Value))
}

// Judge adds the target metric op value to the row and judges the row's
// figure against it; it returns the row. A row may carry several targets
// (a p50 and a p99 bound); it meets them only all together. Every row that
// shows a target gets it through Judge, so that every target printed has a
// verdict.
func (r *Row) Judge(metric string, op Op, value float64) *Row {
	v, ok := r.Metrics[metric]
	met := false
	if ok {
		switch op {
		case AtMost:
			met = v <= value
		case AtLeast:
			met = v >= value
		}
	}
	r.Targets = append(r.Targets, Target{Metric: metric, Op: op, Value: value, Met: met})
	return r
}

// Verdict is "met" or "missed" for a row with targets (missed when any
// one is), "" otherwise.
func (r Row) Verdict() string {
	if len(r.Targets) == 0 {
		return ""
	}
	for _, t := range r.Targets {
		if !t.Met {
			return "missed"
		}
	}
	return "met"
}

// Missed reports whether the row missed a target.
func (r Row) Missed() bool { return r.Verdict() == "missed" }

// TargetText is the row's targets, e.g. "p50_ns <= 100, p99_ns <= 1000".
func (r Row) TargetText() string {
	parts := make([]string, len(r.Targets))
	for i, t := range r.Targets {
		parts[i] = t.String()
	}
	return strings.Join(parts, ", ")
}

// Describe says in words what a judged row measured against its targets,
// e.g. "cross-stream hand-off (extra per hand-off): p50_ns = 669 (target
// <= 500): missed".
func (r Row) Describe() string {
	s := r.Name
	if l := labelText(r.Labels); l != "" {
		s += " (" + l + ")"
	}
	if len(r.Targets) == 0 {
		return s
	}
	var figs []string
	for _, t := range r.Targets {
		fig := "not measured"
		if v, ok := r.Metrics[t.Metric]; ok {
			fig = formatFloat(v)
		}
		verdict := "met"
		if !t.Met {
			verdict = "missed"
		}
		figs = append(figs, fmt.Sprintf("%s = %s (target %s %s, %s)", t.Metric, fig, t.Op, formatTarget(t.Value), verdict))
	}
	return s + ": " + strings.Join(figs, "; ")
}

// labelText joins a row's label values in key order.
func labelText(labels map[string]string) string {
	var parts []string
	for _, k := range sortedKeys(labels) {
		if v := labels[k]; v != "" {
			parts = append(parts, v)
		}
	}
	return strings.Join(parts, ", ")
}

// Judged returns the rows that have targets, and of those the ones that
// missed one, in row order.
func (r *Report) Judged() (judged, missed []Row) {
	for _, row := range r.Rows {
		if len(row.Targets) == 0 {
			continue
		}
		judged = append(judged, row)
		if row.Missed() {
			missed = append(missed, row)
		}
	}
	return judged, missed
}

// Verdicts writes the report's summary of its targets: how many rows were
// judged, then every miss, one per line (every one: a summary that picks
// among them hides the rest).
func (r *Report) Verdicts(w io.Writer) {
	judged, missed := r.Judged()
	if len(judged) == 0 {
		return
	}
	fmt.Fprintf(w, "Targets: %d judged, %d met, %d missed.\n", len(judged), len(judged)-len(missed), len(missed))
	for _, row := range missed {
		fmt.Fprintf(w, "- Missed: %s\n", row.Describe())
	}
}

// Report is one benchmark program's output.
type Report struct {
	Benchmark string    `json:"benchmark"`
	Device    string    `json:"device"`
	Backend   string    `json:"backend"`
	Driver    int       `json:"driver_version"`
	Date      time.Time `json:"date"`
	Commit    string    `json:"commit"`
	Notes     []string  `json:"notes,omitempty"`
	Rows      []Row     `json:"rows"`
}

// New starts a report; the commit comes from GPUARR_COMMIT (the GPU bundle
// stamps it at build time).
func New(benchmark, device, backend string, driverVersion int) *Report {
	return &Report{Benchmark: benchmark, Device: device, Backend: backend, Driver: driverVersion,
		Date: time.Now().UTC(), Commit: os.Getenv("GPUARR_COMMIT")}
}

// Add appends a row and returns it, for further metrics and its target
// (Judge); the pointer is valid until the next Add.
func (r *Report) Add(name string, labels map[string]string, metrics map[string]float64) *Row {
	r.Rows = append(r.Rows, Row{Name: name, Labels: labels, Metrics: metrics})
	return &r.Rows[len(r.Rows)-1]
}

// Last is the row added last (nil when there is none), valid until the
// next Add.
func (r *Report) Last() *Row {
	if len(r.Rows) == 0 {
		return nil
	}
	return &r.Rows[len(r.Rows)-1]
}

// Note records a sentence for the table's footer (a missed target, a skip).
func (r *Report) Note(format string, args ...any) {
	r.Notes = append(r.Notes, fmt.Sprintf(format, args...))
}

// WriteJSON writes dir/<benchmark>.json.
func (r *Report) WriteJSON(dir string) error {
	if dir == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, r.Benchmark+".json"), append(b, '\n'), 0o644)
}

// Markdown writes a table whose columns are the row name, the given label
// keys and the given metric keys, then the notes.
func (r *Report) Markdown(w io.Writer, labelKeys, metricKeys []string) {
	fmt.Fprintf(w, "### %s — %s (driver %d), %s, commit %s\n\n", r.Benchmark, r.Device, r.Driver, r.Date.Format("2006-01-02"), short(r.Commit))
	judged, _ := r.Judged()
	head := append(append([]string{"case"}, labelKeys...), metricKeys...)
	if len(judged) > 0 {
		head = append(head, "target", "verdict")
	}
	fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(head, " | "), strings.Repeat(" --- |", len(head)))
	for _, row := range r.Rows {
		cells := []string{row.Name}
		for _, k := range labelKeys {
			cells = append(cells, row.Labels[k])
		}
		for _, k := range metricKeys {
			v, ok := row.Metrics[k]
			if !ok {
				cells = append(cells, "—")
				continue
			}
			cells = append(cells, formatFloat(v))
		}
		if len(judged) > 0 {
			if len(row.Targets) > 0 {
				cells = append(cells, row.TargetText(), row.Verdict())
			} else {
				cells = append(cells, "—", "—")
			}
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
	}
	if len(judged) > 0 {
		fmt.Fprintln(w)
		r.Verdicts(w)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "\n%s\n", n)
	}
	fmt.Fprintln(w)
}

func short(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	if c == "" {
		return "unknown"
	}
	return c
}

// formatTarget writes a target as it was set: 300, 1.1, 1500000.
func formatTarget(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return fmt.Sprintf("%.0f", v)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

func formatFloat(v float64) string {
	switch {
	case v == 0:
		return "0"
	case v >= 1000 || v <= -1000:
		return fmt.Sprintf("%.0f", v)
	case v >= 10 || v <= -10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.3g", v)
	}
}

// Percentile returns the p-th percentile (0..100) of samples by the
// nearest-rank method. It sorts samples in place.
func Percentile(samples []float64, p float64) float64 {
	if len(samples) == 0 {
		return 0
	}
	slices.Sort(samples)
	rank := int(p/100*float64(len(samples))+0.5) - 1
	return samples[min(max(rank, 0), len(samples)-1)]
}

// Summary is the median, p99, min and mean of samples.
type Summary struct{ P50, P99, Min, Mean float64 }

// Summarize computes a Summary; it sorts samples in place.
func Summarize(samples []float64) Summary {
	if len(samples) == 0 {
		return Summary{}
	}
	var sum float64
	for _, s := range samples {
		sum += s
	}
	return Summary{P50: Percentile(samples, 50), P99: Percentile(samples, 99), Min: samples[0], Mean: sum / float64(len(samples))}
}

// TimeBatches runs op in batches of batch calls and returns the per-call
// nanoseconds of each batch: timing batches keeps clock reads out of
// sub-microsecond figures while still giving a distribution for p99.
func TimeBatches(batches, batch int, op func()) []float64 {
	out := make([]float64, batches)
	for i := range out {
		t := time.Now()
		for range batch {
			op()
		}
		out[i] = float64(time.Since(t).Nanoseconds()) / float64(batch)
	}
	return out
}

// Load reads a report written by WriteJSON (or a peer script in the same
// schema).
func Load(path string) (*Report, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Report
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &r, nil
}

// Keys returns every label key and metric key used by the rows, in order of
// first appearance, so a table of any report has all its columns.
func (r *Report) Keys() (labels, metrics []string) {
	seenL, seenM := map[string]bool{}, map[string]bool{}
	for _, row := range r.Rows {
		for _, k := range sortedKeys(row.Labels) {
			if !seenL[k] {
				seenL[k] = true
				labels = append(labels, k)
			}
		}
		for _, k := range sortedKeys(row.Metrics) {
			if !seenM[k] {
				seenM[k] = true
				metrics = append(metrics, k)
			}
		}
	}
	return labels, metrics
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
