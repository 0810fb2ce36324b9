package ptxsim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A module-scope .const table, read through its address in a register
// (mov of the symbol, an offset, ld.const) and through the symbol itself.
const constPTX = header + `
.const .align 8 .b64 tab[4] = {0x1, 0xFFFFFFFFFFFFFFFF, 42};
.const .align 4 .b32 small[2] = {7, 9};
.visible .entry consts(
	.param .u64 out,
	.param .u32 k
)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [out];
	ld.param.u32 %r1, [k];
	mov.u64 %rd2, tab;
	mul.wide.u32 %rd3, %r1, 8;
	add.s64 %rd4, %rd2, %rd3;
	ld.const.u64 %rd5, [%rd4];
	st.global.u64 [%rd1], %rd5;
	ld.const.u32 %r2, [small+4];
	cvt.u64.u32 %rd6, %r2;
	st.global.u64 [%rd1+8], %rd6;
	ret;
}
`

func TestConstTables(t *testing.T) {
	m, err := Parse(constPTX)
	require.NoError(t, err)
	run := func(k uint32) ([]uint64, error) {
		var a Arena
		out := a.Alloc(16)
		err := m.Run("consts", Launch{Grid: Dim3{X: 1}, Block: Dim3{X: 1}, Params: []uint64{out, uint64(k)}, Mem: &a})
		return Get[uint64](&a, out, 2), err
	}
	for k, want := range []uint64{1, 0xFFFFFFFFFFFFFFFF, 42, 0} { // the last element is not initialized: zero
		got, err := run(uint32(k))
		require.NoError(t, err)
		assert.Equal(t, []uint64{want, 9}, got, "tab[%d], small[1]", k)
	}
	// Past the tables: a fault, not a read of something else.
	_, err = run(5)
	assert.ErrorContains(t, err, "const access of 8 bytes")

	_, err = Parse(header + ".const .b32 bad[1] = {1, 2};\n.visible .entry e()\n{\n\tret;\n}\n")
	assert.ErrorContains(t, err, "2 initializers for 1 elements")
	_, err = Parse(header + ".const .b32 two[1];\n.const .b32 two[1];\n.visible .entry e()\n{\n\tret;\n}\n")
	assert.ErrorContains(t, err, "declared twice")
	_, err = Parse(header + ".const .b32 c[1];\n.visible .entry e()\n{\n\t.reg .b32 %r1;\n\tmov.u32 %r1, 1;\n\tst.const.u32 [c], %r1;\n\tret;\n}\n")
	assert.ErrorContains(t, err, "st to .c space is not modelled", "const memory is read-only")
}
