package cuda

import (
	"fmt"
	"runtime"
	"unsafe"
)

// DevicePtr is a device address (CUdeviceptr).
type DevicePtr uint64

// Alloc allocates device memory in the current context.
func (c *Context) Alloc(size uint64) (DevicePtr, error) {
	var p uint64
	if err := c.d.check(fmt.Sprintf("cuMemAlloc(%d bytes)", size), c.d.cuMemAlloc(&p, size)); err != nil {
		return 0, err
	}
	return DevicePtr(p), nil
}

// Free releases device memory; a zero pointer is ignored.
func (c *Context) Free(p DevicePtr) error {
	if p == 0 {
		return nil
	}
	return c.d.check("cuMemFree", c.d.cuMemFree(uint64(p)))
}

// HostBuffer is page-locked host memory, reachable by the GPU's copy
// engines at full PCIe speed.
type HostBuffer struct {
	c    *Context
	p    unsafe.Pointer
	size uint64
}

// AllocHost allocates pinned host memory.
func (c *Context) AllocHost(size uint64) (*HostBuffer, error) {
	var p unsafe.Pointer
	if err := c.d.check(fmt.Sprintf("cuMemAllocHost(%d bytes)", size), c.d.cuMemAllocHost(&p, size)); err != nil {
		return nil, err
	}
	return &HostBuffer{c: c, p: p, size: size}, nil
}

// Bytes views the buffer as a byte slice (valid until Free).
func (h *HostBuffer) Bytes() []byte { return unsafe.Slice((*byte)(h.p), h.size) }

// Float32s views the buffer as float32s.
func (h *HostBuffer) Float32s() []float32 { return unsafe.Slice((*float32)(h.p), h.size/4) }

// Float64s views the buffer as float64s.
func (h *HostBuffer) Float64s() []float64 { return unsafe.Slice((*float64)(h.p), h.size/8) }

// Uint64s views the buffer as uint64s.
func (h *HostBuffer) Uint64s() []uint64 { return unsafe.Slice((*uint64)(h.p), h.size/8) }

// Size is the buffer's length in bytes.
func (h *HostBuffer) Size() uint64 { return h.size }

// Free releases the pinned memory; calling it twice is harmless.
func (h *HostBuffer) Free() error {
	if h == nil || h.p == nil {
		return nil
	}
	p := h.p
	h.p = nil
	return h.c.d.check("cuMemFreeHost", h.c.d.cuMemFreeHost(p))
}

// Stream is an ordered queue of device work.
type Stream struct {
	c *Context
	h uintptr
}

// streamNonBlocking keeps the stream from synchronising with the legacy
// default stream, so copies on one stream overlap kernels on another.
const streamNonBlocking = 1

// NewStream creates a non-blocking stream in the current context.
func (c *Context) NewStream() (*Stream, error) {
	var h uintptr
	if err := c.d.check("cuStreamCreate", c.d.cuStreamCreate(&h, streamNonBlocking)); err != nil {
		return nil, err
	}
	return &Stream{c: c, h: h}, nil
}

// Synchronize waits for the stream's work.
func (s *Stream) Synchronize() error {
	return s.c.d.check("cuStreamSynchronize", s.c.d.cuStreamSynchronize(s.h))
}

// Destroy releases the stream.
func (s *Stream) Destroy() error {
	if s == nil || s.h == 0 {
		return nil
	}
	h := s.h
	s.h = 0
	return s.c.d.check("cuStreamDestroy", s.c.d.cuStreamDestroy(h))
}

// CopyHtoD queues a copy from pinned host memory to the device.
func (s *Stream) CopyHtoD(dst DevicePtr, src *HostBuffer, n uint64) error {
	if n > src.size {
		return fmt.Errorf("cuMemcpyHtoDAsync: %d bytes from a %d byte buffer", n, src.size)
	}
	return s.c.d.check("cuMemcpyHtoDAsync", s.c.d.cuMemcpyHtoDAsync(uint64(dst), src.p, n, s.h))
}

// CopyDtoH queues a copy from the device to pinned host memory.
func (s *Stream) CopyDtoH(dst *HostBuffer, src DevicePtr, n uint64) error {
	if n > dst.size {
		return fmt.Errorf("cuMemcpyDtoHAsync: %d bytes into a %d byte buffer", n, dst.size)
	}
	return s.c.d.check("cuMemcpyDtoHAsync", s.c.d.cuMemcpyDtoHAsync(dst.p, uint64(src), n, s.h))
}

// CopyDtoD queues a device-to-device copy inside one context.
func (s *Stream) CopyDtoD(dst, src DevicePtr, n uint64) error {
	return s.c.d.check("cuMemcpyDtoDAsync", s.c.d.cuMemcpyDtoDAsync(uint64(dst), uint64(src), n, s.h))
}

// CopyPeer queues a copy from src in context sc to dst in context dc.
func (s *Stream) CopyPeer(dst DevicePtr, dc *Context, src DevicePtr, sc *Context, n uint64) error {
	return s.c.d.check("cuMemcpyPeerAsync", s.c.d.cuMemcpyPeerAsync(uint64(dst), dc.h, uint64(src), sc.h, n, s.h))
}

// SetD32 queues a fill of n 32-bit words with v.
func (s *Stream) SetD32(dst DevicePtr, v uint32, n uint64) error {
	return s.c.d.check("cuMemsetD32Async", s.c.d.cuMemsetD32Async(uint64(dst), v, n, s.h))
}

// Event marks a point in a stream; with timing it measures GPU time.
type Event struct {
	c *Context
	h uintptr
}

// NewEvent creates an event that records time.
func (c *Context) NewEvent() (*Event, error) {
	var h uintptr
	if err := c.d.check("cuEventCreate", c.d.cuEventCreate(&h, 0)); err != nil {
		return nil, err
	}
	return &Event{c: c, h: h}, nil
}

// Record queues the event on s.
func (e *Event) Record(s *Stream) error {
	return e.c.d.check("cuEventRecord", e.c.d.cuEventRecord(e.h, s.h))
}

// Synchronize waits until the event has happened.
func (e *Event) Synchronize() error {
	return e.c.d.check("cuEventSynchronize", e.c.d.cuEventSynchronize(e.h))
}

// Done reports whether the event has happened, without waiting.
func (e *Event) Done() (bool, error) {
	const notReady = 600
	code := e.c.d.cuEventQuery(e.h)
	if code == notReady {
		return false, nil
	}
	return code == 0, e.c.d.check("cuEventQuery", code)
}

// Elapsed is the GPU time from start to e, in seconds.
func (e *Event) Elapsed(start *Event) (float64, error) {
	var ms float32
	err := e.c.d.check("cuEventElapsedTime", e.c.d.cuEventElapsedTime(&ms, start.h, e.h))
	return float64(ms) / 1e3, err
}

// Destroy releases the event.
func (e *Event) Destroy() error {
	if e == nil || e.h == 0 {
		return nil
	}
	h := e.h
	e.h = 0
	return e.c.d.check("cuEventDestroy", e.c.d.cuEventDestroy(h))
}

// Module is loaded PTX.
type Module struct {
	c *Context
	h uintptr
}

// LoadPTX JIT-compiles PTX text for the current context's device.
func (c *Context) LoadPTX(ptx []byte) (*Module, error) {
	img := make([]byte, len(ptx)+1) // NUL-terminated copy for the driver
	copy(img, ptx)
	var pin runtime.Pinner
	pin.Pin(&img[0])
	defer pin.Unpin()
	var h uintptr
	if err := c.d.check("cuModuleLoadData", c.d.cuModuleLoadData(&h, unsafe.Pointer(&img[0]))); err != nil {
		return nil, err
	}
	return &Module{c: c, h: h}, nil
}

// Unload releases the module.
func (m *Module) Unload() error {
	if m == nil || m.h == 0 {
		return nil
	}
	h := m.h
	m.h = 0
	return m.c.d.check("cuModuleUnload", m.c.d.cuModuleUnload(h))
}

// Function is a kernel in a module.
type Function struct {
	c    *Context
	h    uintptr
	Name string
}

// Function looks a kernel up by name; the error is ErrCodeNotFound (500)
// when the PTX variant does not hold it.
func (m *Module) Function(name string) (*Function, error) {
	var h uintptr
	if err := m.c.d.check("cuModuleGetFunction("+name+")", m.c.d.cuModuleGetFunction(&h, m.h, name)); err != nil {
		return nil, err
	}
	return &Function{c: m.c, h: h, Name: name}, nil
}

// IsNotFound reports whether err says a named symbol does not exist.
func IsNotFound(err error) bool { return IsCode(err, errNotFound) }

// Launch queues fn on s with a one-dimensional grid. Each argument is a
// DevicePtr, int32, uint32, int64, uint64, float32 or float64, passed by
// value the way the kernel's C signature declares it.
func (s *Stream) Launch(fn *Function, grid, block uint32, args ...any) error {
	slots := make([]uint64, len(args)) // every CUDA scalar fits in 8 bytes
	for i, a := range args {
		switch v := a.(type) {
		case DevicePtr:
			slots[i] = uint64(v)
		case int32:
			slots[i] = uint64(uint32(v))
		case uint32:
			slots[i] = uint64(v)
		case int64:
			slots[i] = uint64(v)
		case uint64:
			slots[i] = v
		case float32:
			slots[i] = uint64(*(*uint32)(unsafe.Pointer(&v)))
		case float64:
			slots[i] = *(*uint64)(unsafe.Pointer(&v))
		default:
			return fmt.Errorf("launch %s: argument %d has unsupported type %T", fn.Name, i, a)
		}
	}
	var pin runtime.Pinner
	defer pin.Unpin()
	var params []unsafe.Pointer
	if len(slots) > 0 {
		pin.Pin(&slots[0])
		params = make([]unsafe.Pointer, len(slots))
		for i := range slots {
			params[i] = unsafe.Pointer(&slots[i])
		}
		pin.Pin(&params[0])
	}
	var pp unsafe.Pointer
	if len(params) > 0 {
		pp = unsafe.Pointer(&params[0])
	}
	// cuLaunchKernel copies the arguments before it returns, so the pinned
	// slots may go as soon as it does.
	return s.c.d.check("cuLaunchKernel("+fn.Name+")", s.c.d.cuLaunchKernel(fn.h, grid, 1, 1, block, 1, 1, 0, s.h, pp, nil))
}

// BlocksPerSM is how many blocks of the given size can be resident on one
// multiprocessor at once (registers and shared memory permitting).
func (f *Function) BlocksPerSM(block int) (int, error) {
	var n int32
	err := f.c.d.check("cuOccupancyMaxActiveBlocksPerMultiprocessor("+f.Name+")", f.c.d.cuOccupancy(&n, f.h, int32(block), 0))
	return int(n), err
}
