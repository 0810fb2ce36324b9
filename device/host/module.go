package host

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/gpuarr/gpuarr/device/driver"
	"github.com/gpuarr/gpuarr/device/hostkernel"
)

// The host device cannot run PTX, but it checks it the way a JIT would
// before running the registered Go kernels that stand for its entry points:
// the header directives, balanced braces, declared registers, and entry
// points that exist on the host. A failure carries a log in ptxas's format,
// with line numbers, so tests of error paths see what they see on a GPU.

type module struct {
	dev     *device
	entries map[string]*function
	closed  atomic.Bool
}

type function struct {
	mod    *module
	name   string
	kernel hostkernel.Kernel
}

func (f *function) Name() string { return f.name }

// LoadModule checks ptx and binds its entry points to host kernels.
func (d *device) LoadModule(ptx string) (driver.Module, error) {
	const call = "cuModuleLoadDataEx"
	if err := d.symbol(call); err != nil {
		return nil, err
	}
	names, log := checkPTX(ptx, func(name string) bool { _, ok := lookupKernel(name); return ok })
	if log != "" {
		return nil, &driver.Error{Plain: true, Call: call, Code: driver.InvalidPTX, Detail: log}
	}
	m := &module{dev: d, entries: map[string]*function{}}
	for _, name := range names {
		k, _ := lookupKernel(name)
		m.entries[name] = &function{mod: m, name: name, kernel: k}
	}
	return m, nil
}

// Function looks an entry point up by name.
func (m *module) Function(name string) (driver.Function, error) {
	const call = "cuModuleGetFunction"
	if err := m.dev.symbol(call); err != nil {
		return nil, err
	}
	if m.closed.Load() {
		return nil, errorf(call, driver.Closed, "module of %s is unloaded", m.dev)
	}
	f, ok := m.entries[name]
	if !ok {
		names := make([]string, 0, len(m.entries))
		for n := range m.entries {
			names = append(names, n)
		}
		slices.Sort(names)
		return nil, errorf(call, driver.NotFound, "no entry point %q in the module (it has %s)", name, strings.Join(names, ", "))
	}
	return f, nil
}

// Close unloads the module; its kernels can no longer be launched.
// Launches already queued still run.
func (m *module) Close() error {
	const call = "cuModuleUnload"
	if err := m.dev.symbol(call); err != nil {
		return err
	}
	if !m.closed.CompareAndSwap(false, true) {
		return errorf(call, driver.Closed, "module of %s unloaded twice", m.dev)
	}
	return nil
}

// The highest SM a host device accepts as .target: it reports 9.0.
const hostSM = 90

var (
	reVersion     = regexp.MustCompile(`(?m)^[ \t]*\.version\b[ \t]*([^\s;]*)`)
	reTarget      = regexp.MustCompile(`(?m)^[ \t]*\.target\b[ \t]*([^\n;]*)`)
	reAddressSize = regexp.MustCompile(`(?m)^[ \t]*\.address_size\b[ \t]*([^\s;]*)`)
	reEntryWord   = regexp.MustCompile(`\.entry\b`)
	reEntry       = regexp.MustCompile(`\.entry\s+([A-Za-z_$][\w$]*)\s*\(`)
	reRegDecl     = regexp.MustCompile(`(?:^|[\s(,;{}])\.reg\b([^;]*)`)
	reOtherDecl   = regexp.MustCompile(`(?:^|[\s(,;{}])\.(?:param|local|shared|const|global)\b([^;,)]*)`)
	reRegToken    = regexp.MustCompile(`%[A-Za-z_$][\w$]*(<\d+>)?`)
	reVersionNum  = regexp.MustCompile(`^\d+\.\d+$`)
	reTargetSM    = regexp.MustCompile(`^sm_(\d+)[a-z]?$`)
	reSpecialReg  = regexp.MustCompile(`^%(?:tid|ntid|laneid|warpid|nwarpid|ctaid|nctaid|smid|nsmid|gridid|` +
		`lanemask_(?:eq|le|lt|ge|gt)|clock|clock_hi|clock64|globaltimer|globaltimer_lo|globaltimer_hi|` +
		`pm[0-7](?:_64)?|envreg\d+|total_smem_size|aggr_smem_size|dynamic_smem_size|reserved_smem_offset_\w+|` +
		`is_explicit_cluster|clusterid|nclusterid|cluster_ctaid|cluster_nctaid|cluster_ctarank|cluster_nctarank|` +
		`current_graph_exec)$`)
)

type ptxProblem struct {
	line int
	msg  string
}

// checkPTX returns the entry points of src, or a JIT-style log of what is
// wrong with it. registered says whether a host kernel implements an entry.
func checkPTX(src string, registered func(string) bool) (entries []string, log string) {
	clean, problems := stripPTXComments(src)
	lines := lineStarts(clean)
	lineAt := func(off int) int { return 1 + sort.Search(len(lines), func(i int) bool { return lines[i] > off }) }
	report := func(off int, format string, args ...any) {
		problems = append(problems, ptxProblem{lineAt(off), fmt.Sprintf(format, args...)})
	}

	// Header directives, .version first of all.
	if m := reVersion.FindStringSubmatchIndex(clean); m == nil {
		problems = append(problems, ptxProblem{1, "Missing .version directive at start of file"})
	} else {
		if first := strings.TrimSpace(clean); !strings.HasPrefix(first, ".version") {
			report(len(clean)-len(strings.TrimLeft(clean, " \t\r\n")), "'.version' must be the first directive (found %q)", firstWord(first))
		}
		if v := clean[m[2]:m[3]]; !reVersionNum.MatchString(v) {
			report(m[0], "Invalid PTX version %q: want major.minor", v)
		}
	}
	if m := reTarget.FindStringSubmatchIndex(clean); m == nil {
		problems = append(problems, ptxProblem{1, "Missing .target directive"})
	} else {
		t, _, _ := strings.Cut(strings.TrimSpace(clean[m[2]:m[3]]), ",")
		t = strings.TrimSpace(t)
		if sm := reTargetSM.FindStringSubmatch(t); sm == nil {
			report(m[0], "Invalid target %q: want sm_NN", t)
		} else if n, _ := strconv.Atoi(sm[1]); n > hostSM {
			report(m[0], "SM version specified by .target (%s) is higher than the device's (sm_%d)", t, hostSM)
		}
	}
	if m := reAddressSize.FindStringSubmatchIndex(clean); m == nil {
		problems = append(problems, ptxProblem{1, "Missing .address_size directive"})
	} else if v := clean[m[2]:m[3]]; v != "64" {
		report(m[0], "Address size %q not supported: the host device has 64-bit addresses", v)
	}

	// Braces.
	var open []int
	for i, c := range clean {
		switch c {
		case '{':
			open = append(open, i)
		case '}':
			if len(open) == 0 {
				report(i, "syntax error: unbalanced '}'")
			} else {
				open = open[:len(open)-1]
			}
		}
	}
	for _, i := range open {
		report(i, "syntax error: '{' is never closed")
	}

	// Entry points.
	seen := map[string]bool{}
	matched := map[int]bool{}
	for _, m := range reEntry.FindAllStringSubmatchIndex(clean, -1) {
		matched[m[0]] = true
		name := clean[m[2]:m[3]]
		switch {
		case seen[name]:
			report(m[0], "Duplicate definition of entry '%s'", name)
		case !registered(name):
			report(m[0], "Entry '%s' has no host kernel (register a Go implementation with device.Device.RegisterHostKernel)", name)
		default:
			entries = append(entries, name)
		}
		seen[name] = true
	}
	for _, m := range reEntryWord.FindAllStringIndex(clean, -1) {
		if !matched[m[0]] {
			report(m[0], "syntax error: .entry needs a name and a parameter list")
		}
	}
	if len(seen) == 0 {
		problems = append(problems, ptxProblem{1, "No .entry point in the module"})
	}

	problems = append(problems, checkRegisters(clean, lineAt)...)

	if len(problems) == 0 {
		return entries, ""
	}
	slices.SortStableFunc(problems, func(a, b ptxProblem) int { return a.line - b.line })
	var b strings.Builder
	for _, p := range problems {
		fmt.Fprintf(&b, "ptxas application ptx input, line %d; error   : %s\n", p.line, p.msg)
	}
	b.WriteString("ptxas fatal   : Ptx assembly aborted due to errors")
	return nil, b.String()
}

// checkRegisters reports each %name used but never declared (by .reg, a
// parameter or a variable) and not a special register.
func checkRegisters(clean string, lineAt func(int) int) []ptxProblem {
	exact := map[string]bool{}
	ranged := map[string]int{} // %r<10> declares %r0 … %r9
	declare := func(text string) {
		for _, m := range reRegToken.FindAllStringSubmatch(text, -1) {
			if m[1] == "" {
				exact[m[0]] = true
				continue
			}
			n, _ := strconv.Atoi(m[1][1 : len(m[1])-1])
			name := strings.TrimSuffix(m[0], m[1])
			ranged[name] = max(ranged[name], n)
		}
	}
	for _, m := range reRegDecl.FindAllStringSubmatch(clean, -1) {
		declare(m[1])
	}
	for _, m := range reOtherDecl.FindAllStringSubmatch(clean, -1) {
		declare(m[1])
	}
	known := func(name string) bool {
		if exact[name] || reSpecialReg.MatchString(name) {
			return true
		}
		// %rd12: the longest declared prefix followed by digits only.
		for i := len(name) - 1; i > 1 && name[i] >= '0' && name[i] <= '9'; i-- {
			if n, ok := ranged[name[:i]]; ok {
				idx, err := strconv.Atoi(name[i:])
				return err == nil && idx < n
			}
		}
		return false
	}
	var problems []ptxProblem
	reported := map[string]bool{}
	for _, m := range reRegToken.FindAllStringSubmatchIndex(clean, -1) {
		if m[2] >= 0 {
			continue // a declaration such as %r<10>
		}
		name := clean[m[0]:m[1]]
		if !reported[name] && !known(name) {
			reported[name] = true
			problems = append(problems, ptxProblem{lineAt(m[0]), fmt.Sprintf("Unknown symbol '%s'", name)})
		}
	}
	return problems
}

// stripPTXComments blanks comments and string literals, keeping every
// newline so offsets still give line numbers.
func stripPTXComments(src string) (string, []ptxProblem) {
	b := []byte(src)
	line := 1
	var problems []ptxProblem
	for i := 0; i < len(b); i++ {
		switch {
		case b[i] == '\n':
			line++
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '/':
			for ; i < len(b) && b[i] != '\n'; i++ {
				b[i] = ' '
			}
			i-- // let the newline be counted
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '*':
			start := line
			b[i], b[i+1] = ' ', ' '
			i += 2
			for ; i < len(b) && !(b[i] == '*' && i+1 < len(b) && b[i+1] == '/'); i++ {
				if b[i] == '\n' {
					line++
				} else {
					b[i] = ' '
				}
			}
			if i >= len(b) {
				problems = append(problems, ptxProblem{start, "syntax error: unterminated comment"})
				break
			}
			b[i], b[i+1] = ' ', ' '
			i++
		case b[i] == '"':
			start := line
			for i++; i < len(b) && b[i] != '"' && b[i] != '\n'; i++ {
				b[i] = ' '
			}
			if i >= len(b) || b[i] == '\n' {
				problems = append(problems, ptxProblem{start, "syntax error: unterminated string"})
				i--
			}
		}
	}
	return string(b), problems
}

// lineStarts returns the offset of every line after the first.
func lineStarts(s string) []int {
	var starts []int
	for i := range len(s) {
		if s[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

func firstWord(s string) string {
	if i := strings.IndexAny(s, " \t\r\n;"); i >= 0 {
		return s[:i]
	}
	return s
}
