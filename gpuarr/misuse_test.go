package gpuarr_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/internal/arrayhook"
	"github.com/gpuarr/gpuarr/memory"
)

// A nil *Array and the zero Array are not arrays. Every function and
// method that returns an error says so with ErrArgument (no nil
// dereference); the accessors without an error result panic with a
// message naming the method and the problem; String, Describe and Err
// never panic.
func TestNilAndZeroArrays(t *testing.T) {
	dev := testDevice(t)
	ks := kernels(t, dev)
	x := must(gpuarr.FromSlice([]float32{1, 2, 3, 4, 5, 6}, gpuarr.Shape{2, 3}))
	defer x.Release()
	y := must(gpuarr.Zeros[float32](gpuarr.Shape{2, 3}))
	defer y.Release()
	s := dev.DefaultStream()

	for _, tc := range []struct {
		name, want string
		a          *gpuarr.Array[float32]
	}{
		{"nil", "nil array", nil},
		{"zero", "zero Array", &gpuarr.Array[float32]{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := tc.a
			calls := map[string]func() error{
				"ToSlice":      func() error { _, err := a.ToSlice(); return err },
				"CopyToHost":   func() error { return a.CopyToHost(make([]float32, 6)) },
				"CopyFromHost": func() error { return a.CopyFromHost(make([]float32, 6)) },
				"Reshape":      func() error { _, err := a.Reshape(gpuarr.Shape{6}); return err },
				"Slice":        func() error { _, err := a.Slice(0, 1); return err },
				"Transpose":    func() error { _, err := a.Transpose(); return err },
				"Permute":      func() error { _, err := a.Permute(1, 0); return err },
				"Step":         func() error { _, err := a.Step(0, 0, 1, 1); return err },
				"Item":         func() error { _, err := a.Item(); return err },
				"Clone":        func() error { _, err := gpuarr.Clone(a); return err },
				"Copy dst":     func() error { return gpuarr.Copy(a, x) },
				"Copy src":     func() error { return gpuarr.Copy(y, a) },
				"Eval":         func() error { _, err := gpuarr.Eval[float32](a); return err },
				"Eval operand": func() error { _, err := gpuarr.Eval(gpuarr.Add[float32](x, a)); return err },
				"EvalInto dst": func() error { return gpuarr.EvalInto(a, gpuarr.Scalar[float32](1)) },
				"EvalInto src": func() error { return gpuarr.EvalInto[float32](y, a) },
				"Sum":          func() error { _, err := gpuarr.Sum[float32](a); return err },
				"ArgMax":       func() error { _, err := gpuarr.ArgMax[float32](a); return err },
				"Matmul a":     func() error { _, err := gpuarr.Matmul(a, x); return err },
				"Matmul b":     func() error { _, err := gpuarr.Matmul(x, a); return err },
				"MatmulInto":   func() error { return gpuarr.MatmulInto(a, x, x) },
				"Launch":       func() error { return gpuarr.Launch(ks.Fill, linear(6), gpuarr.Out(a), uint32(1), uint64(6)) },
				"Track": func() error {
					return arrayhook.Track("Test", []arrayhook.Use{arrayhook.Reads(a, s)}, func() error { return nil })
				},
				"PrepareHostAccess": func() error { _, err := arrayhook.PrepareHostAccess(a, arrayhook.HostAccess{}); return err },
				"UseMemory": func() error {
					return arrayhook.UseMemory(a, nil, false, func(device.Ptr, uint64, memory.Resource) error { return nil })
				},
				"Err": a.Err,
			}
			if a != nil {
				calls["Release"] = a.Release
			}
			for name, call := range calls {
				var err error
				require.NotPanics(t, func() { err = call() }, name)
				require.ErrorIs(t, err, gpuarr.ErrArgument, name)
				assert.Contains(t, err.Error(), tc.want, name)
			}
			if a == nil {
				assert.NoError(t, a.Release(), "defer x.Release() before checking the error is safe")
			}

			accessors := map[string]func(){
				"Array.Shape":    func() { a.Shape() },
				"Array.Rank":     func() { a.Rank() },
				"Array.Len":      func() { a.Len() },
				"Array.Bytes":    func() { a.Bytes() },
				"Array.Strides":  func() { a.Strides() },
				"Array.Device":   func() { a.Device() },
				"Array.Released": func() { a.Released() },
				"DevicePtr":      func() { arrayhook.DevicePtr(a) },
			}
			what := "a nil *Array"
			if a != nil {
				what = "the zero Array"
			}
			for name, f := range accessors {
				msg := panicMessage(f)
				assert.Contains(t, msg, "gpuarr: "+name+" called on "+what, name)
			}
			assert.NotPanics(t, func() { _ = a.String(); _ = a.Describe(); _ = fmt.Sprint(a) })
			assert.Contains(t, a.String(), tc.name)
		})
	}
}

// panicMessage runs f and returns what it panicked with, as text ("" if
// it did not panic).
func panicMessage(f func()) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprint(r)
		}
	}()
	f()
	return ""
}

// Err is nil for a usable array and matches ErrReleased after Release.
func TestErr(t *testing.T) {
	x := must(gpuarr.Zeros[int32](gpuarr.Shape{4}))
	require.NoError(t, x.Err())
	v := must(x.Slice(1, 3))
	require.NoError(t, x.Release())
	require.ErrorIs(t, x.Err(), gpuarr.ErrReleased)
	require.NoError(t, v.Err(), "the view keeps the memory")
	require.NoError(t, v.Release())
	assert.Contains(t, x.Describe(), "int32[4] array on ")
	assert.Contains(t, x.Describe(), "(released)")
}
