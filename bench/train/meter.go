package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gpuarr/gpuarr/bench/report"
	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gcpressure"
	"github.com/gpuarr/gpuarr/memory"
)

// meter follows what the GC and the allocator do during training, from
// gcpressure's and the memory resource's counters.
type meter struct {
	res         memory.Resource
	first, prev gcpressure.Totals
	ooms0       uint64
	epochs      []float64 // seconds
	loss        float64   // the last epoch's loss
}

func newMeter(res memory.Resource) *meter {
	st := gcpressure.Stats()
	return &meter{res: res, first: st, prev: st, ooms0: res.Stats().OOMs}
}

// epoch records an epoch's time and describes what the GC did during it.
func (m *meter) epoch(took time.Duration) string {
	m.epochs = append(m.epochs, took.Seconds())
	now := gcpressure.Stats()
	d := delta(now, m.prev)
	m.prev = now
	if d.Collections() == 0 && d.LadderRuns() == 0 {
		return "gc: -"
	}
	return fmt.Sprintf("gc: %d eager + %d ladder collections, %d ladder runs, freed %s, %v",
		d.Eager.Collections, d.Reclaim.Collections, d.LadderRuns(),
		memory.FormatBytes(d.Eager.BytesFreed+d.Reclaim.BytesFreed), d.GCTime().Round(10*time.Microsecond))
}

// delta is what happened between two snapshots (the pauses are the
// process's longest so far: they cannot be subtracted).
func delta(now, then gcpressure.Totals) gcpressure.Totals {
	d := now
	d.Eager.Collections -= then.Eager.Collections
	d.Eager.Skipped -= then.Eager.Skipped
	d.Eager.BytesFreed -= then.Eager.BytesFreed
	d.Eager.Time -= then.Eager.Time
	d.Reclaim.Collections -= then.Reclaim.Collections
	d.Reclaim.BytesFreed -= then.Reclaim.BytesFreed
	d.Reclaim.Time -= then.Reclaim.Time
	d.Reclaim.CollectTime -= then.Reclaim.CollectTime
	d.Reclaim.Errors -= then.Reclaim.Errors
	for i := range d.Reclaim.Runs {
		d.Reclaim.Runs[i] -= then.Reclaim.Runs[i]
	}
	return d
}

// summary is a finished run.
type summary struct {
	total   time.Duration
	epochs  []float64
	gc      gcpressure.Totals
	ooms    uint64
	failure error
	mem     memory.Stats
	loss    float64
}

func (m *meter) summary(total time.Duration, err error) summary {
	st := m.res.Stats()
	s := summary{total: total, epochs: m.epochs, gc: delta(gcpressure.Stats(), m.first), ooms: st.OOMs - m.ooms0, failure: err, mem: st, loss: m.loss}
	if err != nil && errors.Is(err, device.ErrOutOfMemory) && s.ooms == 0 {
		s.ooms = 1 // failed outside the pool's count (Limit adaptor, driver)
	}
	return s
}

func (s summary) epochsPerSecond() float64 {
	if s.total <= 0 {
		return 0
	}
	return float64(len(s.epochs)) / s.total.Seconds()
}

func (s summary) text(mode Mode) string {
	var b strings.Builder
	status := "done"
	if s.failure != nil {
		status = "FAILED"
	}
	fmt.Fprintf(&b, "train %s: %s, %d epochs in %v (%.2f epochs/s", mode, status, len(s.epochs), s.total.Round(time.Millisecond), s.epochsPerSecond())
	if len(s.epochs) > 0 {
		fmt.Fprintf(&b, ", median epoch %v", time.Duration(report.Percentile(append([]float64(nil), s.epochs...), 50)*1e9).Round(10*time.Microsecond))
	}
	fmt.Fprintf(&b, ", final loss %.3g)\n", s.loss)
	g := s.gc
	fmt.Fprintf(&b, "  gc: %d collections (%d eager, %d of them in the background, %d skipped by the time budget; %d by the reclaim ladder), %v waited for (%.1f%% of the run), longest pause %v; background collections %v\n",
		g.Collections(), g.Eager.Collections, g.Eager.Background, g.Eager.Skipped, g.Reclaim.Collections, g.GCTime().Round(10*time.Microsecond),
		100*s.gcFraction(), g.MaxPause().Round(10*time.Microsecond), g.Eager.BackgroundTime.Round(10*time.Microsecond))
	fmt.Fprintf(&b, "  reclaim ladder: %d runs (steps by level %v), %v in all, freed %s; OOMs %d\n",
		g.LadderRuns(), g.Reclaim.Runs, g.Reclaim.Time.Round(10*time.Microsecond), memory.FormatBytes(g.Reclaim.BytesFreed), s.ooms)
	fmt.Fprintf(&b, "  memory: peak used %s, peak reserved %s\n",
		memory.FormatBytes(s.mem.AllocatedBytes.Peak), memory.FormatBytes(s.mem.ReservedBytes.Peak))
	return b.String()
}

func (s summary) gcFraction() float64 {
	if s.total <= 0 {
		return 0
	}
	return s.gc.GCTime().Seconds() / s.total.Seconds()
}

// report is the run as bench/report rows: one row named for the mode.
// A variant names a setting beside the mode (such as the environment) and
// a tag names the run among repeats: train-<mode>-<variant>-<tag>.json.
func (s summary) report(dev *device.Device, cfg Config, variant, tag string) *report.Report {
	name := "train-" + string(cfg.Mode)
	for _, part := range []string{variant, tag} {
		if part != "" {
			name += "-" + part
		}
	}
	r := report.New(name, dev.String(), dev.Backend(), dev.DriverVersion())
	g := s.gc
	loop := 0.0
	for _, e := range s.epochs {
		loop += e
	}
	metrics := map[string]float64{
		"total_s":                s.total.Seconds(),
		"loop_s":                 loop,
		"setup_s":                s.total.Seconds() - loop,
		"epochs":                 float64(len(s.epochs)),
		"epochs_per_s":           s.epochsPerSecond(),
		"collections":            float64(g.Collections()),
		"eager_collections":      float64(g.Eager.Collections),
		"eager_skipped":          float64(g.Eager.Skipped),
		"ladder_collections":     float64(g.Reclaim.Collections),
		"ladder_runs":            float64(g.LadderRuns()),
		"ladder_time_s":          g.Reclaim.Time.Seconds(),
		"gc_time_s":              g.GCTime().Seconds(),
		"gc_background_s":        g.Eager.BackgroundTime.Seconds(),
		"background_collections": float64(g.Eager.Background),
		"gc_fraction":            s.gcFraction(),
		"max_pause_ms":           float64(g.MaxPause()) / 1e6,
		"ooms":                   float64(s.ooms),
		"peak_used_bytes":        float64(s.mem.AllocatedBytes.Peak),
		"final_loss":             s.loss,
	}
	if len(s.epochs) > 0 {
		sm := report.Summarize(append([]float64(nil), s.epochs...))
		metrics["epoch_p50_ms"] = sm.P50 * 1e3
		metrics["epoch_p99_ms"] = sm.P99 * 1e3
	}
	labels := map[string]string{
		"mode":     string(cfg.Mode),
		"run":      tag,
		"variant":  variant,
		"features": strconv.Itoa(cfg.Features), "samples": strconv.Itoa(cfg.Samples),
		"batch": strconv.Itoa(cfg.Batch), "limit": limitString(s.mem.HardLimit),
	}
	r.Add(string(cfg.Mode), labels, metrics)
	if s.failure != nil {
		r.Note("train %s failed: %v", cfg.Mode, firstLine(s.failure.Error()))
	}
	return r
}

func firstLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}
