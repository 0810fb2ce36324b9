package gpuarr_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
)

// Bad input gets an error that says what was wrong once, in the user's
// terms: the sentinel it matches, the words that matter, and none of the
// misleading ones the messages used to have.
func TestMessagesSayWhatWasWrong(t *testing.T) {
	dev := testDevice(t)
	x := must(gpuarr.FromSlice([]float32{1, 2, 3, 4, 5, 6}, gpuarr.Shape{2, 3}))
	defer x.Release()
	x3 := must(gpuarr.Zeros[float32](gpuarr.Shape{2, 3, 4}))
	defer x3.Release()
	v := must(gpuarr.Zeros[float32](gpuarr.Shape{3}))
	defer v.Release()
	gone := must(gpuarr.Zeros[float32](gpuarr.Shape{3}))
	require.NoError(t, gone.Release())

	for _, tc := range []struct {
		name     string
		run      func() error
		sentinel error
		want     []string
		not      []string
	}{
		{"Reshape with two -1", func() error { _, err := x.Reshape(gpuarr.Shape{-1, -1}); return err },
			gpuarr.ErrShape, []string{"shape [-1 -1]", "only one extent may be -1"}, []string{"[1 -1]"}},
		{"Reshape that cannot be inferred", func() error { _, err := x.Reshape(gpuarr.Shape{4, -1}); return err },
			gpuarr.ErrShape, []string{"cannot infer the -1 in [4 -1]", "6 elements"}, nil},
		{"Matmul of stacks that do not broadcast", func() error {
			_, err := gpuarr.Matmul(x3, must(gpuarr.Zeros[float32](gpuarr.Shape{3, 4, 2})))
			return err
		},
			gpuarr.ErrShape, []string{"float32[2 3 4]", "float32[3 4 2]", "stacks [2] and [3] do not broadcast"}, nil},
		{"Matmul of a vector that does not match", func() error { _, err := gpuarr.Matmul(v, x); return err },
			gpuarr.ErrShape, []string{"float32[3]", "3 columns do not match b's 2 rows"}, nil},
		{"Matmul of a scalar", func() error { _, err := gpuarr.Matmul(must(x.Index(gpuarr.At(0), gpuarr.At(0))), x); return err },
			gpuarr.ErrShape, []string{"a scalar", "Mul"}, nil},
		{"Step 0", func() error { _, err := x.Step(1, 0, 3, 0); return err },
			gpuarr.ErrShape, []string{"step 0", "positive", "negative"}, []string{"out of range"}},
		{"Step past the end", func() error { _, err := x.Step(1, 0, 4, 1); return err },
			gpuarr.ErrShape, []string{"stop 4", "0 ≤ start ≤ stop ≤ 3"}, nil},
		{"Step backwards from past the end", func() error { _, err := x.Step(1, 3, -1, -1); return err },
			gpuarr.ErrShape, []string{"start 3", "-1 ≤ stop ≤ start < 3"}, nil},
		{"Permute with too few axes", func() error { _, err := x.Permute(0); return err },
			gpuarr.ErrShape, []string{"1 axes [0]", "all 2 axes"}, nil},
		{"released array, wrong length", func() error { return gone.CopyToHost(nil) },
			gpuarr.ErrReleased, []string{"float32[3] array", "after Release"}, []string{"destination"}},
		{"released source of Copy", func() error { return gpuarr.Copy(x, gone) },
			gpuarr.ErrReleased, []string{"src"}, []string{"bad shape"}},
		{"Matmul shapes", func() error { _, err := gpuarr.Matmul(x, x); return err },
			gpuarr.ErrShape, []string{"3 columns", "2 rows"}, nil},
	} {
		err := tc.run()
		require.ErrorIs(t, err, tc.sentinel, tc.name)
		msg := err.Error()
		for _, w := range tc.want {
			assert.Contains(t, msg, w, tc.name)
		}
		for _, w := range tc.not {
			assert.NotContains(t, msg, w, tc.name)
		}
		checkMessage(t, dev, msg)
	}
}

// checkMessage asserts what every message of this package should be: a
// bounded length, the device named by its short name and not over and
// over, and no CUDA names on the host backend.
func checkMessage(t *testing.T, dev *device.Device, msg string) {
	t.Helper()
	assert.LessOrEqual(t, len(msg), 240, msg)
	assert.LessOrEqual(t, strings.Count(msg, dev.String()), 2, "the device named over and over: %s", msg)
	assert.NotContains(t, msg, dev.Name(), "the product name repeated in a message: %s", msg)
	if dev.Backend() == "host" {
		assert.NotContains(t, msg, "CUDA_ERROR", msg)
	}
}

// A survey of bad inputs: every one is an error (no panic) that matches
// one of the package's sentinels and passes checkMessage.
func TestBadInputSurvey(t *testing.T) {
	dev := testDevice(t)
	x := must(gpuarr.FromSlice([]float32{1, 2, 3, 4, 5, 6}, gpuarr.Shape{2, 3}))
	defer x.Release()
	tr := must(x.Transpose())
	defer tr.Release()
	empty := must(gpuarr.Zeros[float32](gpuarr.Shape{0}))
	defer empty.Release()
	calls := map[string]func() error{
		"negative extent":   func() error { _, err := gpuarr.Zeros[float32](gpuarr.Shape{2, -1}); return err },
		"overflowing shape": func() error { _, err := gpuarr.Zeros[float32](gpuarr.Shape{1 << 40, 1 << 40}); return err },
		"FromSlice length":  func() error { _, err := gpuarr.FromSlice([]float32{1}, gpuarr.Shape{2}); return err },
		"Reshape count":     func() error { _, err := x.Reshape(gpuarr.Shape{5}); return err },
		"Reshape negative":  func() error { _, err := x.Reshape(gpuarr.Shape{-2, 3}); return err },
		"Slice of a scalar": func() error { _, err := must(x.Index(gpuarr.At(0), gpuarr.At(0))).Slice(0, 1); return err },
		"Index step 0":      func() error { _, err := x.Index(gpuarr.Every(0)); return err },
		"Index At":          func() error { _, err := x.Index(gpuarr.At(-3)); return err },
		"Index items":       func() error { _, err := x.Index(gpuarr.Colon, gpuarr.Colon, gpuarr.At(0)); return err },
		"Index ellipses":    func() error { _, err := x.Index(gpuarr.Ellipsis, gpuarr.Ellipsis); return err },
		"Index nil":         func() error { _, err := x.Index(nil); return err },
		"Squeeze":           func() error { _, err := x.Squeeze(0); return err },
		"ExpandDims":        func() error { _, err := x.ExpandDims(3); return err },
		"Flip axis":         func() error { _, err := x.Flip(2); return err },
		"BroadcastTo":       func() error { _, err := x.BroadcastTo(gpuarr.Shape{3, 3}); return err },
		"Diagonal axes":     func() error { _, err := x.Diagonal(0, 1, -1); return err },
		"Arange step 0":     func() error { _, err := gpuarr.Arange[int32](0, 5, 0); return err },
		"Linspace num":      func() error { _, err := gpuarr.Linspace[float32](0, 1, -1); return err },
		"Eye":               func() error { _, err := gpuarr.Eye[float32](-1, 2, 0); return err },
		"Var Ddof":          func() error { _, err := gpuarr.Var[float32](x, gpuarr.Ddof(-1)); return err },
		"Norm Ord":          func() error { _, err := gpuarr.Norm[float32](x, gpuarr.Ord(2)); return err },
		"Roll axis":         func() error { _, err := gpuarr.Roll(x, 1, gpuarr.Axis(2)); return err },
		"Triu of a vector":  func() error { _, err := gpuarr.Eval(gpuarr.Triu[float32](empty, 0)); return err },
		"Step axis":         func() error { _, err := x.Step(2, 0, 1, 1); return err },
		"Einsum 3 operands": func() error { _, err := gpuarr.Einsum("ij,jk,kl", []*gpuarr.Array[float32]{x, tr, x}); return err },
		"Einsum label":      func() error { _, err := gpuarr.Einsum("i1,jk", []*gpuarr.Array[float32]{x, tr}); return err },
		"Einsum output":     func() error { _, err := gpuarr.Einsum("ij,jk->iz", []*gpuarr.Array[float32]{x, tr}); return err },
		"Einsum repeat":     func() error { _, err := gpuarr.Einsum("ij,jk->ii", []*gpuarr.Array[float32]{x, tr}); return err },
		"Einsum extents":    func() error { _, err := gpuarr.Einsum("ij,jk->ik", []*gpuarr.Array[float32]{x, x}); return err },
		"Einsum rank":       func() error { _, err := gpuarr.Einsum("ijk->i", []*gpuarr.Array[float32]{x}); return err },
		"Einsum ellipsis":   func() error { _, err := gpuarr.Einsum("...j->j", []*gpuarr.Array[float32]{x}); return err },
		"Dot shapes":        func() error { _, err := gpuarr.Dot(x, must(gpuarr.Zeros[float32](gpuarr.Shape{2, 2, 2}))); return err },
		"Permute repeated":  func() error { _, err := x.Permute(0, 0); return err },
		"Copy shapes":       func() error { return gpuarr.Copy(x, empty) },
		"CopyToHost length": func() error { return x.CopyToHost(make([]float32, 5)) },
		"CopyFromHost strided": func() error {
			return tr.CopyFromHost(make([]float32, 6))
		},
		"Add shapes":    func() error { _, err := gpuarr.Eval(gpuarr.Add[float32](x, empty)); return err },
		"EvalInto":      func() error { return gpuarr.EvalInto(empty, gpuarr.Add[float32](x, x)) },
		"Item":          func() error { _, err := x.Item(); return err },
		"Mean of none":  func() error { _, err := gpuarr.Mean[float32](empty); return err },
		"On(nil)":       func() error { _, err := gpuarr.Zeros[float32](gpuarr.Shape{2}, gpuarr.On(nil)); return err },
		"OnDevice(nil)": func() error { _, err := gpuarr.Zeros[float32](gpuarr.Shape{2}, gpuarr.OnDevice(nil)); return err },
		"nil RNG":       func() error { _, err := gpuarr.Eval(gpuarr.NormalExpr[float32](nil, gpuarr.Shape{2})); return err },
		"zero Expr":     func() error { _, err := gpuarr.Eval(gpuarr.Expr[float32]{}); return err },
		"unwrapped array in Launch": func() error {
			return gpuarr.Launch(kernels(t, dev).Fill, linear(6), x, uint32(1), uint64(6))
		},
		"nil kernel": func() error { return gpuarr.Launch(nil, linear(6), gpuarr.Out(x)) },
	}
	sentinels := []error{gpuarr.ErrShape, gpuarr.ErrArgument, gpuarr.ErrReleased}
	for name, call := range calls {
		var err error
		require.NotPanics(t, func() { err = call() }, name)
		require.Error(t, err, name)
		matched := false
		for _, s := range sentinels {
			matched = matched || errors.Is(err, s)
		}
		assert.True(t, matched, "%s: %v matches none of the sentinels", name, err)
		assert.True(t, strings.HasPrefix(err.Error(), "gpuarr."), "%s: %v does not name the call", name, err)
		checkMessage(t, dev, err.Error())
	}
}
