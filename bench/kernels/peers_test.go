package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device/dtype"
)

// kernels_peers.py pairs its rows with this program's by name and path:
// its table of elementwise functions (MATH) and its case names must be
// this program's, or the ratios against the targets silently go missing.
// The script needs only Python's standard library to be imported.
func TestPeerScriptPairsEveryRow(t *testing.T) {
	if _, err := os.Stat("../peer/kernels_peers.py"); err != nil {
		t.Skipf("no bench/peer/kernels_peers.py beside this package (a test binary away from its tree): %v", err)
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3 to import bench/peer/kernels_peers.py")
	}
	cmd := exec.Command(py, "-c", `import json, kernels_peers as k
print(json.dumps({"math": [r[:4] for r in k.MATH], "chain": k.CASE_CHAIN,
  "half": [[k.case_half_add(d), k.case_half_matmul(d)] for d in ("float16", "bfloat16")]}))`)
	cmd.Dir = "../peer"
	out, err := cmd.Output()
	require.NoError(t, err, "importing kernels_peers.py")
	var got struct {
		Math  [][]any    `json:"math"`
		Chain string     `json:"chain"`
		Half  [][]string `json:"half"`
	}
	require.NoError(t, json.Unmarshal(out, &got))
	require.Len(t, got.Math, len(functions))
	for i, f := range functions {
		row := got.Math[i]
		assert.Equal(t, f.name, row[0], "row %d's name", i)
		assert.Equal(t, f.path, row[1], "%s: gpuarr's path", f.name)
		assert.NotEmpty(t, row[2], "%s: torch's path", f.name)
		assert.InDelta(t, f.bytes, row[3], 0, "%s: bytes per element", f.name)
	}
	assert.Equal(t, caseChain, got.Chain)
	assert.Equal(t, [][]string{
		{caseHalfAdd(dtype.Float16), caseHalfMatmul(dtype.Float16)},
		{caseHalfAdd(dtype.BFloat16), caseHalfMatmul(dtype.BFloat16)},
	}, got.Half)
}
