// Package cuda is a minimal binding to the CUDA driver API (libcuda.so.1),
// loaded at run time with purego: gpuprobe builds and runs without the CUDA
// toolkit, and on a machine without a GPU Load returns ErrNoDriver and
// everything else keeps working.
//
// Part of step 1 of the observation pipeline (read, judge, observe, spool,
// push): the stress tests (probe/stress) measure the GPUs through it.
//
// Only what the stress tests need is bound: devices, primary contexts,
// modules from PTX, memory, copies, streams, events and kernel launches.
// CUDA contexts are current per OS thread, so every goroutine that uses a
// Context must call Context.Bind first (it locks the goroutine to its thread).
package cuda

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
)

// ErrNoDriver is returned by Load when libcuda.so.1 cannot be opened.
var ErrNoDriver = errors.New("CUDA driver library libcuda.so.1 not found")

// Error is a failed driver call.
type Error struct {
	Op   string
	Code int
	Name string
}

func (e *Error) Error() string {
	return fmt.Sprintf("cuda %s: %s (%d)", e.Op, e.Name, e.Code)
}

// Result codes the probe reacts to.
const (
	errNotFound          = 500
	ErrCodePeerAlreadyOn = 704 // cuCtxEnablePeerAccess: already enabled
)

// Device attributes (CUdevice_attribute) used by the probe.
const (
	AttrMaxThreadsPerBlock = 1
	AttrMultiprocessors    = 16
	AttrCCMajor            = 75
	AttrCCMinor            = 76
	AttrMaxThreadsPerSM    = 39
	AttrPCIBusID           = 33
	AttrPCIDeviceID        = 34
	AttrPCIDomainID        = 50
	AttrClockRateKHz       = 13
	AttrMemoryClockKHz     = 36 // CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE
	AttrMemoryBusWidth     = 37 // CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH
)

// Driver is the loaded library. It is safe for concurrent use.
type Driver struct {
	lib uintptr

	cuInit                    func(flags uint32) int32
	cuDriverGetVersion        func(v *int32) int32
	cuGetErrorName            func(code int32, s **byte) int32
	cuDeviceGetCount          func(n *int32) int32
	cuDeviceGet               func(d *int32, ordinal int32) int32
	cuDeviceGetName           func(name *byte, n int32, d int32) int32
	cuDeviceGetAttribute      func(v *int32, attr int32, d int32) int32
	cuDeviceTotalMem          func(b *uint64, d int32) int32
	cuDeviceCanAccessPeer     func(can *int32, d, peer int32) int32
	cuDevicePrimaryCtxRetain  func(ctx *uintptr, d int32) int32
	cuDevicePrimaryCtxRelease func(d int32) int32
	cuCtxSetCurrent           func(ctx uintptr) int32
	cuCtxSynchronize          func() int32
	cuCtxEnablePeerAccess     func(peer uintptr, flags uint32) int32
	cuModuleLoadData          func(mod *uintptr, image unsafe.Pointer) int32
	cuModuleUnload            func(mod uintptr) int32
	cuModuleGetFunction       func(fn *uintptr, mod uintptr, name string) int32
	cuMemGetInfo              func(free, total *uint64) int32
	cuMemAlloc                func(p *uint64, size uint64) int32
	cuMemFree                 func(p uint64) int32
	cuMemAllocHost            func(p *unsafe.Pointer, size uint64) int32
	cuMemFreeHost             func(p unsafe.Pointer) int32
	cuMemcpyHtoDAsync         func(dst uint64, src unsafe.Pointer, n uint64, s uintptr) int32
	cuMemcpyDtoHAsync         func(dst unsafe.Pointer, src uint64, n uint64, s uintptr) int32
	cuMemcpyDtoDAsync         func(dst, src uint64, n uint64, s uintptr) int32
	cuMemcpyPeerAsync         func(dst uint64, dctx uintptr, src uint64, sctx uintptr, n uint64, s uintptr) int32
	cuMemsetD32Async          func(dst uint64, v uint32, n uint64, s uintptr) int32
	cuLaunchKernel            func(f uintptr, gx, gy, gz, bx, by, bz, smem uint32, s uintptr, params unsafe.Pointer, extra unsafe.Pointer) int32
	cuStreamCreate            func(s *uintptr, flags uint32) int32
	cuStreamDestroy           func(s uintptr) int32
	cuStreamSynchronize       func(s uintptr) int32
	cuEventCreate             func(e *uintptr, flags uint32) int32
	cuEventDestroy            func(e uintptr) int32
	cuEventRecord             func(e uintptr, s uintptr) int32
	cuEventSynchronize        func(e uintptr) int32
	cuEventQuery              func(e uintptr) int32
	cuEventElapsedTime        func(ms *float32, start, end uintptr) int32
	cuOccupancy               func(n *int32, fn uintptr, block int32, smem uint64) int32
}

var (
	loadOnce sync.Once
	loaded   *Driver
	loadErr  error
)

// Load opens libcuda.so.1 and calls cuInit once per process.
func Load() (*Driver, error) {
	loadOnce.Do(func() { loaded, loadErr = load() })
	return loaded, loadErr
}

func load() (*Driver, error) {
	lib, err := purego.Dlopen("libcuda.so.1", purego.RTLD_NOW|purego.RTLD_GLOBAL)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoDriver, err)
	}
	d := &Driver{lib: lib}
	// The _v2 entry points are the 64-bit ones every driver since CUDA 4
	// exports; the unsuffixed names are kept for old binaries only.
	syms := []struct {
		fn   any
		name string
	}{
		{&d.cuInit, "cuInit"},
		{&d.cuDriverGetVersion, "cuDriverGetVersion"},
		{&d.cuGetErrorName, "cuGetErrorName"},
		{&d.cuDeviceGetCount, "cuDeviceGetCount"},
		{&d.cuDeviceGet, "cuDeviceGet"},
		{&d.cuDeviceGetName, "cuDeviceGetName"},
		{&d.cuDeviceGetAttribute, "cuDeviceGetAttribute"},
		{&d.cuDeviceTotalMem, "cuDeviceTotalMem_v2"},
		{&d.cuDeviceCanAccessPeer, "cuDeviceCanAccessPeer"},
		{&d.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"},
		{&d.cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2"},
		{&d.cuCtxSetCurrent, "cuCtxSetCurrent"},
		{&d.cuCtxSynchronize, "cuCtxSynchronize"},
		{&d.cuCtxEnablePeerAccess, "cuCtxEnablePeerAccess"},
		{&d.cuModuleLoadData, "cuModuleLoadData"},
		{&d.cuModuleUnload, "cuModuleUnload"},
		{&d.cuModuleGetFunction, "cuModuleGetFunction"},
		{&d.cuMemGetInfo, "cuMemGetInfo_v2"},
		{&d.cuMemAlloc, "cuMemAlloc_v2"},
		{&d.cuMemFree, "cuMemFree_v2"},
		{&d.cuMemAllocHost, "cuMemAllocHost_v2"},
		{&d.cuMemFreeHost, "cuMemFreeHost"},
		{&d.cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2"},
		{&d.cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2"},
		{&d.cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2"},
		{&d.cuMemcpyPeerAsync, "cuMemcpyPeerAsync"},
		{&d.cuMemsetD32Async, "cuMemsetD32Async"},
		{&d.cuLaunchKernel, "cuLaunchKernel"},
		{&d.cuStreamCreate, "cuStreamCreate"},
		{&d.cuStreamDestroy, "cuStreamDestroy_v2"},
		{&d.cuStreamSynchronize, "cuStreamSynchronize"},
		{&d.cuEventCreate, "cuEventCreate"},
		{&d.cuEventDestroy, "cuEventDestroy_v2"},
		{&d.cuEventRecord, "cuEventRecord"},
		{&d.cuEventSynchronize, "cuEventSynchronize"},
		{&d.cuEventQuery, "cuEventQuery"},
		{&d.cuEventElapsedTime, "cuEventElapsedTime"},
		{&d.cuOccupancy, "cuOccupancyMaxActiveBlocksPerMultiprocessor"},
	}
	for _, s := range syms {
		if _, err := purego.Dlsym(lib, s.name); err != nil {
			return nil, fmt.Errorf("libcuda.so.1 lacks %s (driver too old?): %w", s.name, err)
		}
		purego.RegisterLibFunc(s.fn, lib, s.name)
	}
	if err := d.check("cuInit", d.cuInit(0)); err != nil {
		return nil, err
	}
	return d, nil
}

func (d *Driver) check(op string, code int32) error {
	if code == 0 {
		return nil
	}
	name := "CUDA_ERROR"
	var s *byte
	if d.cuGetErrorName(code, &s) == 0 && s != nil {
		name = goString(s)
	}
	return &Error{Op: op, Code: int(code), Name: name}
}

// IsCode reports whether err is a driver error with the given result code.
func IsCode(err error, code int) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == code
}

func goString(p *byte) string {
	if p == nil {
		return ""
	}
	var b []byte
	for i := uintptr(0); ; i++ {
		c := *(*byte)(unsafe.Add(unsafe.Pointer(p), i))
		if c == 0 {
			break
		}
		b = append(b, c)
	}
	return string(b)
}

// Version is the CUDA version the driver supports, e.g. 13000 for 13.0.
func (d *Driver) Version() (int, error) {
	var v int32
	err := d.check("cuDriverGetVersion", d.cuDriverGetVersion(&v))
	return int(v), err
}

// DeviceCount is the number of CUDA devices visible to this process.
func (d *Driver) DeviceCount() (int, error) {
	var n int32
	err := d.check("cuDeviceGetCount", d.cuDeviceGetCount(&n))
	return int(n), err
}

// DeviceInfo describes one device as CUDA sees it.
// It is recorded in snapshots as the CUDA driver's own view of the card,
// which gpuprobe check holds against NVML's.
type DeviceInfo struct {
	Ordinal         int    `json:"ordinal"`
	Name            string `json:"name"`
	CCMajor         int    `json:"cc_major"`
	CCMinor         int    `json:"cc_minor"`
	SMs             int    `json:"sms"`
	MaxThreadsPerSM int    `json:"max_threads_per_sm"`
	TotalMem        uint64 `json:"total_mem_bytes"`
	PCIBusID        string `json:"pci_bus_id"` // "0000:3b:00.0"
	// ClockKHz is the peak SM clock, MemClockKHz the peak memory clock and
	// MemBusWidth the memory bus in bits, as the driver reports them; 0 when
	// the driver did not say.
	ClockKHz    int `json:"clock_khz,omitempty"`
	MemClockKHz int `json:"mem_clock_khz,omitempty"`
	MemBusWidth int `json:"mem_bus_width_bits,omitempty"`
}

// Device reads a device's identity and limits.
func (d *Driver) Device(ordinal int) (DeviceInfo, error) {
	info := DeviceInfo{Ordinal: ordinal}
	var dev int32
	if err := d.check("cuDeviceGet", d.cuDeviceGet(&dev, int32(ordinal))); err != nil {
		return info, err
	}
	name := make([]byte, 256)
	if err := d.check("cuDeviceGetName", d.cuDeviceGetName(&name[0], int32(len(name)), dev)); err != nil {
		return info, err
	}
	info.Name = goString(&name[0])
	attr := func(a int32) (int, error) {
		var v int32
		err := d.check(fmt.Sprintf("cuDeviceGetAttribute(%d)", a), d.cuDeviceGetAttribute(&v, a, dev))
		return int(v), err
	}
	var err error
	vals := []struct {
		p *int
		a int32
	}{{&info.CCMajor, AttrCCMajor}, {&info.CCMinor, AttrCCMinor}, {&info.SMs, AttrMultiprocessors}, {&info.MaxThreadsPerSM, AttrMaxThreadsPerSM}}
	for _, v := range vals {
		if *v.p, err = attr(v.a); err != nil {
			return info, err
		}
	}
	// Informational attributes: a driver that lacks one leaves it 0.
	info.ClockKHz, _ = attr(AttrClockRateKHz)
	info.MemClockKHz, _ = attr(AttrMemoryClockKHz)
	info.MemBusWidth, _ = attr(AttrMemoryBusWidth)
	dom, _ := attr(AttrPCIDomainID)
	bus, _ := attr(AttrPCIBusID)
	slot, _ := attr(AttrPCIDeviceID)
	info.PCIBusID = fmt.Sprintf("%04x:%02x:%02x.0", dom, bus, slot)
	err = d.check("cuDeviceTotalMem", d.cuDeviceTotalMem(&info.TotalMem, dev))
	return info, err
}

// CanAccessPeer reports whether device a can map device b's memory.
func (d *Driver) CanAccessPeer(a, b int) (bool, error) {
	var can int32
	err := d.check("cuDeviceCanAccessPeer", d.cuDeviceCanAccessPeer(&can, int32(a), int32(b)))
	return can != 0, err
}

// Context is a device's primary context (the one the runtime API and other
// processes' frameworks share), retained until Release.
type Context struct {
	d       *Driver
	Ordinal int
	h       uintptr
	mu      sync.Mutex
	live    bool
}

// Retain takes a reference on the device's primary context.
func (d *Driver) Retain(ordinal int) (*Context, error) {
	var h uintptr
	if err := d.check("cuDevicePrimaryCtxRetain", d.cuDevicePrimaryCtxRetain(&h, int32(ordinal))); err != nil {
		return nil, err
	}
	return &Context{d: d, Ordinal: ordinal, h: h, live: true}, nil
}

// Bind locks the calling goroutine to its OS thread and makes the context
// current there. Call it at the top of every goroutine that uses c; the
// thread stays locked until the goroutine exits.
func (c *Context) Bind() error {
	runtime.LockOSThread()
	return c.d.check("cuCtxSetCurrent", c.d.cuCtxSetCurrent(c.h))
}

// Synchronize waits for all work in the context.
func (c *Context) Synchronize() error {
	return c.d.check("cuCtxSynchronize", c.d.cuCtxSynchronize())
}

// EnablePeer lets this (current) context access peer's memory directly.
func (c *Context) EnablePeer(peer *Context) error {
	err := c.d.check("cuCtxEnablePeerAccess", c.d.cuCtxEnablePeerAccess(peer.h, 0))
	if IsCode(err, ErrCodePeerAlreadyOn) {
		return nil
	}
	return err
}

// Release drops the reference taken by Retain. Memory and modules must be
// freed first.
func (c *Context) Release() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.live {
		return nil
	}
	c.live = false
	var dev int32
	if err := c.d.check("cuDeviceGet", c.d.cuDeviceGet(&dev, int32(c.Ordinal))); err != nil {
		return err
	}
	return c.d.check("cuDevicePrimaryCtxRelease", c.d.cuDevicePrimaryCtxRelease(dev))
}

// MemInfo returns free and total device memory of the current context.
func (c *Context) MemInfo() (free, total uint64, err error) {
	err = c.d.check("cuMemGetInfo", c.d.cuMemGetInfo(&free, &total))
	return free, total, err
}
