package driver

import (
	"errors"
	"fmt"
)

// ErrBadConfig is matched by errors from malformed GPUARR_* variables, read
// by the device package and by backends alike.
var ErrBadConfig = errors.New("bad gpuarr configuration")

// ConfigError reports a malformed environment variable.
type ConfigError struct {
	Var, Value, Reason string
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("%s=%q: %s", e.Var, e.Value, e.Reason)
}

// Is makes ConfigError match ErrBadConfig.
func (e *ConfigError) Is(target error) bool { return target == ErrBadConfig }
