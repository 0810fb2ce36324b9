package numpytest_test

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/internal/testutil"
)

// executedFloor is the number of golden cases that ran when the suite was
// last regenerated or a row was added: fewer means cases stopped running
// (a row removed, a type lost, the goldens shrunk). Raise it when rows
// land; lower it only with the goldens' regeneration, saying why.
const executedFloor = 8347

// knownFailures are functions that fail some of their golden cases on one
// backend for a reason already reported, by backend
// (device.Default().Backend()) and "fn/type" (the case's function and its
// root's element type; "fn/*" for every type). Their failing cases are
// logged, not failed; a group none of whose cases fails fails the test
// (unless its failures depend on timing), so the entry goes when the fix
// lands.
var knownFailures = map[string]map[string]knownFailure{}

type knownFailure struct {
	why    string
	timing bool // the failures depend on timing: a run may have none
}

// sampleEvery: with -short or the race detector, TestNumPy runs the first
// of every sampleEvery cases of each function (and difference), so every
// function and every difference still runs.
const sampleEvery = 4

// sentinels are the errors a case may expect, by name; a case expecting
// one not listed here is pending.
var sentinels = map[string]error{
	"ErrShape":    gpuarr.ErrShape,
	"ErrArgument": gpuarr.ErrArgument,
	"ErrIndex":    gpuarr.ErrIndex,
}

// TestNumPy runs every golden case whose functions and types gpuarr has,
// on the default device, and compares the results with NumPy's within
// the case's tolerance (tolerance_test.go), applying the documented
// differences (differences_test.go). Cases of functions or types not in
// the interpreter table yet are counted as pending; the counts are logged
// (go test -v).
func TestNumPy(t *testing.T) {
	files, err := loadGoldens("testdata")
	require.NoError(t, err)
	require.NotEmpty(t, files, "no golden files in testdata: run gen/gen.py")
	st := newStats()
	dev, err := device.Default()
	require.NoError(t, err)
	backend := dev.Backend()
	known, knownFailed := knownFailures[backend], map[string]int{}
	sample, seen := testing.Short() || testutil.RaceEnabled, map[string]int{}
	for _, f := range files {
		t.Run(f.Family, func(t *testing.T) {
			for _, c := range f.Cases {
				expr := c.Expr
				if c.Diff != "" {
					d, ok := differences[c.Diff]
					if !ok {
						t.Errorf("%s: unknown difference %q (differences_test.go has no entry)", c.ID, c.Diff)
						continue
					}
					if d.rewrite != nil {
						expr = d.rewrite(expr)
					}
				}
				if op, reason := caseMissing(c, expr); op != "" {
					st.pend(c.Fn, op, reason)
					continue
				}
				if sample {
					group := c.Fn + "/" + c.Diff
					seen[group]++
					if (seen[group]-1)%sampleEvery != 0 {
						st.skip()
						continue
					}
				}
				st.run(c.Fn, c.Diff)
				err := checkCase(c, expr)
				group := c.Fn + "/" + c.Expr.T
				if _, ok := known[group]; !ok {
					group = c.Fn + "/*"
				}
				if _, ok := known[group]; ok && err != nil {
					knownFailed[group]++
					t.Logf("%s: known failure on %s: %v", c.ID, backend, err)
					continue
				}
				if err != nil {
					t.Errorf("%s: %v", c.ID, err)
				}
			}
		})
	}
	st.log(t)
	if !sample {
		assert.GreaterOrEqual(t, st.executed, executedFloor,
			"fewer golden cases ran than the floor: a row, a type or golden cases were lost")
		for group, k := range known {
			if !k.timing {
				assert.NotZero(t, knownFailed[group], "no case of %s fails on %s any more: remove it from knownFailures (%s)",
					group, backend, k.why)
			}
		}
	}
	for key, d := range differences {
		if (d.check != nil || d.rewrite != nil) && st.diffs[key] == 0 {
			t.Errorf("difference %q (%q) is exercised by no case that ran", key, d.row)
		}
	}
}

// caseMissing says what a case waits for ("" when it can run): an element
// type, a function, or an error sentinel gpuarr does not have yet.
func caseMissing(c *goldenCase, expr *node) (op, reason string) {
	for _, in := range c.In {
		if et := types[in.T]; et == nil || et.upload == nil {
			return "type " + in.T, "arrays of " + in.T
		}
	}
	if op, reason := missing(expr); op != "" {
		return op, reason
	}
	if c.Err != "" && sentinels[c.Err] == nil {
		return "error " + c.Err, "the sentinel " + c.Err
	}
	return "", ""
}

// checkCase runs a case and says how it differs from NumPy's answer (nil
// when it matches).
func checkCase(c *goldenCase, expr *node) (err error) {
	sc := &scope{}
	defer func() {
		if rerr := sc.release(); rerr != nil && err == nil {
			err = fmt.Errorf("releasing the case's arrays: %w", rerr)
		}
	}()
	hosts := make([]hostArray, len(c.In))
	vals := make([]value, len(c.In))
	for i, g := range c.In {
		h, err := g.host()
		if err != nil {
			return fmt.Errorf("input %d: %w", i, err)
		}
		v, err := types[h.t].upload(sc, h)
		if err != nil {
			return fmt.Errorf("input %d: %w", i, err)
		}
		hosts[i], vals[i] = h, v
	}
	in := &interp{sc: sc, inputs: vals}
	outs, err := run(in, expr)
	what := describe(expr)
	if c.Note != "" {
		what += " (" + c.Note + ")"
	}
	if c.Diff != "" {
		if d := differences[c.Diff]; d.check != nil {
			r := &diffRun{c: c, inputs: hosts, got: outs, err: err, eval: func(n *node) ([]hostArray, error) { return run(in, n) }}
			if err := d.check(r); err != nil {
				return fmt.Errorf("%s, NumPy difference %q: %w", what, d.row, err)
			}
			return nil
		}
	}
	if c.Err != "" {
		if !errors.Is(err, sentinels[c.Err]) {
			return fmt.Errorf("%s: error %v, want one matching %s", what, err, c.Err)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if len(outs) != len(c.Out) {
		return fmt.Errorf("%s: %d results, want %d", what, len(outs), len(c.Out))
	}
	var errs []error
	for i, g := range c.Out {
		want, err := g.host()
		if err != nil {
			return err
		}
		if err := compareArrays(want, outs[i], toleranceFor(c, i, want), c.ZS == 1); err != nil {
			errs = append(errs, fmt.Errorf("%s: result %d: %w", what, i, err))
		}
	}
	return errors.Join(errs...)
}

// run evaluates a tree and reads its results back.
func run(in *interp, n *node) (outs []hostArray, err error) {
	defer func() {
		if p := recover(); p != nil {
			a, ok := p.(attrError)
			if !ok {
				panic(p)
			}
			err = errors.New(a.msg)
		}
	}()
	v, err := in.eval(n)
	if err != nil {
		return nil, err
	}
	return v.download(in.sc)
}

// describe writes a tree as calls: Add(Step(in0), Scalar).
func describe(n *node) string {
	if n.Op == "in" {
		return fmt.Sprintf("in%s", string(n.K["i"]))
	}
	var args []string
	for _, a := range n.A {
		args = append(args, describe(a))
	}
	name := n.Op
	if n.T != "" && (len(n.A) == 0 || n.A[0].R != n.T || n.Op == "Cast") {
		name += "[" + n.T + "]"
	}
	return name + "(" + strings.Join(args, ", ") + ")"
}

// ------------------------------------------------------------------ stats

type stats struct {
	executed, pending, skipped int
	ran                        map[string]int
	waits                      map[string]map[string]int // fn → missing → cases
	missing                    map[string]int
	reasons                    map[string]string
	diffs                      map[string]int
}

func newStats() *stats {
	return &stats{ran: map[string]int{}, waits: map[string]map[string]int{}, missing: map[string]int{},
		reasons: map[string]string{}, diffs: map[string]int{}}
}

func (s *stats) run(fn, diff string) {
	s.executed++
	s.ran[fn]++
	if diff != "" {
		s.diffs[diff]++
	}
}

func (s *stats) skip() { s.skipped++ }

func (s *stats) pend(fn, op, reason string) {
	s.pending++
	if s.waits[fn] == nil {
		s.waits[fn] = map[string]int{}
	}
	s.waits[fn][op]++
	s.missing[op]++
	s.reasons[op] = reason
}

func (s *stats) log(t *testing.T) {
	var fns []string
	for fn := range s.ran {
		fns = append(fns, fn)
	}
	for fn := range s.waits {
		if s.ran[fn] == 0 {
			fns = append(fns, fn)
		}
	}
	slices.Sort(fns)
	var b strings.Builder
	fmt.Fprintf(&b, "NumPy goldens: %d cases, %d ran, %d pending (floor %d)", s.executed+s.pending+s.skipped, s.executed, s.pending, executedFloor)
	if s.skipped > 0 {
		fmt.Fprintf(&b, ", %d left out (-short or -race: one in %d runs)", s.skipped, sampleEvery)
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "%-16s %5s %8s  %s\n", "function", "ran", "pending", "waiting for")
	for _, fn := range fns {
		var waits []string
		for op, n := range s.waits[fn] {
			waits = append(waits, fmt.Sprintf("%s: %d", op, n))
		}
		slices.Sort(waits)
		p := 0
		for _, n := range s.waits[fn] {
			p += n
		}
		fmt.Fprintf(&b, "%-16s %5d %8d  %s\n", fn, s.ran[fn], p, strings.Join(waits, ", "))
	}
	var ops []string
	for op := range s.missing {
		ops = append(ops, op)
	}
	slices.Sort(ops)
	fmt.Fprintf(&b, "pending cases by what they wait for:\n")
	for _, op := range ops {
		fmt.Fprintf(&b, "  %-18s %5d  (%s)\n", op, s.missing[op], s.reasons[op])
	}
	t.Log(b.String())
}

// ----------------------------------------------------- the table's rows

// numpyTableRows reads the first column of each row of the differences
// table in gpuarr/numpy.go (a row's first line starts its column at the
// tab; continuation lines are indented).
func numpyTableRows(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	col := regexp.MustCompile(`^//\t(\S.*?)(\s{2,}|$)`)
	var rows []string
	sc := bufio.NewScanner(f)
	inTable := false
	for sc.Scan() {
		line := sc.Text()
		m := col.FindStringSubmatch(line)
		switch {
		case m != nil && strings.HasPrefix(m[1], "what"):
			inTable = true
		case inTable && m != nil:
			rows = append(rows, m[1])
		case inTable && !strings.HasPrefix(line, "//\t"):
			inTable = false
		}
	}
	return rows, sc.Err()
}

// TestDifferencesCoverTheTable: every row of gpuarr's NumPy-differences
// table has an entry here (exercised by golden cases, an api check, the
// type checker, or naming the test that exercises it), and every entry
// names a row of the table.
func TestDifferencesCoverTheTable(t *testing.T) {
	rows, err := numpyTableRows("../../gpuarr/numpy.go")
	require.NoError(t, err)
	require.NotEmpty(t, rows, "no rows found in gpuarr/numpy.go's table")
	byRow := map[string]string{}
	for key, d := range differences {
		byRow[d.row] = key
		assert.Contains(t, rows, d.row, "difference %q names a row that is not in gpuarr/numpy.go", key)
		_, typeChecked := doNotCompile[key]
		assert.True(t, d.check != nil || d.rewrite != nil || d.api != nil || d.elsewhere != "" || typeChecked,
			"difference %q exercises nothing: give it golden cases (check or rewrite), an api check, or name the test elsewhere", key)
	}
	for _, r := range rows {
		assert.Contains(t, byRow, r, "gpuarr/numpy.go's row %q has no entry in differences_test.go", r)
	}
}

// TestInterpreterTable: the types table converts between every pair of
// its element types, and every row of the interpreter table has golden
// cases (a function is added with its generator entry).
func TestInterpreterTable(t *testing.T) {
	for r, rt := range types {
		if rt.upload == nil {
			continue
		}
		for s, st := range types {
			if st.upload == nil || s == r {
				continue
			}
			assert.Contains(t, rt.from[s], "Cast", "no Cast from %s to %s: conversionsTo lacks a type", s, r)
		}
	}
	files, err := loadGoldens("testdata")
	require.NoError(t, err)
	used := map[string]bool{}
	var walk func(n *node)
	walk = func(n *node) {
		used[n.Op] = true
		for _, a := range n.A {
			walk(a)
		}
	}
	ids := map[string]bool{}
	for _, f := range files {
		for _, c := range f.Cases {
			assert.False(t, ids[c.ID], "case id %s twice", c.ID)
			ids[c.ID] = true
			require.NotNil(t, c.Expr, c.ID)
			walk(c.Expr)
		}
	}
	for name, et := range types {
		for op := range et.rows {
			assert.True(t, used[op], "the row %s of %s has no golden cases: add its generator entry", op, name)
		}
	}
}
