// Command mutate checks that the tests and the stress program catch what
// they exist for: it applies each deliberate synchronization or lifetime
// bug of mutations.go, one at a time, to a temporary copy of the tree
// (never to the tree itself), and runs the test packages the mutation
// concerns under the host backend's checking mode (GPUARR_HOST_CHECK=1,
// two host devices) and, where the mutation says so, the stress program.
// A mutation is caught when some test of its packages fails and, if
// required, the stress program fails; one that is not caught means a
// missing test. The unmutated copy runs the same checks first: they must
// pass, or nothing can be learned.
//
// It prints a Markdown table (mutation, the tests that failed, what the
// stress program found) and the time taken, and exits 1 when a mutation
// escaped or a check passed for the wrong reason, 2 when it could not run
// (an anchor that is gone, a mutation that does not compile: both named).
//
//	go run ./.ci/mutate                 # make mutate
//	go run ./.ci/mutate -only waiton    # mutations whose name matches
//	go run ./.ci/mutate -list           # the mutations, without running
//
// No -race (the checking mode's delays find the ordering bugs; the race
// detector would multiply the time), no vet, -trimpath so that the copies
// share the build cache, and the mutations in parallel (-j).
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
)

// patch replaces the one occurrence of old in file with new.
type patch struct {
	file     string
	old, new string
}

// mutation is one deliberate bug.
type mutation struct {
	name    string
	what    string
	patches []patch
	pkgs    []string
	stress  bool
}

type options struct {
	only         *regexp.Regexp
	jobs         int
	trials       int
	testTimeout  time.Duration
	stressLimit  time.Duration
	keep         bool
	out          string
	root         string
	stressAlways bool
}

func main() {
	var o options
	only := flag.String("only", "", "run only the mutations whose name matches this regular expression")
	list := flag.Bool("list", false, "print the mutations and their anchors' files, and exit")
	flag.IntVar(&o.jobs, "j", min(runtime.NumCPU(), 2), "mutations checked at once")
	flag.IntVar(&o.trials, "trials", 10_000, "stress trials per mutation")
	flag.DurationVar(&o.testTimeout, "timeout", 3*time.Minute, "limit per test binary (a hang counts as a failure)")
	flag.DurationVar(&o.stressLimit, "stress-limit", 3*time.Minute, "limit per stress run (a hang counts as a failure)")
	flag.BoolVar(&o.keep, "keep", false, "keep the temporary copies (their paths are printed)")
	flag.BoolVar(&o.stressAlways, "stress-all", true, "run the stress program on every mutation, also where it is not required to catch it")
	flag.StringVar(&o.out, "out", "", "also write the table to this file")
	flag.Parse()
	if *only != "" {
		re, err := regexp.Compile(*only)
		if err != nil {
			fatal(2, "-only: %v", err)
		}
		o.only = re
	}
	root, err := repoRoot()
	if err != nil {
		fatal(2, "%v", err)
	}
	o.root = root
	ms := selected(o.only)
	if len(ms) == 0 {
		fatal(2, "no mutation matches -only %q", *only)
	}
	files, err := treeFiles(root)
	if err != nil {
		fatal(2, "%v", err)
	}
	// Every anchor first: a stale one stops the run before anything is
	// built, naming the mutation.
	for _, m := range ms {
		if _, err := m.apply(root); err != nil {
			fatal(2, "%v", err)
		}
	}
	if *list {
		for _, m := range ms {
			fmt.Printf("%-28s %s (%s)\n", m.name, m.what, m.files())
		}
		return
	}
	os.Exit(runAll(o, ms, files))
}

func fatal(code int, format string, args ...any) {
	fmt.Fprintf(os.Stderr, "mutate: "+format+"\n", args...)
	os.Exit(code)
}

func selected(only *regexp.Regexp) []mutation {
	var out []mutation
	for _, m := range mutations {
		if only == nil || only.MatchString(m.name) {
			out = append(out, m)
		}
	}
	return out
}

func (m mutation) files() string {
	var fs []string
	for _, p := range m.patches {
		if !slices.Contains(fs, p.file) {
			fs = append(fs, p.file)
		}
	}
	return strings.Join(fs, ", ")
}

// apply returns the mutated contents of each file m patches, read from
// root; an anchor that does not occur exactly once is an error naming m.
func (m mutation) apply(root string) (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, p := range m.patches {
		src, ok := out[p.file]
		if !ok {
			b, err := os.ReadFile(filepath.Join(root, p.file))
			if err != nil {
				return nil, fmt.Errorf("mutation %s: %v", m.name, err)
			}
			src = b
		}
		switch n := bytes.Count(src, []byte(p.old)); n {
		case 1:
		case 0:
			return nil, fmt.Errorf("mutation %s: its anchor is gone from %s (the code changed; update the mutation in .ci/mutate/mutations.go):\n%s",
				m.name, p.file, indent(p.old))
		default:
			return nil, fmt.Errorf("mutation %s: its anchor occurs %d times in %s (make it unique in .ci/mutate/mutations.go):\n%s",
				m.name, n, p.file, indent(p.old))
		}
		out[p.file] = bytes.Replace(src, []byte(p.old), []byte(p.new), 1)
	}
	return out, nil
}

func indent(s string) string {
	return "    | " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    | ")
}

func repoRoot() (string, error) {
	out, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err == nil {
		return strings.TrimSpace(string(out)), nil
	}
	// Without git: the directory holding go.mod.
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the current directory")
		}
		dir = parent
	}
}

// treeFiles lists the files a copy needs: what git tracks or would track
// (uncommitted work included), without the benchmark results.
func treeFiles(root string) ([]string, error) {
	var files []string
	if out, err := exec.Command("git", "-C", root, "ls-files", "-co", "--exclude-standard", "-z").Output(); err == nil {
		for f := range strings.SplitSeq(strings.TrimRight(string(out), "\x00"), "\x00") {
			files = append(files, f)
		}
	} else {
		err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			if d.IsDir() && rel != "." && strings.HasPrefix(d.Name(), ".") && d.Name() != ".ci" {
				return filepath.SkipDir
			}
			if !d.IsDir() {
				files = append(files, rel)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return slices.DeleteFunc(files, func(f string) bool { return strings.HasPrefix(f, "bench/results/") }), nil
}

// copyTree copies files from root into dir, with the mutated contents.
func copyTree(root, dir string, files []string, mutated map[string][]byte) error {
	for _, f := range files {
		dst := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		data, ok := mutated[f]
		if !ok {
			var err error
			if data, err = os.ReadFile(filepath.Join(root, f)); err != nil {
				if errors.Is(err, os.ErrNotExist) {
					continue // deleted in the working tree, not yet in the index
				}
				return err
			}
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// outcome is what the checks found for one mutation (or the baseline).
type outcome struct {
	name      string
	failed    []string // tests that failed, "pkg: Test"
	pkgFailed []string // packages that failed without a failing test (a crash, a timeout)
	ran       int      // tests that ran
	stressRan bool
	stressBad bool     // the stress program exited non-zero
	stressWhy []string // its kinds with wrong trials, or how it ended
	problem   error    // the check could not run (a build failure, no test ran)
	seconds   float64
}

func (oc outcome) testsCaught() bool { return len(oc.failed) > 0 || len(oc.pkgFailed) > 0 }

func runAll(o options, ms []mutation, files []string) int {
	start := time.Now()
	base, err := os.MkdirTemp("", "gpuarr-mutate-")
	if err != nil {
		fatal(2, "%v", err)
	}
	if o.keep {
		fmt.Printf("mutate: copies under %s\n", base)
	} else {
		defer os.RemoveAll(base)
	}
	fmt.Printf("mutate: %d mutation(s), %d at a time, under GPUARR_HOST_CHECK=1 GPUARR_HOST_DEVICES=2, stress with %d trials\n",
		len(ms), o.jobs, o.trials)

	// The baseline: every package any mutation tests, and the stress
	// program, on the unmutated copy. It runs first, alone: nothing can be
	// learned from checks that fail without a mutation.
	var pkgs []string
	for _, m := range ms {
		for _, p := range m.pkgs {
			if !slices.Contains(pkgs, p) {
				pkgs = append(pkgs, p)
			}
		}
	}
	baseline := mutation{name: "(none: the baseline)", pkgs: pkgs, stress: true}
	bo := check(o, base, files, baseline, nil)
	report := func(oc outcome) { fmt.Printf("mutate: %-28s %5.0fs  %s\n", oc.name, oc.seconds, oc.summary()) }
	report(bo)
	if bo.problem != nil || bo.testsCaught() || bo.stressBad {
		fmt.Println(detail(bo))
		fmt.Fprintln(os.Stderr, "mutate: the checks fail without any mutation: fix that first")
		return 2
	}

	results := make([]outcome, len(ms))
	var mu sync.Mutex
	sem := make(chan struct{}, max(o.jobs, 1))
	var wg sync.WaitGroup
	for i, m := range ms {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			mutated, err := m.apply(o.root)
			var oc outcome
			if err != nil {
				oc = outcome{name: m.name, problem: err}
			} else {
				oc = check(o, base, files, m, mutated)
			}
			mu.Lock()
			results[i] = oc
			report(oc)
			mu.Unlock()
		})
	}
	wg.Wait()

	var table strings.Builder
	writeTable(&table, ms, results)
	elapsed := time.Since(start)
	fmt.Printf("\n%s\n", table.String())
	code := 0
	for i, oc := range results {
		if v := verdict(ms[i], oc); v != "caught" {
			code = max(code, 1)
			if oc.problem != nil {
				code = 2
			}
			fmt.Fprintf(os.Stderr, "mutate: %s: %s\n%s\n", oc.name, v, detail(oc))
		}
	}
	fmt.Printf("mutate: %d of %d mutations caught in %s (%d at a time; baseline %.0fs)\n",
		count(ms, results), len(ms), elapsed.Round(time.Second), o.jobs, bo.seconds)
	if o.out != "" {
		if err := os.WriteFile(o.out, []byte(table.String()), 0o644); err != nil {
			fmt.Fprintf(os.Stderr, "mutate: %v\n", err)
			code = max(code, 2)
		}
	}
	return code
}

func count(ms []mutation, rs []outcome) int {
	n := 0
	for i := range ms {
		if verdict(ms[i], rs[i]) == "caught" {
			n++
		}
	}
	return n
}

// verdict says whether m was caught as required.
func verdict(m mutation, oc outcome) string {
	switch {
	case oc.problem != nil:
		return "not checked: " + oc.problem.Error()
	case !oc.testsCaught():
		return "ESCAPED the tests (" + strings.Join(m.pkgs, " ") + "): a test is missing"
	case m.stress && !oc.stressBad:
		return "ESCAPED the stress program"
	}
	return "caught"
}

func (oc outcome) summary() string {
	if oc.problem != nil {
		return "could not check: " + firstLine(oc.problem.Error())
	}
	s := fmt.Sprintf("%d tests ran, %d failed", oc.ran, len(oc.failed))
	if len(oc.pkgFailed) > 0 {
		s += fmt.Sprintf(", %d package(s) crashed or timed out", len(oc.pkgFailed))
	}
	if oc.stressRan {
		if oc.stressBad {
			s += "; stress failed: " + strings.Join(oc.stressWhy, ", ")
		} else {
			s += "; stress passed"
		}
	}
	return s
}

func detail(oc outcome) string {
	var b strings.Builder
	for _, f := range oc.failed {
		fmt.Fprintf(&b, "    failed: %s\n", f)
	}
	for _, f := range oc.pkgFailed {
		fmt.Fprintf(&b, "    package failed: %s\n", f)
	}
	if oc.problem != nil {
		fmt.Fprintf(&b, "    %s\n", strings.ReplaceAll(oc.problem.Error(), "\n", "\n    "))
	}
	return strings.TrimRight(b.String(), "\n")
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// check copies the tree with m's mutation into its own folder under base
// and runs m's checks there.
func check(o options, base string, files []string, m mutation, mutated map[string][]byte) outcome {
	start := time.Now()
	oc := outcome{name: m.name}
	defer func() { oc.seconds = time.Since(start).Seconds() }()
	dir, err := os.MkdirTemp(base, "m-")
	if err == nil {
		err = copyTree(o.root, dir, files, mutated)
	}
	if err != nil {
		oc.problem = err
		oc.seconds = time.Since(start).Seconds()
		return oc
	}
	defer func() {
		if !o.keep {
			os.RemoveAll(dir)
		}
	}()
	env := append(os.Environ(), "GPUARR_DEVICE=host", "GPUARR_HOST_CHECK=1", "GPUARR_HOST_DEVICES=2")
	runTests(o, dir, env, m.pkgs, &oc)
	if oc.problem == nil && (m.stress || o.stressAlways) {
		runStress(o, dir, env, &oc)
	}
	oc.seconds = time.Since(start).Seconds()
	return oc
}

// testEvent is one line of go test -json.
type testEvent struct {
	Action     string
	Package    string
	ImportPath string // build events
	Test       string
	Output     string
}

// runTests runs the packages' tests (whole) and records which failed. A
// package that does not build, or in which no test ran, is a problem: the
// mutation was not checked.
func runTests(o options, dir string, env []string, pkgs []string, oc *outcome) {
	args := append([]string{"test", "-json", "-count=1", "-trimpath", "-vet=off", "-timeout=" + o.testTimeout.String()}, pkgs...)
	cmd := exec.Command("go", args...)
	cmd.Dir, cmd.Env = dir, env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		oc.problem = err
		return
	}
	if err := cmd.Start(); err != nil {
		oc.problem = err
		return
	}
	ran := map[string]int{}
	failedPkg := map[string]bool{}
	var buildOut strings.Builder
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var ev testEvent
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue
		}
		pkg := ev.Package
		if pkg == "" {
			pkg = ev.ImportPath
		}
		short := strings.TrimPrefix(pkg, "github.com/gpuarr/gpuarr/")
		switch ev.Action {
		case "build-output":
			buildOut.WriteString(ev.Output)
		case "build-fail":
			failedPkg[short+" (build failed)"] = true
		case "pass", "fail", "skip":
			if ev.Test != "" && !strings.Contains(ev.Test, "/") {
				ran[short]++
				if ev.Action == "fail" {
					oc.failed = append(oc.failed, short+": "+ev.Test)
				}
			}
			if ev.Test == "" && ev.Action == "fail" {
				failedPkg[short] = true
			}
		}
	}
	_ = cmd.Wait()
	var broken []string
	for p := range failedPkg {
		if strings.HasSuffix(p, "(build failed)") {
			broken = append(broken, p)
		}
	}
	if len(broken) > 0 || strings.Contains(stderr.String(), "[setup failed]") {
		oc.problem = fmt.Errorf("does not build: %s\n%s%s", strings.Join(broken, ", "), buildOut.String(), stderr.String())
		return
	}
	for _, p := range pkgs {
		short := strings.TrimPrefix(p, "./")
		oc.ran += ran[short]
		if ran[short] == 0 && !failedPkg[short] {
			oc.problem = fmt.Errorf("no test ran in %s", short)
		}
		// A package that failed with no failing test crashed or timed out.
		if failedPkg[short] && !slices.ContainsFunc(oc.failed, func(f string) bool { return strings.HasPrefix(f, short+": ") }) {
			oc.pkgFailed = append(oc.pkgFailed, short)
		}
	}
	slices.Sort(oc.failed)
	slices.Sort(oc.pkgFailed)
}

var stressLine = regexp.MustCompile(`^stress:\s+(\S+)\s+(\d+) trials, (\d+) wrong`)

// runStress builds and runs the stress program and records whether (and
// where) it failed.
func runStress(o options, dir string, env []string, oc *outcome) {
	bin := filepath.Join(dir, "stress.bin")
	build := exec.Command("go", "build", "-trimpath", "-o", bin, "./bench/stress")
	build.Dir, build.Env = dir, env
	if out, err := build.CombinedOutput(); err != nil {
		oc.problem = fmt.Errorf("the stress program does not build: %v\n%s", err, out)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), o.stressLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-trials", fmt.Sprint(o.trials))
	cmd.Dir, cmd.Env = dir, env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	oc.stressRan = true
	oc.stressBad = err != nil
	for line := range strings.Lines(out.String()) {
		if m := stressLine.FindStringSubmatch(line); m != nil && m[3] != "0" {
			oc.stressWhy = append(oc.stressWhy, fmt.Sprintf("%s %s/%s wrong", m[1], m[3], m[2]))
		}
	}
	switch {
	case ctx.Err() != nil:
		oc.stressWhy = append(oc.stressWhy, fmt.Sprintf("hung (killed after %v)", o.stressLimit))
	case err != nil && len(oc.stressWhy) == 0:
		oc.stressWhy = append(oc.stressWhy, err.Error()+": "+crashLine(out.String()))
	}
}

// crashLine is the line that says why a program died (a panic, a fatal
// error, a fault), else its last line.
func crashLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for _, l := range lines {
		for _, p := range []string{"panic:", "fatal error:", "unexpected fault address", "stress: FAILED:"} {
			if strings.HasPrefix(l, p) {
				return strings.TrimSpace(l)
			}
		}
	}
	return strings.TrimSpace(lines[len(lines)-1])
}

// writeTable writes the Markdown table: mutation, what it breaks, the
// tests that caught it, the stress program's finding, the verdict.
func writeTable(w io.Writer, ms []mutation, rs []outcome) {
	fmt.Fprintln(w, "| mutation | what it breaks | tests that failed (GPUARR_HOST_CHECK=1) | stress program | verdict |")
	fmt.Fprintln(w, "| --- | --- | --- | --- | --- |")
	for i, m := range ms {
		oc := rs[i]
		tests := "none"
		if oc.problem != nil {
			tests = "not run"
		} else if oc.testsCaught() {
			var names []string
			for _, f := range oc.failed {
				pkg, test, _ := strings.Cut(f, ": ")
				names = append(names, "`"+filepath.Base(pkg)+"."+test+"`")
			}
			if len(names) > 4 {
				names = append(names[:4], fmt.Sprintf("and %d more", len(names)-4))
			}
			for _, p := range oc.pkgFailed {
				names = append(names, p+" crashed or timed out")
			}
			tests = fmt.Sprintf("%d of %d (%s): %s", len(oc.failed), oc.ran, strings.Join(m.pkgs, " "), strings.Join(names, ", "))
		}
		stress := "not run"
		switch {
		case oc.stressBad:
			stress = "failed: " + strings.Join(oc.stressWhy, ", ")
		case oc.stressRan:
			stress = "passed"
		}
		if !m.stress && oc.stressRan {
			stress += " (not required)"
		}
		fmt.Fprintf(w, "| `%s` (%s) | %s | %s | %s | %s |\n", m.name, m.files(), m.what, tests, stress, verdict(m, oc))
	}
}
