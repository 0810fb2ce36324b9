//go:build cgo

package cuda

/*
#include "shim.h"
*/
import "C"

import (
	"github.com/gpuarr/gpuarr/device/driver"
)

// Capture modes and statuses as in cuda.h.
const (
	// captureModeRelaxed is CU_STREAM_CAPTURE_MODE_RELAXED. GLOBAL and
	// THREAD_LOCAL tie a capture to the OS thread that began it (a
	// potentially unsafe call on another thread, or EndCapture from another
	// thread, fails with STREAM_CAPTURE_WRONG_THREAD), but a goroutine
	// migrates between OS threads between any two cgo calls, so Go cannot
	// keep that promise. RELAXED has no thread affinity.
	captureModeRelaxed = 2
	// captureStatusActive is CU_STREAM_CAPTURE_STATUS_ACTIVE.
	captureStatusActive = 1
)

func (s *stream) BeginCapture() error {
	if err := s.check("cuStreamBeginCapture_v2"); err != nil {
		return err
	}
	if rc := C.gp_stream_begin_capture(s.dev.ctx, s.h, captureModeRelaxed); rc != 0 {
		return s.dev.fail(int64(rc), "stream %#x on %s", uintptr(s.h), s.dev)
	}
	return nil
}

func (s *stream) EndCapture() (driver.Graph, error) {
	if err := s.check("cuStreamEndCapture"); err != nil {
		return nil, err
	}
	r := C.gp_stream_end_capture(s.dev.ctx, s.h)
	if r.rc != 0 {
		return nil, s.dev.fail(int64(r.rc), "stream %#x on %s", uintptr(s.h), s.dev)
	}
	return &graph{dev: s.dev, g: C.gp_h(r.v), exec: C.gp_h(r.w)}, nil
}

func (s *stream) Capturing() (bool, error) {
	if err := s.check("cuStreamIsCapturing"); err != nil {
		return false, err
	}
	r := C.gp_stream_is_capturing(s.dev.ctx, s.h)
	if r.rc != 0 {
		return false, s.dev.fail(int64(r.rc), "")
	}
	return r.v == captureStatusActive, nil
}
