package ptxsim

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device/hostkernel"
)

// HostKernel is entry of m as a kernel a host device runs in place of a Go
// kernel (device.Device.RegisterHostKernel): the launch's geometry and
// arguments, its memory through the launch (so the backend checks every
// access), and seed as Launch.Seed.
func (m *Module) HostKernel(entry string, seed uint64) hostkernel.Kernel {
	return func(l *hostkernel.Launch) error {
		f, ok := m.funcs[entry]
		if !ok {
			return fmt.Errorf("ptxsim: no entry %q", entry)
		}
		if l.Args.N != len(f.params) {
			return fmt.Errorf("ptxsim: %s takes %d parameters, the launch has %d", entry, len(f.params), l.Args.N)
		}
		ps := make([]uint64, l.Args.N)
		for i := range ps {
			ps[i] = l.Args.U64(i)
			if l.Args.Kind[i].Size() == 4 {
				ps[i] = uint64(l.Args.U32(i))
			}
		}
		return m.Run(entry, Launch{
			Grid:        Dim3{l.Grid.X, l.Grid.Y, l.Grid.Z},
			Block:       Dim3{l.Block.X, l.Block.Y, l.Block.Z},
			SharedBytes: int(l.SharedBytes),
			Params:      ps,
			Mem:         launchMem{l},
			Seed:        seed,
		})
	}
}

type launchMem struct{ l *hostkernel.Launch }

func (m launchMem) Bytes(p, n uint64) ([]byte, error) { return m.l.Bytes(hostkernel.Ptr(p), n) }

// Entries lists the module's entry points.
func (m *Module) Entries() []string {
	var names []string
	for n, f := range m.funcs {
		if f.entry {
			names = append(names, n)
		}
	}
	return names
}
