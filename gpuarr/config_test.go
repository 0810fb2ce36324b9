package gpuarr_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
)

// envConfigChild marks the test binary run by TestMalformedVariablesFailAllocations.
const envConfigChild = "GPUARR_TEST_CONFIG_CHILD"

// A malformed variable of the eager collection (package gcpressure)
// fails the first allocation, and every one after, with an error that
// names it and matches device.ErrBadConfig, as a malformed
// GPUARR_MEMORY_POOL does; it used to be ignored. The variables are read
// once per process, so each case runs in a process of its own.
func TestMalformedVariablesFailAllocations(t *testing.T) {
	if os.Getenv(envConfigChild) == "1" {
		for range 2 {
			_, err := gpuarr.Zeros[float32](gpuarr.Shape{4})
			fmt.Printf("badconfig=%v err=%v\n", errors.Is(err, device.ErrBadConfig), err)
		}
		return
	}
	for _, tc := range []struct{ env, value string }{
		{"GPUARR_GC_THRESHOLD", "high"},
		{"GPUARR_GC_BLOCKING_THRESHOLD", "2"},
		{"GPUARR_GC_EARLY", "sometimes"},
		{"GPUARR_GC_BACKGROUND", "maybe"},
		{"GPUARR_DEBUG", "gcc"},
		{"", ""}, // the control: nothing malformed
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestMalformedVariablesFailAllocations$", "-test.count=1")
		cmd.Env = append(os.Environ(), envConfigChild+"=1")
		if tc.env != "" {
			cmd.Env = append(cmd.Env, tc.env+"="+tc.value)
		}
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		lines := 0
		for l := range strings.SplitSeq(string(out), "\n") {
			if !strings.HasPrefix(l, "badconfig=") {
				continue
			}
			lines++
			if tc.env == "" {
				assert.Equal(t, "badconfig=false err=<nil>", l)
				continue
			}
			assert.True(t, strings.HasPrefix(l, "badconfig=true err=gpuarr.Zeros: "), l)
			assert.Contains(t, l, tc.env+`="`+tc.value+`"`)
		}
		assert.Equal(t, 2, lines, "%s", out)
	}
}
