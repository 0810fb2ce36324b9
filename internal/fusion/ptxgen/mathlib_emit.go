package ptxgen

import (
	"fmt"
	"math"
	"strings"
)

// funcDef is one library function: its PTX signature, the library
// functions it calls, its .func text, and its body in the form InlineFunc
// copies into a kernel. A definition without a signature is a .const
// table that functions read (text only).
type funcDef struct {
	mathSig
	deps []string
	text string
	inlineBody
}

// Parameter names of every library .func: the result and the arguments.
const (
	retParam = "gpuarr_ret"
	argParam = "gpuarr_p"
)

// Names of the .param variables at a call site (CallFunc).
const (
	callRet = "gpuarr_cr"
	callArg = "gpuarr_ca"
)

// symbol is the PTX name of library function name.
func mathSymbol(name string) string { return "gpuarr_" + name }

// paramType is the .param declaration type carrying a value of PTX type t
// (the untyped .b32/.b64 that nvcc uses too).
func mathParamType(t string) string {
	if t == "f32" {
		return "b32"
	}
	return "b64"
}

// fnBuilder writes one .func body. Registers are named (%x, %n, …), and a
// .func body is its own register scope, so names never clash with the
// kernel's.
type fnBuilder struct {
	name string
	def  funcDef
	head strings.Builder // signature and register declarations
	b    strings.Builder // instructions
	cur  strings.Builder // instructions since the last call, for the inline form

	nregs, nlabels int // fresh registers and labels (mathlib_build.go)
}

func newFn(name string) *fnBuilder {
	s, ok := mathSigs[name]
	if !ok {
		panic("ptxgen: no signature for math library function " + name)
	}
	f := &fnBuilder{name: name, def: funcDef{mathSig: s}}
	params := make([]string, len(s.args))
	for i, t := range s.args {
		params[i] = fmt.Sprintf(".param .%s %s%d", mathParamType(t), argParam, i)
	}
	fmt.Fprintf(&f.head, "// %s: gpuarr math library\n.func (.param .%s %s) %s(%s)\n{\n",
		name, mathParamType(s.ret), retParam, mathSymbol(name), strings.Join(params, ", "))
	return f
}

// regs declares registers of PTX type t (at the top of the body, wherever
// regs is called).
func (f *fnBuilder) regs(t string, names ...string) {
	fmt.Fprintf(&f.head, "\t.reg .%s %s;\n", t, strings.Join(names, ", "))
	for _, n := range names {
		f.def.decls = append(f.def.decls, regDecl{t, n})
	}
}

// op writes one instruction (the ; is added).
func (f *fnBuilder) op(format string, args ...any) {
	line := fmt.Sprintf("\t"+format+";\n", args...)
	f.b.WriteString(line)
	f.cur.WriteString(line)
}

// load reads argument i into register reg.
func (f *fnBuilder) load(reg string, i int) {
	fmt.Fprintf(&f.b, "\tld.param.%s %s, [%s%d];\n", f.def.args[i], reg, argParam, i)
	if f.def.params == nil {
		f.def.params = make([]string, len(f.def.args))
	}
	if f.def.params[i] != "" {
		panic(fmt.Sprintf("ptxgen: %s loads argument %d twice", f.name, i))
	}
	f.def.params[i] = reg
}

// call calls library function name (recording the dependency).
func (f *fnBuilder) call(name, ret string, args ...string) {
	f.def.deps = append(f.def.deps, name)
	f.b.WriteString(CallFunc(name, ret, args...))
	f.flush()
	f.def.body = append(f.def.body, segment{call: &callSite{name, ret, args}})
}

// flush ends the inline form's current run of instructions.
func (f *fnBuilder) flush() {
	if f.cur.Len() > 0 {
		f.def.body = append(f.def.body, segment{text: f.cur.String()})
		f.cur.Reset()
	}
}

// done stores reg as the result and closes the function.
func (f *fnBuilder) done(reg string) funcDef {
	fmt.Fprintf(&f.b, "\tst.param.%s [%s], %s;\n\tret;\n}\n", f.def.ret, retParam, reg)
	f.flush()
	f.def.result = reg
	f.def.text = f.head.String() + f.b.String()
	return f.def
}

// horner64 sets dst = c[0] + x·(c[1] + x·(… c[n-1])) with one fma per
// coefficient, the order the Go models use.
func (f *fnBuilder) horner64(dst, x string, c []float64) {
	f.op("mov.f64 %s, %s", dst, litF64(c[len(c)-1]))
	for i := len(c) - 2; i >= 0; i-- {
		f.op("fma.rn.f64 %s, %s, %s, %s", dst, dst, x, litF64(c[i]))
	}
}

// horner32 is horner64 in float32.
func (f *fnBuilder) horner32(dst, x string, c []float32) {
	f.op("mov.f32 %s, %s", dst, litF32(c[len(c)-1]))
	for i := len(c) - 2; i >= 0; i-- {
		f.op("fma.rn.f32 %s, %s, %s, %s", dst, dst, x, litF32(c[i]))
	}
}

// f64c and f32c spell a float constant exactly, as PTX hex literals.
func litF64(v float64) string { return fmt.Sprintf("0d%016X", math.Float64bits(v)) }
func litF32(v float32) string { return fmt.Sprintf("0f%08X", math.Float32bits(v)) }
