package main

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/bench/report"
)

func TestTablesPrintsMarkdown(t *testing.T) {
	r := report.New("demo", "host:0", "host", 0)
	r.Add("alloc", map[string]string{"size": "512B"}, map[string]float64{"p50_ns": 40})
	dir := t.TempDir()
	require.NoError(t, r.WriteJSON(dir))
	var out bytes.Buffer
	require.NoError(t, tables(&out, []string{filepath.Join(dir, "demo.json")}))
	assert.Contains(t, out.String(), "| alloc | 512B | 40.0 |")
}

func TestTablesBadInput(t *testing.T) {
	var out bytes.Buffer
	assert.ErrorContains(t, tables(&out, nil), "no JSON files given")
	assert.Error(t, tables(&out, []string{filepath.Join(t.TempDir(), "missing.json")}))
}
