package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/gpuarr/gpuarr/bench/report"
)

// A section is the latest runs' verdicts for BENCHMARKS.md: every judged
// figure of every run, misses first. A run is a folder of one bundle run's
// JSON files (make gpu-results puts them under bench/results/<gpu>/); the
// per-round bench/train files are left out (train-summary.json sums them
// up).

// run is one folder's reports.
type run struct {
	dir     string
	reports []*report.Report
}

// perRound matches bench/train's per-round files: train-<mode>[-<variant>]-<round>.json.
var perRound = regexp.MustCompile(`^train-[a-z]+(-[a-z0-9]+)?-[0-9]+\.json$`)

// loadRun reads every report in dir (legacy ones judged as the programs
// now judge them).
func loadRun(dir string) (run, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return run{}, err
	}
	r := run{dir: dir}
	for _, p := range paths {
		if perRound.MatchString(filepath.Base(p)) {
			continue
		}
		rep, err := report.Load(p)
		if err != nil {
			return run{}, err
		}
		judgeLegacy(rep)
		r.reports = append(r.reports, rep)
	}
	if len(r.reports) == 0 {
		return run{}, fmt.Errorf("%s: no benchmark JSON there", dir)
	}
	return r, nil
}

// figure is one judged figure of one row: the unit of a verdict.
type figure struct {
	benchmark, row, metric string
	target                 report.Target // Value and Op; Met is per run
}

func (f figure) key() string { return f.benchmark + "\x00" + f.row + "\x00" + f.metric }

// judged is a figure's value and verdict in each run (ok false: absent).
type judged struct {
	figure
	values []float64
	met    []bool
	ok     []bool
}

func (j judged) counts() (missed, present int) {
	for i := range j.ok {
		if j.ok[i] {
			present++
			if !j.met[i] {
				missed++
			}
		}
	}
	return missed, present
}

// collect lists every judged figure of the runs, in the order of first
// appearance.
func collect(runs []run) []*judged {
	var order []*judged
	byKey := map[string]*judged{}
	for i, r := range runs {
		for _, rep := range r.reports {
			for _, row := range rep.Rows {
				for _, t := range row.Targets {
					f := figure{benchmark: rep.Benchmark, row: rowText(row), metric: t.Metric, target: t}
					j := byKey[f.key()]
					if j == nil {
						j = &judged{figure: f, values: make([]float64, len(runs)), met: make([]bool, len(runs)), ok: make([]bool, len(runs))}
						byKey[f.key()] = j
						order = append(order, j)
					}
					j.values[i], j.met[i], j.ok[i] = row.Metrics[t.Metric], t.Met, true
				}
			}
		}
	}
	return order
}

// rowText names a row: its name and its labels' values (but a path too
// long for a table cell, and a value that repeats the name).
func rowText(row report.Row) string {
	var parts []string
	for _, k := range sortedKeys(row.Labels) {
		if v := row.Labels[k]; v != "" && v != row.Name && len(v) <= 120 {
			parts = append(parts, v)
		}
	}
	if len(parts) == 0 {
		return row.Name
	}
	return row.Name + " (" + strings.Join(parts, ", ") + ")"
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// section writes the runs' verdicts: the runs, then every figure missed
// in at least one run, then those met in every run in which they were
// measured. command is what regenerates it.
func section(w io.Writer, title, command string, runs []run) {
	figs := collect(runs)
	var missed, met []*judged
	for _, j := range figs {
		if m, _ := j.counts(); m > 0 {
			missed = append(missed, j)
		} else {
			met = append(met, j)
		}
	}
	if title == "" {
		title = defaultTitle(runs)
	}
	fmt.Fprintf(w, "## %s\n\n", title)
	fmt.Fprintf(w, "Generated from the JSON of the runs below by `%s`; edit the results or the generator, not this section. "+
		"Every figure that has a target is judged in every run that measured it; misses come first. "+
		"`go run ./bench/tables FILE.json` prints a whole result with its notes.\n\n", command)
	fmt.Fprintln(w, "| run | device | commit | date | results |")
	fmt.Fprintln(w, "| --- | --- | --- | --- | --- |")
	for _, r := range runs {
		first := r.reports[0]
		var names []string
		for _, rep := range r.reports {
			names = append(names, rep.Benchmark)
		}
		fmt.Fprintf(w, "| `%s` | %s | %s | %s | %s |\n", filepath.ToSlash(r.dir), first.Device, short(first.Commit),
			first.Date.Format("2006-01-02"), strings.Join(names, ", "))
	}
	fmt.Fprintf(w, "\n**%d figures judged: %d missed in at least one run, %d met in every run that measured them.**\n\n",
		len(figs), len(missed), len(met))
	fmt.Fprintf(w, "### Missed (%d)\n\n", len(missed))
	figureTable(w, runs, missed)
	fmt.Fprintf(w, "### Met (%d)\n\n", len(met))
	figureTable(w, runs, met)
}

func figureTable(w io.Writer, runs []run, js []*judged) {
	if len(js) == 0 {
		fmt.Fprint(w, "None.\n\n")
		return
	}
	head := []string{"benchmark", "figure", "target"}
	for _, r := range runs {
		head = append(head, filepath.Base(r.dir))
	}
	head = append(head, "verdict")
	fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(head, " | "), strings.Repeat(" --- |", len(head)))
	for _, j := range js {
		cells := []string{j.benchmark, j.row, j.target.String()}
		for i := range runs {
			switch {
			case !j.ok[i]:
				cells = append(cells, "—")
			case j.met[i]:
				cells = append(cells, formatValue(j.values[i]))
			default:
				cells = append(cells, "**"+formatValue(j.values[i])+"**")
			}
		}
		m, n := j.counts()
		verdict := fmt.Sprintf("met in %d of %d", n, n)
		if m > 0 {
			verdict = fmt.Sprintf("missed in %d of %d", m, n)
		}
		if n < len(runs) {
			verdict += fmt.Sprintf(" (not measured in %d)", len(runs)-n)
		}
		cells = append(cells, verdict)
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
	}
	fmt.Fprintln(w)
}

// defaultTitle names the runs' devices, commits and dates.
func defaultTitle(runs []run) string {
	var devices, commits, dates []string
	count := map[string]int{}
	for _, r := range runs {
		first := r.reports[0]
		if count[first.Device]++; count[first.Device] == 1 {
			devices = append(devices, first.Device)
		}
		if c := short(first.Commit); !slices.Contains(commits, c) {
			commits = append(commits, c)
		}
		if d := first.Date.Format("2006-01-02"); !slices.Contains(dates, d) {
			dates = append(dates, d)
		}
	}
	for i, d := range devices {
		devices[i] = fmt.Sprintf("%d × %s", count[d], d)
	}
	return fmt.Sprintf("Latest runs: %s at %s, %s", strings.Join(devices, ", "), strings.Join(commits, ", "), strings.Join(dates, ", "))
}

func short(c string) string {
	if len(c) > 7 {
		return c[:7]
	}
	if c == "" {
		return "unknown"
	}
	return c
}

// formatValue writes a figure with about four significant digits.
func formatValue(v float64) string {
	switch {
	case v == 0:
		return "0"
	case v >= 1000 || v <= -1000:
		return fmt.Sprintf("%.0f", v)
	case v >= 10 || v <= -10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.3g", v)
}

// Markers around the generated section in BENCHMARKS.md.
const (
	beginMarker = "<!-- bench/tables -section: begin -->"
	endMarker   = "<!-- bench/tables -section: end -->"
)

// writeSection replaces what lies between the markers in file with text.
func writeSection(file, text string) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	i, j := bytes.Index(b, []byte(beginMarker)), bytes.Index(b, []byte(endMarker))
	if i < 0 || j < i {
		return fmt.Errorf("%s: no %q ... %q block to replace: put the two markers where the section goes", file, beginMarker, endMarker)
	}
	var out bytes.Buffer
	out.Write(b[:i+len(beginMarker)])
	out.WriteString("\n\n")
	out.WriteString(strings.TrimRight(text, "\n"))
	out.WriteString("\n\n")
	out.Write(b[j:])
	return os.WriteFile(file, out.Bytes(), 0o644)
}
