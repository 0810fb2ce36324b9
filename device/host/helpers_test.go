package host

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device/driver"
	"github.com/gpuarr/gpuarr/device/hostkernel"
)

// mustRegister binds a test kernel, panicking if the name was taken: two
// tests claiming one entry point is a mistake in the tests.
func mustRegister(name string, k hostkernel.Kernel) {
	if !registerKernel(name, k) {
		panic("host test kernel " + name + " registered twice")
	}
}

// Test kernels, registered under names of their own so that they never
// collide with internal/testkernels.
func init() {
	mustRegister("hosttest_step", func(l *hostkernel.Launch) error { // (p ptr, i u32)
		p, err := hostkernel.View[uint32](l, l.Args.Ptr(0), 2)
		if err != nil {
			return err
		}
		if i := l.Args.U32(1); p[0] == i {
			p[0] = i + 1
		} else {
			p[1] = 1
		}
		return nil
	})
	mustRegister("hosttest_spin_write", func(l *hostkernel.Launch) error { // (out ptr, v u32, ns u64)
		out, err := hostkernel.View[uint32](l, l.Args.Ptr(0), 1)
		if err != nil {
			return err
		}
		time.Sleep(time.Duration(l.Args.U64(2)))
		out[0] = l.Args.U32(1)
		return nil
	})
	mustRegister("hosttest_add", func(l *hostkernel.Launch) error { // (dst, a, b ptr, n u64)
		n := l.Args.U64(3)
		dst, err := hostkernel.View[uint32](l, l.Args.Ptr(0), n)
		if err != nil {
			return err
		}
		a, err := hostkernel.View[uint32](l, l.Args.Ptr(1), n)
		if err != nil {
			return err
		}
		b, err := hostkernel.View[uint32](l, l.Args.Ptr(2), n)
		if err != nil {
			return err
		}
		l.ParallelFor(n, func(lo, hi uint64) {
			for i := lo; i < hi; i++ {
				dst[i] = a[i] + b[i]
			}
		})
		return nil
	})
	mustRegister("hosttest_touch", func(l *hostkernel.Launch) error { // (p ptr, n u64)
		_, err := l.Bytes(l.Args.Ptr(0), l.Args.U64(1))
		return err
	})
	mustRegister("hosttest_fail", func(l *hostkernel.Launch) error { return errors.New("deliberate failure") })
	mustRegister("hosttest_panic", func(l *hostkernel.Launch) error { panic("deliberate panic") })
}

var testEntries = []string{"hosttest_step", "hosttest_spin_write", "hosttest_add", "hosttest_touch", "hosttest_fail", "hosttest_panic"}

const ptxHeader = ".version 7.8\n.target sm_90\n.address_size 64\n"

// ptxModule is a well-formed module declaring the given entry points.
func ptxModule(entries ...string) string {
	var b strings.Builder
	b.WriteString(ptxHeader)
	for _, e := range entries {
		fmt.Fprintf(&b, "\n.visible .entry %s(\n\t.param .u64 %s_p0\n)\n{\n\t.reg .b64 %%rd<2>;\n\tld.param.u64 %%rd1, [%s_p0];\n\tret;\n}\n", e, e, e)
	}
	return b.String()
}

// testSystem builds a private set of host devices: 64 MiB each, all peers,
// checking mode as the environment says, changed by opts.
func testSystem(t testing.TB, opts ...func(*config)) *system {
	t.Helper()
	cfg := config{devices: 1, memory: 64 << 20, peers: peerRule{all: true}, check: Checking()}
	for _, o := range opts {
		o(&cfg)
	}
	sys := newSystem(cfg, newPeerMatrix(cfg.peers))
	t.Cleanup(func() {
		for _, d := range sys.devs {
			_ = d.Synchronize()
		}
	})
	return sys
}

func withDevices(n int) func(*config)   { return func(c *config) { c.devices = n } }
func withMemory(n uint64) func(*config) { return func(c *config) { c.memory = n } }
func withCheck(on bool) func(*config)   { return func(c *config) { c.check = on } }

func newTestStream(t testing.TB, d *device) *stream {
	t.Helper()
	s, err := d.NewStream()
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s.(*stream)
}

func newTestAlloc(t testing.TB, d *device, n uint64) driver.Ptr {
	t.Helper()
	p, err := d.Alloc(n)
	require.NoError(t, err)
	t.Cleanup(func() { _ = d.Free(p) })
	return p
}

// testKernels loads every test entry point on d.
func testKernels(t testing.TB, d *device) map[string]driver.Function {
	t.Helper()
	m, err := d.LoadModule(ptxModule(testEntries...))
	require.NoError(t, err)
	fs := map[string]driver.Function{}
	for _, e := range testEntries {
		f, err := m.Function(e)
		require.NoError(t, err)
		fs[strings.TrimPrefix(e, "hosttest_")] = f
	}
	return fs
}

// args marshals launch arguments the way package device does.
func args(vals ...any) *driver.Args {
	a := new(driver.Args)
	for _, v := range vals {
		switch x := v.(type) {
		case driver.Ptr:
			a.Append(driver.ArgPtr, uint64(x))
		case uint32:
			a.Append(driver.ArgU32, uint64(x))
		case uint64:
			a.Append(driver.ArgU64, x)
		case time.Duration:
			a.Append(driver.ArgU64, uint64(x))
		default:
			panic(fmt.Sprintf("args: %T", v))
		}
	}
	return a
}

var one = driver.Dim3{X: 1}

func launch(t testing.TB, s *stream, f driver.Function, vals ...any) {
	t.Helper()
	require.NoError(t, s.Launch(f, one, one, 0, args(vals...)))
}

func upload[T any](t testing.TB, s *stream, dst driver.Ptr, src []T) {
	t.Helper()
	n := uint64(len(src)) * uint64(unsafe.Sizeof(src[0]))
	require.NoError(t, s.CopyHtoD(dst, unsafe.Pointer(unsafe.SliceData(src)), n))
}

func download[T any](t testing.TB, s *stream, src driver.Ptr, n int) []T {
	t.Helper()
	out := make([]T, n)
	require.NoError(t, s.CopyDtoH(unsafe.Pointer(unsafe.SliceData(out)), src, uint64(n)*uint64(unsafe.Sizeof(out[0]))))
	return out
}

// code extracts the result of a *driver.Error.
func code(t testing.TB, err error) driver.Result {
	t.Helper()
	var de *driver.Error
	require.ErrorAs(t, err, &de)
	return de.Code
}

func ptrOf[T any](p *T) unsafe.Pointer { return unsafe.Pointer(p) }
