package device_test

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/gpuarr/gpuarr/device/driver"
)

// Checking mode is the host backend's GPUARR_HOST_CHECK and nothing else:
// CUDA never reports it, and the poison byte is the same everywhere.
func TestCheckingFollowsBackend(t *testing.T) {
	dev := testDevice(t)
	poison, on := dev.Checking()
	assert.Equal(t, byte(driver.PoisonByte), poison)
	want := false
	if dev.Backend() == "host" {
		want, _ = strconv.ParseBool(strings.TrimSpace(os.Getenv("GPUARR_HOST_CHECK")))
	}
	assert.Equal(t, want, on, "checking mode on the %s backend", dev.Backend())
}
