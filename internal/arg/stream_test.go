package arg

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
)

type option interface{ isOption() }

type target struct {
	s *device.Stream
}

func (*target) isOption()                {}
func (t *target) Stream() *device.Stream { return t.s }
func (*target) String() string           { return "pkg.On" }

type other struct{}

func (other) isOption() {}

func testDevice(t *testing.T) *device.Device {
	t.Helper()
	dev, err := device.Default()
	require.NoError(t, err)
	return dev
}

// The last target wins; without one the fallback's default stream, else
// the default device's; other options go to other, whose error is
// returned as it is.
func TestStream(t *testing.T) {
	dev := testDevice(t)
	s, err := dev.NewStream()
	require.NoError(t, err)
	defer s.Close()
	none := func(option) error { return nil }

	got, err := Stream("pkg", "Call", []option{&target{dev.DefaultStream()}, other{}, &target{s}}, nil, none)
	require.NoError(t, err)
	assert.Same(t, s, got, "the last target")

	got, err = Stream[option]("pkg", "Call", nil, dev, none)
	require.NoError(t, err)
	assert.Same(t, dev.DefaultStream(), got, "the fallback's default stream")

	got, err = Stream[option]("pkg", "Call", nil, nil, none)
	require.NoError(t, err)
	assert.Same(t, dev.DefaultStream(), got, "device.Default()'s default stream")
	again, err := DefaultStream()
	require.NoError(t, err)
	assert.Same(t, got, again)

	refused := errors.New("refused")
	_, err = Stream("pkg", "Call", []option{other{}}, nil, func(option) error { return refused })
	assert.Same(t, refused, err, "other's error as it is")

	_, err = Stream("pkg", "Call", []option{nil}, nil, none)
	require.ErrorIs(t, err, ErrArgument)
	assert.EqualError(t, err, "pkg.Call: nil Option: bad argument")

	_, err = Stream("pkg", "Call", []option{&target{}}, nil, none)
	require.ErrorIs(t, err, ErrArgument)
	assert.EqualError(t, err, "pkg.Call: pkg.On(nil): bad argument")

	_, err = Stream("", "", []option{&target{}}, nil, none)
	assert.EqualError(t, err, "pkg.On(nil): bad argument", "no prefix without a package")
}
