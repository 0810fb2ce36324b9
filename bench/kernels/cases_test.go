package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// -only selects cases by name, in the program's order, and names a wrong
// one together with the names it could have been.
func TestSelectCases(t *testing.T) {
	all, err := selectCases("")
	require.NoError(t, err)
	assert.Len(t, all, len(benchCases))

	got, err := selectCases(" matmul ," + caseHalfMatmulGroup)
	require.NoError(t, err)
	require.Len(t, got, 2)
	assert.Equal(t, caseHalfMatmulGroup, got[0].name, "benchCases' order, not the flag's")
	assert.Equal(t, "matmul", got[1].name)

	_, err = selectCases("matmul,float16")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `no case named "float16"`)
	assert.Contains(t, err.Error(), `"`+caseHalfMatmulGroup+`"`)
}
