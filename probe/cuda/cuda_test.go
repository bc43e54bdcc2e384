package cuda

import (
	"errors"
	"testing"
)

// needDriver returns the driver or skips: CI machines have no GPU.
func needDriver(t *testing.T) *Driver {
	t.Helper()
	d, err := Load()
	if errors.Is(err, ErrNoDriver) {
		t.Skip("no CUDA driver on this machine (libcuda.so.1 not found)")
	}
	if err != nil {
		t.Fatal(err)
	}
	if n, err := d.DeviceCount(); err != nil || n == 0 {
		t.Skipf("no CUDA device (%d, %v)", n, err)
	}
	return d
}

func TestLoadWithoutDriverSaysSo(t *testing.T) {
	if _, err := Load(); err != nil && !errors.Is(err, ErrNoDriver) {
		// A driver that is present but broken must not look like "no driver".
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("unexpected error type %T: %v", err, err)
		}
	}
}

func TestCopyRoundTrip(t *testing.T) {
	d := needDriver(t)
	info, err := d.Device(0)
	if err != nil {
		t.Fatal(err)
	}
	if info.SMs == 0 || info.CCMajor == 0 || info.TotalMem == 0 {
		t.Fatalf("implausible device info %+v", info)
	}
	c, err := d.Retain(0)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Release() }()
	if err := c.Bind(); err != nil {
		t.Fatal(err)
	}
	s, err := c.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = s.Destroy() }()
	const n = 1 << 20
	h, err := c.AllocHost(n)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = h.Free() }()
	p, err := c.Alloc(n)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Free(p) }()
	if err := s.SetD32(p, 0xdeadbeef, n/4); err != nil {
		t.Fatal(err)
	}
	if err := s.CopyDtoH(h, p, n); err != nil {
		t.Fatal(err)
	}
	if err := s.Synchronize(); err != nil {
		t.Fatal(err)
	}
	b := h.Bytes()
	if b[0] != 0xef || b[n-1] != 0xde {
		t.Fatalf("read back %x..%x", b[0], b[n-1])
	}
	if _, err := c.LoadPTX([]byte("not ptx")); err == nil {
		t.Fatal("bad PTX accepted")
	}
}
