package device_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
)

func randomBytes(seed uint64, n int) []byte {
	b := make([]byte, n)
	r := rand.NewChaCha8([32]byte{byte(seed), byte(seed >> 8), 1})
	_, _ = r.Read(b)
	return b
}

var copySizes = []int{1, 3, 4096, 1<<20 + 3, 64 << 20, 256 << 20}

func sizeName(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", n>>20)
	default:
		return fmt.Sprintf("%dB", n)
	}
}

// Every size goes host→device→device→host on a stream and through the
// synchronous copies, and must come back byte for byte.
func TestCopyRoundTrips(t *testing.T) {
	dev := testDevice(t)
	s := newStream(t, dev)
	for i, n := range copySizes {
		t.Run(sizeName(n), func(t *testing.T) {
			src := randomBytes(uint64(i), n)
			a, b := alloc(t, dev, uint64(n)), alloc(t, dev, uint64(n))

			require.NoError(t, device.Upload(s, a, src))
			require.NoError(t, s.CopyDtoD(b, a, uint64(n)))
			got := make([]byte, n)
			require.NoError(t, device.Download(s, got, b))
			require.Equal(t, src, got, "async HtoD → DtoD → DtoH")

			require.NoError(t, s.Synchronize())
			src2 := randomBytes(uint64(i)+100, n)
			require.NoError(t, dev.CopyHtoD(a, unsafe.Pointer(&src2[0]), uint64(n)))
			require.NoError(t, dev.CopyDtoD(b, a, uint64(n)))
			got2 := make([]byte, n)
			require.NoError(t, dev.CopyDtoH(unsafe.Pointer(&got2[0]), b, uint64(n)))
			require.Equal(t, src2, got2, "sync HtoD → DtoD → DtoH")
		})
	}
}

// The source of an asynchronous upload may be reused as soon as the call
// returns (CUDA's pageable-copy rule), and memsets land in stream order.
func TestUploadSourceReusableAndMemsetOrdered(t *testing.T) {
	dev := testDevice(t)
	s := newStream(t, dev)
	p := alloc(t, dev, 64)
	src := []uint32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	require.NoError(t, device.Upload(s, p, src))
	for i := range src {
		src[i] = 0xFFFFFFFF
	}
	require.NoError(t, s.Memset32(p.Add(8), 0xABCD, 2))
	require.NoError(t, s.Memset8(p.Add(60), 0x11, 4))
	got := download(t, s, p, 16)
	require.Equal(t, []uint32{1, 2, 0xABCD, 0xABCD, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0x11111111}, got)
	require.ErrorIs(t, s.Memset32(p.Add(2), 0, 1), device.ErrInvalidValue, "unaligned Memset32")
}

func TestStreamOrderedAllocation(t *testing.T) {
	dev := testDevice(t)
	if !dev.Info().MemoryPools {
		t.Skipf("%s has no stream-ordered pools", dev)
	}
	s := newStream(t, dev)
	p, err := s.AllocAsync(1 << 20)
	require.NoError(t, err)
	require.NoError(t, s.Memset32(p, 42, 1<<18))
	got := download(t, s, p, 1<<18)
	require.Equal(t, uint32(42), got[0])
	require.Equal(t, uint32(42), got[len(got)-1])
	require.NoError(t, s.FreeAsync(p))
	require.NoError(t, s.Synchronize())
	_, err = s.AllocAsync(0)
	require.ErrorIs(t, err, device.ErrInvalidValue)
}

func TestPeerCopyBetweenDevices(t *testing.T) {
	devs, err := device.Devices()
	require.NoError(t, err)
	if len(devs) < 2 {
		t.Skipf("needs 2 devices of one backend, have %d (set GPUARR_HOST_DEVICES=2 for the host backend)", len(devs))
	}
	a, b := devs[0], devs[1]
	s := newStream(t, a)
	n := 1<<20 + 5
	src := randomBytes(7, n)
	pa, pb := alloc(t, a, uint64(n)), alloc(t, b, uint64(n))
	require.NoError(t, device.Upload(s, pa, src))
	require.NoError(t, s.CopyPeer(pb, b, pa, a, uint64(n)))
	require.NoError(t, s.Synchronize())
	got := make([]byte, n)
	require.NoError(t, device.Download(newStream(t, b), got, pb))
	require.Equal(t, src, got)
}
