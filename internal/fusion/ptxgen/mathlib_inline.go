package ptxgen

import (
	"fmt"
	"regexp"
	"strings"
)

// Kernels copy the library functions they use into their own body
// (InlineFunc) instead of calling the .func definitions: ptxas compiles a
// .func call as a real call, which keeps the calls of a vector's elements
// from overlapping, and a copy lets it interleave them. A copy is a { }
// scope that declares the function's registers and labels renamed for
// the call site, moves the arguments into the registers the function
// loads them into, runs the body (a function the body calls is copied in
// turn) and moves the result out. The .func definitions (FuncDefs,
// CallFunc) remain the form the tests run the functions in one at a time.

// inlineBody is a function's body as InlineFunc copies it.
type inlineBody struct {
	decls  []regDecl // the registers the body declares
	labels []string  // the labels it places
	params []string  // the register argument i is loaded into ("" if unread)
	body   []segment
	result string // the register holding the result at the end
}

type regDecl struct{ t, name string }

// segment is a run of instructions or a call of another library function.
type segment struct {
	text string
	call *callSite
}

type callSite struct {
	name, ret string
	args      []string
}

// InlineFunc returns PTX lines (one { } scope) that compute library
// function name of the argument registers into register ret, as CallFunc
// does with a call. seq numbers the copy: every copy in one kernel needs
// its own, as its registers and labels are named after it (the function's
// own names with "_i<seq>" added), and the copies of the functions it calls
// take the numbers after it. It returns the next free number. The
// registers must have the PTX types of the signature. An unknown name or
// a wrong argument count is a bug in the caller, and InlineFunc panics.
func InlineFunc(name, ret string, seq int, args ...string) (string, int) {
	var b strings.Builder
	next := inlineInto(&b, name, ret, seq, args)
	return b.String(), next
}

func inlineInto(b *strings.Builder, name, ret string, seq int, args []string) int {
	def, ok := libFuncs()[name]
	if !ok || def.ret == "" {
		panic(fmt.Sprintf("ptxgen.InlineFunc: unknown math library function %q", name))
	}
	if len(args) != len(def.args) {
		panic(fmt.Sprintf("ptxgen.InlineFunc: %s takes %d arguments, got %d", name, len(def.args), len(args)))
	}
	suffix := fmt.Sprintf("_i%d", seq)
	next := seq + 1
	own := make(map[string]string, len(def.decls)+len(def.labels))
	for _, d := range def.decls {
		own[d.name] = d.name + suffix
	}
	for _, l := range def.labels {
		own[l] = l + suffix
	}
	rename := func(s string) string {
		return reInlineName.ReplaceAllStringFunc(s, func(tok string) string {
			if r, ok := own[tok]; ok {
				return r
			}
			return tok
		})
	}
	fmt.Fprintf(b, "\t{ // %s\n", name)
	for _, d := range def.decls {
		fmt.Fprintf(b, "\t.reg .%s %s;\n", d.t, own[d.name])
	}
	for i, p := range def.params {
		if p != "" {
			fmt.Fprintf(b, "\tmov.%s %s, %s;\n", movType(def.args[i]), own[p], args[i])
		}
	}
	for _, s := range def.body {
		if s.call == nil {
			b.WriteString(rename(s.text))
			continue
		}
		cargs := make([]string, len(s.call.args))
		for i, a := range s.call.args {
			cargs[i] = rename(a)
		}
		next = inlineInto(b, s.call.name, rename(s.call.ret), next, cargs)
	}
	fmt.Fprintf(b, "\tmov.%s %s, %s;\n\t}\n", movType(def.ret), ret, rename(def.result))
	return next
}

// reInlineName matches a register or label name.
var reInlineName = regexp.MustCompile(`[%$][A-Za-z_$][\w$]*`)

// movType is the mov type for a value of PTX type t.
func movType(t string) string {
	switch t {
	case "s32", "u32":
		return "b32"
	case "s64", "u64":
		return "b64"
	}
	return t
}

// InlineDefs returns the module-scope definitions that copies of the named
// functions (InlineFunc) need: the .const tables they read, each once. An
// unknown name is an error.
func InlineDefs(names []string) (string, error) {
	return libDefs("InlineDefs", names, func(d funcDef) bool { return d.ret == "" })
}
