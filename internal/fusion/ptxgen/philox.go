package ptxgen

// The Philox4x32-10 generator and gpuarr's random functions, exactly as
// expr.InputKind's doc defines them: key (seed low, seed high),
// counter (counter low, counter high, stream low, stream high), ten rounds
// of Random123's Philox4x32 with the key bumped between rounds, and the
// output words x0..x3 turned into uniforms (bit for bit the Go reference)
// and Box-Muller normals (log_f64 and cos2pi_f64).

// philoxBlock emits the Philox block of the three u64 arguments into
// registers %x0..%x3 (and declares the registers it uses).
func (f *fnBuilder) philoxBlock() {
	f.regs("b64", "%seed", "%ctr", "%strm", "%w")
	f.regs("b32", "%x0", "%x1", "%x2", "%x3", "%k0", "%k1", "%h0", "%l0", "%h1", "%l1")
	f.load("%seed", 0)
	f.load("%ctr", 1)
	f.load("%strm", 2)
	for _, s := range []struct{ src, lo, hi string }{{"%seed", "%k0", "%k1"}, {"%ctr", "%x0", "%x1"}, {"%strm", "%x2", "%x3"}} {
		f.op("cvt.u32.u64 %s, %s", s.lo, s.src)
		f.op("shr.u64 %%w, %s, 32", s.src)
		f.op("cvt.u32.u64 %s, %%w", s.hi)
	}
	for r := range philoxRounds {
		if r > 0 {
			f.op("add.u32 %%k0, %%k0, %d", uint32(philoxW0))
			f.op("add.u32 %%k1, %%k1, %d", uint32(philoxW1))
		}
		// (x0, x1, x2, x3) ← (hi(M1·x2) ^ x1 ^ k0, lo(M1·x2), hi(M0·x0) ^ x3 ^ k1, lo(M0·x0))
		f.op("mul.hi.u32 %%h0, %%x0, %d", uint32(philoxM0))
		f.op("mul.lo.u32 %%l0, %%x0, %d", uint32(philoxM0))
		f.op("mul.hi.u32 %%h1, %%x2, %d", uint32(philoxM1))
		f.op("mul.lo.u32 %%l1, %%x2, %d", uint32(philoxM1))
		f.op("xor.b32 %%x0, %%h1, %%x1")
		f.op("xor.b32 %%x0, %%x0, %%k0")
		f.op("xor.b32 %%x2, %%h0, %%x3")
		f.op("xor.b32 %%x2, %%x2, %%k1")
		f.op("mov.b32 %%x1, %%l1")
		f.op("mov.b32 %%x3, %%l0")
	}
}

// join53 sets the f64 register dst to the top 53 bits of the word pair
// (hi, lo) as an integer, plus add (0 or 1).
func (f *fnBuilder) join53(dst, hi, lo string, add int) {
	f.op("cvt.u64.u32 %%w, %s", hi)
	f.op("shl.b64 %%w, %%w, 32")
	f.op("cvt.u64.u32 %%v, %s", lo)
	f.op("or.b64 %%w, %%w, %%v")
	f.op("shr.u64 %%w, %%w, 11")
	if add != 0 {
		f.op("add.u64 %%w, %%w, %d", add)
	}
	f.op("cvt.rn.f64.u64 %s, %%w", dst)
}

// Uniform float32 = float32(x0>>8)·2⁻²⁴.
func randUniformF32Func() funcDef {
	f := newFn("rand_uniform_f32")
	f.philoxBlock()
	f.regs("b32", "%m")
	f.regs("f32", "%r")
	f.op("shr.u32 %%m, %%x0, 8")
	f.op("cvt.rn.f32.u32 %%r, %%m")
	f.op("mul.rn.f32 %%r, %%r, %s", litF32(twoM24))
	return f.done("%r")
}

// Uniform float64 = float64((x0<<32 | x1)>>11)·2⁻⁵³.
func randUniformF64Func() funcDef {
	f := newFn("rand_uniform_f64")
	f.philoxBlock()
	f.regs("b64", "%v")
	f.regs("f64", "%r")
	f.join53("%r", "%x0", "%x1", 0)
	f.op("mul.rn.f64 %%r, %%r, %s", litF64(twoM53))
	return f.done("%r")
}

// boxMuller emits %z = sqrt(−2·ln(%u1))·cos(2π·%u2).
func (f *fnBuilder) boxMuller() {
	f.regs("f64", "%l", "%rad", "%c", "%z")
	f.call("log_f64", "%l", "%u1")
	f.op("mul.rn.f64 %%l, %%l, %s", litF64(-2))
	f.op("sqrt.rn.f64 %%rad, %%l")
	f.call("cos2pi_f64", "%c", "%u2")
	f.op("mul.rn.f64 %%z, %%rad, %%c")
}

// Normal float32: u1 = float64((x0>>8)+1)·2⁻²⁴, u2 = float64(x1>>8)·2⁻²⁴,
// Box-Muller in float64, rounded to float32.
func randNormalF32Func() funcDef {
	f := newFn("rand_normal_f32")
	f.philoxBlock()
	f.regs("b32", "%m")
	f.regs("f64", "%u1", "%u2")
	f.regs("f32", "%r")
	f.op("shr.u32 %%m, %%x0, 8")
	f.op("add.u32 %%m, %%m, 1")
	f.op("cvt.rn.f64.u32 %%u1, %%m")
	f.op("mul.rn.f64 %%u1, %%u1, %s", litF64(twoM24))
	f.op("shr.u32 %%m, %%x1, 8")
	f.op("cvt.rn.f64.u32 %%u2, %%m")
	f.op("mul.rn.f64 %%u2, %%u2, %s", litF64(twoM24))
	f.boxMuller()
	f.op("cvt.rn.f32.f64 %%r, %%z")
	return f.done("%r")
}

// Normal float64: u1 = float64(((x0<<32|x1)>>11)+1)·2⁻⁵³,
// u2 = float64((x2<<32|x3)>>11)·2⁻⁵³.
func randNormalF64Func() funcDef {
	f := newFn("rand_normal_f64")
	f.philoxBlock()
	f.regs("b64", "%v")
	f.regs("f64", "%u1", "%u2")
	f.join53("%u1", "%x0", "%x1", 1)
	f.op("mul.rn.f64 %%u1, %%u1, %s", litF64(twoM53))
	f.join53("%u2", "%x2", "%x3", 0)
	f.op("mul.rn.f64 %%u2, %%u2, %s", litF64(twoM53))
	f.boxMuller()
	return f.done("%z")
}
