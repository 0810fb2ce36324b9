package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
	gmem "github.com/gpuarr/gpuarr/memory"
)

func TestRunUsage(t *testing.T) {
	cases := []struct {
		name     string
		args     []string
		code     int
		inStdout string
		inStderr string
	}{
		{"no command", nil, 2, "", "usage: gpuarr"},
		{"unknown command", []string{"frobnicate"}, 2, "", `unknown command "frobnicate"`},
		{"info with an argument", []string{"info", "extra"}, 2, "", `unexpected argument "extra"`},
		{"help", []string{"help"}, 0, "usage: gpuarr", ""},
		{"help names host:N", []string{"help"}, 0, "GPUARR_DEVICE=host|host:N|cuda|cuda:N", ""},
		{"-h", []string{"-h"}, 0, "usage: gpuarr", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			assert.Equal(t, c.code, run(c.args, &out, &errOut))
			assert.Contains(t, out.String(), c.inStdout)
			assert.Contains(t, errOut.String(), c.inStderr)
		})
	}
}

// TestInfo runs on whichever device is selected: the default device must
// appear in the table, marked, and every device of its backend listed.
func TestInfo(t *testing.T) {
	def, err := device.Default()
	require.NoError(t, err)
	devs, err := device.Devices()
	require.NoError(t, err)

	var out, errOut bytes.Buffer
	require.Equal(t, 0, run([]string{"info"}, &out, &errOut), errOut.String())
	text := out.String()
	assert.Contains(t, text, "default: "+def.String())
	assert.Regexp(t, `(?m)^\*\s+`+def.Backend()+`:`+strconv.Itoa(def.Ordinal())+`\s`, text)
	for _, d := range devs {
		assert.Contains(t, text, d.Backend()+":"+strconv.Itoa(d.Ordinal()))
	}
	// The host device is no GPU: its CC column is "-".
	lines := strings.Split(text, "\n")
	cc := -1
	hostRows := 0
	for _, l := range lines {
		if i := strings.Index(l, " CC "); i >= 0 && strings.Contains(l, "DEVICE") {
			cc = i + 1
			continue
		}
		if cc >= 0 && len(l) > cc && strings.HasPrefix(strings.TrimLeft(l, "* "), "host:") {
			hostRows++
			assert.Equal(t, "-", strings.Fields(l[cc:])[0], "CC of the host device: %q", l)
		}
	}
	assert.Positive(t, hostRows, "the host devices are listed")
	if _, err := device.BackendDevices("cuda"); err != nil {
		assert.Contains(t, text, "cuda: ", "an unusable CUDA backend says why")
	}
}

func TestFormatting(t *testing.T) {
	assert.Equal(t, "13.0", driverVersion(13000))
	assert.Equal(t, "12.8", driverVersion(12080))
	assert.Equal(t, "-", driverVersion(0))
	assert.Equal(t, "9.0", computeCapability("cuda", 9, 0))
	assert.Equal(t, "-", computeCapability("cuda", 0, 0))
	assert.Equal(t, "-", computeCapability("host", 9, 0), "the host device is no GPU")
	assert.Equal(t, "-", bytesOrDash(0))
	assert.Equal(t, "512 B", bytesOrDash(512))
	assert.Equal(t, "2.00 GiB", bytesOrDash(2<<30))
	assert.Equal(t, "79.2 GiB", bytesOrDash(85_045_460_992))
	assert.Equal(t, "50.0 MiB", bytesOrDash(50<<20))
}

// memviz turns a trace recorded on the selected device into the page, to
// standard output or -o; bad arguments are usage errors, an unreadable
// trace a failure naming the file.
func TestMemviz(t *testing.T) {
	dev, err := device.Default()
	require.NoError(t, err)
	r, tr := gmem.Trace(gmem.Caching(gmem.Direct(dev), gmem.CachingOptions{}), 100)
	b, err := r.Alloc(nil, 4096)
	require.NoError(t, err)
	require.NoError(t, r.Free(b))
	dir := t.TempDir()
	trace := filepath.Join(dir, "trace.json")
	require.NoError(t, tr.WriteFile(trace))

	var out, errOut bytes.Buffer
	require.Equal(t, 0, run([]string{"memviz", trace}, &out, &errOut), errOut.String())
	assert.Contains(t, out.String(), "<canvas")
	assert.Contains(t, out.String(), `"t0":[`)
	assert.Contains(t, out.String(), "TestMemviz")

	page := filepath.Join(dir, "page.html")
	out.Reset()
	require.Equal(t, 0, run([]string{"memviz", "-o", page, trace}, &out, &errOut), errOut.String())
	assert.Empty(t, out.String())
	html, err := os.ReadFile(page)
	require.NoError(t, err)
	assert.Contains(t, string(html), "TestMemviz")

	errOut.Reset()
	assert.Equal(t, 2, run([]string{"memviz"}, &out, &errOut))
	assert.Contains(t, errOut.String(), "want one trace file")
	errOut.Reset()
	assert.Equal(t, 1, run([]string{"memviz", filepath.Join(dir, "missing.json")}, &out, &errOut))
	assert.Contains(t, errOut.String(), "missing.json")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "other.json"), []byte(`{"traceEvents":[]}`), 0o644))
	errOut.Reset()
	assert.Equal(t, 1, run([]string{"memviz", filepath.Join(dir, "other.json")}, &out, &errOut))
	assert.Contains(t, errOut.String(), "not a gpuarr memory trace")
}
