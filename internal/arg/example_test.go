package arg_test

import (
	"errors"
	"fmt"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/internal/arg"
)

// on is an option naming a stream, as gpuarr.On is.
type on struct{ s *device.Stream }

func (o on) Stream() *device.Stream { return o.s }
func (o on) String() string         { return "mypkg.On" }

// A call resolves its options to a stream: the last Target's, else the
// fallback device's default stream; other options go to the caller.
// Errors wrap the shared sentinels.
func Example() {
	dev, err := device.Default()
	if err != nil {
		fmt.Println(err)
		return
	}
	s2, err := dev.NewStream()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s2.Close()
	noOther := func(o any) error { return fmt.Errorf("mypkg.Scale: option %v: %w", o, arg.ErrArgument) }

	s, err := arg.Stream("mypkg", "Scale", []any{}, dev, noOther)
	fmt.Println(s == dev.DefaultStream(), err)
	s, err = arg.Stream("mypkg", "Scale", []any{on{s2}}, dev, noOther)
	fmt.Println(s == s2, err)
	_, err = arg.Stream("mypkg", "Scale", []any{on{nil}}, dev, noOther)
	fmt.Println(errors.Is(err, arg.ErrArgument))
	err = arg.Shapef("Scale", "x is %v, y is %v", []int{2, 3}, []int{3})
	fmt.Println(err, errors.Is(err, arg.ErrShape))
	// Output:
	// true <nil>
	// true <nil>
	// true
	// gpuarr.Scale: x is [2 3], y is [3]: bad shape true
}
