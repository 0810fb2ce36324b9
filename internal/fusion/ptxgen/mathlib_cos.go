package ptxgen

// cos2pi_f64(u) = cos(2π·u) for u in [0, 1), Box-Muller's angle. The
// quadrant reduction uses u itself, so it is exact: q = rint(4u),
// t = u − q/4 in [−⅛, ⅛], θ = 2π·t in [−π/4, π/4], and by q mod 4 the
// result is cos θ, −sin θ, −cos θ or sin θ (Taylor series; error ~1e-16).

func cos2piF64Func() funcDef {
	f := newFn("cos2pi_f64")
	f.regs("f64", "%u", "%q", "%t", "%th", "%th2", "%th3", "%ps", "%pc", "%s", "%c", "%ns", "%nc", "%r")
	f.regs("b32", "%qi")
	f.regs("pred", "%pq")
	f.load("%u", 0)
	f.op("mul.rn.f64 %%t, %%u, %s", litF64(4))
	f.op("cvt.rni.f64.f64 %%q, %%t")
	f.op("fma.rn.f64 %%t, %%q, %s, %%u", litF64(-0.25))
	f.op("mul.rn.f64 %%th, %%t, %s", litF64(twoPi))
	f.op("mul.rn.f64 %%th2, %%th, %%th")
	f.op("mul.rn.f64 %%th3, %%th, %%th2")
	f.horner64("%ps", "%th2", sinF64Coef)
	f.op("fma.rn.f64 %%s, %%th3, %%ps, %%th")
	f.horner64("%pc", "%th2", cosF64Coef)
	f.op("fma.rn.f64 %%c, %%th2, %%pc, %s", litF64(1))
	f.op("neg.f64 %%ns, %%s")
	f.op("neg.f64 %%nc, %%c")
	f.op("cvt.rni.s32.f64 %%qi, %%q")
	f.op("and.b32 %%qi, %%qi, 3")
	f.op("mov.f64 %%r, %%c")
	f.op("setp.eq.s32 %%pq, %%qi, 1")
	f.op("selp.f64 %%r, %%ns, %%r, %%pq")
	f.op("setp.eq.s32 %%pq, %%qi, 2")
	f.op("selp.f64 %%r, %%nc, %%r, %%pq")
	f.op("setp.eq.s32 %%pq, %%qi, 3")
	f.op("selp.f64 %%r, %%s, %%r, %%pq")
	return f.done("%r")
}
