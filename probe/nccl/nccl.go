// Package nccl is a minimal binding to NVIDIA's collective communications
// library (libnccl.so.2), loaded at run time with purego like the CUDA
// driver (probe/cuda): gpuprobe builds without NCCL or the CUDA toolkit,
// and where the library is absent Load says so and the all-reduce test is
// skipped with that reason.
//
// Part of step 1 of the observation pipeline (read, judge, observe, spool,
// push): the stress tests' all-reduce measures through it.
//
// Only what the all-reduce test needs is bound: the version, one
// communicator per GPU in one process (ncclCommInitAll), group calls and
// ncclAllReduce. A process that drives several communicators from one
// thread must enqueue their collectives between GroupStart and GroupEnd,
// or the first rank's call waits forever for the others.
package nccl

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
)

// ErrNoLibrary is returned by Load when no libnccl.so.2 can be opened.
var ErrNoLibrary = errors.New("NCCL library libnccl.so.2 not found")

// EnvLibrary names the variable that points at a libnccl.so.2 to use
// instead of the search (docs/probe-stress.md).
const EnvLibrary = "GPUPROBE_NCCL_LIBRARY"

// DataType is ncclDataType_t.
type DataType int32

// The data types the test uses, with their ncclDataType_t values (stable
// since NCCL 2.0; bfloat16 since 2.10).
const (
	Float32  DataType = 7
	BFloat16 DataType = 9
)

// Size is the element size in bytes.
func (t DataType) Size() int {
	switch t {
	case Float32:
		return 4
	case BFloat16:
		return 2
	}
	return 0
}

func (t DataType) String() string {
	switch t {
	case Float32:
		return "float32"
	case BFloat16:
		return "bfloat16"
	}
	return fmt.Sprintf("ncclDataType(%d)", int32(t))
}

// opSum is ncclSum.
const opSum = 0

// Error is a failed NCCL call.
type Error struct {
	Op   string
	Code int
	Msg  string
}

func (e *Error) Error() string { return fmt.Sprintf("nccl %s: %s (%d)", e.Op, e.Msg, e.Code) }

// Library is the loaded libnccl. Its calls are safe from any goroutine;
// the communicators are not (see Comms).
type Library struct {
	Path    string // the file that was opened
	Version int    // ncclGetVersion: major*10000 + minor*100 + patch since 2.9
	lib     uintptr

	ncclGetVersion        func(v *int32) int32
	ncclGetErrorString    func(r int32) *byte
	ncclCommInitAll       func(comms *uintptr, n int32, devs *int32) int32
	ncclCommDestroy       func(c uintptr) int32
	ncclCommGetAsyncError func(c uintptr, r *int32) int32
	ncclGroupStart        func() int32
	ncclGroupEnd          func() int32
	ncclAllReduce         func(send, recv uint64, count uint64, dt int32, op int32, comm uintptr, stream uintptr) int32
}

var (
	loadOnce sync.Once
	loaded   *Library
	loadErr  error
)

// Load opens libnccl once per process: the file $GPUPROBE_NCCL_LIBRARY
// names when it is set (and only that one), else the first of
// Candidates that opens.
func Load() (*Library, error) {
	loadOnce.Do(func() { loaded, loadErr = load(os.Getenv(EnvLibrary), Candidates()) })
	return loaded, loadErr
}

// Candidates are the libraries tried, in order: the dynamic loader's own
// search (LD_LIBRARY_PATH, ld.so.cache: a distribution's or NVIDIA's
// libnccl2 package), the CUDA toolkit's folder, then the copies that
// Python wheels install (nvidia-nccl-cu12, which PyTorch depends on) —
// on a rented node the library often exists only there.
func Candidates() []string {
	out := []string{"libnccl.so.2", "libnccl.so", "/usr/local/cuda/lib64/libnccl.so.2"}
	var globs []string
	for _, root := range []string{"/usr/local/lib", "/usr/lib", "/opt/conda/lib"} {
		globs = append(globs, root+"/python3*/*-packages/nvidia/nccl/lib/libnccl.so.2")
	}
	if home, err := os.UserHomeDir(); err == nil {
		globs = append(globs, home+"/.local/lib/python3*/site-packages/nvidia/nccl/lib/libnccl.so.2")
	}
	for _, g := range globs {
		m, _ := filepath.Glob(g)
		sort.Sort(sort.Reverse(sort.StringSlice(m))) // newest Python first
		out = append(out, m...)
	}
	return out
}

// SafeEnv is set in the process environment before NCCL starts: NVLink
// SHARP (multicast) stays off, so that a health check never changes the
// fabric's multicast state on a machine the tenant shares with its
// provider. It overrides whatever the caller's environment says.
var SafeEnv = map[string]string{"NCCL_NVLS_ENABLE": "0"}

func load(forced string, candidates []string) (*Library, error) {
	if err := setSafeEnv(); err != nil {
		return nil, err
	}
	if forced != "" {
		candidates = []string{forced}
	}
	var errs []error
	for _, path := range candidates {
		lib, err := purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_GLOBAL)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		l, err := bind(lib, path)
		if err != nil {
			_ = purego.Dlclose(lib)
			return nil, err
		}
		return l, nil
	}
	if forced != "" {
		return nil, fmt.Errorf("%w: %s=%s: %v", ErrNoLibrary, EnvLibrary, forced, errors.Join(errs...))
	}
	return nil, fmt.Errorf("%w (tried the loader's path, /usr/local/cuda/lib64 and Python's nvidia-nccl wheels; set %s to its file)", ErrNoLibrary, EnvLibrary)
}

// setSafeEnv writes SafeEnv with the C library's setenv, which is what
// NCCL's getenv reads (Go's os.Setenv reaches it only in cgo builds), and
// with os.Setenv for Go's own view.
func setSafeEnv() error {
	libc, err := purego.Dlopen("libc.so.6", purego.RTLD_NOW|purego.RTLD_GLOBAL)
	if err != nil {
		return fmt.Errorf("nccl: open libc to set %v: %w", SafeEnv, err)
	}
	var setenv func(name, value string, overwrite int32) int32
	purego.RegisterLibFunc(&setenv, libc, "setenv")
	for k, v := range SafeEnv {
		if setenv(k, v, 1) != 0 {
			return fmt.Errorf("nccl: setenv %s=%s failed", k, v)
		}
		if err := os.Setenv(k, v); err != nil {
			return fmt.Errorf("nccl: %w", err)
		}
	}
	return nil
}

func bind(lib uintptr, path string) (*Library, error) {
	l := &Library{Path: path, lib: lib}
	syms := []struct {
		fn   any
		name string
	}{
		{&l.ncclGetVersion, "ncclGetVersion"},
		{&l.ncclGetErrorString, "ncclGetErrorString"},
		{&l.ncclCommInitAll, "ncclCommInitAll"},
		{&l.ncclCommDestroy, "ncclCommDestroy"},
		{&l.ncclCommGetAsyncError, "ncclCommGetAsyncError"},
		{&l.ncclGroupStart, "ncclGroupStart"},
		{&l.ncclGroupEnd, "ncclGroupEnd"},
		{&l.ncclAllReduce, "ncclAllReduce"},
	}
	for _, s := range syms {
		if _, err := purego.Dlsym(lib, s.name); err != nil {
			return nil, fmt.Errorf("%s lacks %s (NCCL too old?): %w", path, s.name, err)
		}
		purego.RegisterLibFunc(s.fn, lib, s.name)
	}
	var v int32
	if err := l.check("ncclGetVersion", l.ncclGetVersion(&v)); err != nil {
		return nil, err
	}
	l.Version = int(v)
	// bfloat16 reductions need 2.10; older versions are refused rather
	// than failing mid-run with an "invalid argument".
	if l.Version < 21000 {
		return nil, fmt.Errorf("%s is NCCL %s: the all-reduce test needs 2.10 or newer", path, VersionString(l.Version))
	}
	return l, nil
}

// VersionString writes an ncclGetVersion code as major.minor.patch (the
// code is major*1000+minor*100+patch before 2.9, *10000 since).
func VersionString(code int) string {
	if code >= 10000 {
		return fmt.Sprintf("%d.%d.%d", code/10000, code%10000/100, code%100)
	}
	return fmt.Sprintf("%d.%d.%d", code/1000, code%1000/100, code%100)
}

func (l *Library) check(op string, code int32) error {
	if code == 0 {
		return nil
	}
	msg := "NCCL error"
	if p := l.ncclGetErrorString(code); p != nil {
		msg = goString(p)
	}
	return &Error{Op: op, Code: int(code), Msg: msg}
}

func goString(p *byte) string {
	var b []byte
	for i := uintptr(0); ; i++ {
		c := *(*byte)(unsafe.Add(unsafe.Pointer(p), i))
		if c == 0 || i > 4096 {
			return string(b)
		}
		b = append(b, c)
	}
}

// Comms is one communicator per GPU, all in this process. Its methods must
// be called from one goroutine at a time.
type Comms struct {
	l     *Library
	comms []uintptr
}

// InitAll creates a clique of communicators over the CUDA ordinals devs
// (rank i is devs[i]).
func (l *Library) InitAll(devs []int) (*Comms, error) {
	if len(devs) == 0 {
		return nil, errors.New("nccl: no devices")
	}
	ds := make([]int32, len(devs))
	for i, d := range devs {
		ds[i] = int32(d)
	}
	c := &Comms{l: l, comms: make([]uintptr, len(devs))}
	if err := l.check("ncclCommInitAll", l.ncclCommInitAll(&c.comms[0], int32(len(ds)), &ds[0])); err != nil {
		return nil, err
	}
	return c, nil
}

// Ranks is the number of communicators.
func (c *Comms) Ranks() int { return len(c.comms) }

// Buffer is one rank's part of an all-reduce: device pointers and the
// stream (a CUstream) of that rank's GPU.
type Buffer struct {
	Send, Recv uint64
	Stream     uintptr
}

// AllReduce enqueues a sum over count elements on every rank, as one group
// so that one thread can drive all ranks. It returns once the work is
// queued; the caller waits on the streams.
func (c *Comms) AllReduce(bufs []Buffer, count uint64, dt DataType) error {
	if len(bufs) != len(c.comms) {
		return fmt.Errorf("nccl all-reduce: %d buffers for %d ranks", len(bufs), len(c.comms))
	}
	if err := c.l.check("ncclGroupStart", c.l.ncclGroupStart()); err != nil {
		return err
	}
	var first error
	for i, b := range bufs {
		if err := c.l.check("ncclAllReduce", c.l.ncclAllReduce(b.Send, b.Recv, count, int32(dt), opSum, c.comms[i], b.Stream)); err != nil && first == nil {
			first = fmt.Errorf("rank %d: %w", i, err)
		}
	}
	// The group is always closed, even after a failed enqueue, so that
	// NCCL's group state is not left open for the next call.
	if err := c.l.check("ncclGroupEnd", c.l.ncclGroupEnd()); err != nil && first == nil {
		first = err
	}
	return first
}

// AsyncError reports an error a rank's communicator met in the
// background (a peer that died, a network fault), nil when none.
func (c *Comms) AsyncError() error {
	var errs []error
	for i, comm := range c.comms {
		var r int32
		if err := c.l.check("ncclCommGetAsyncError", c.l.ncclCommGetAsyncError(comm, &r)); err != nil {
			errs = append(errs, fmt.Errorf("rank %d: %w", i, err))
			continue
		}
		if r != 0 {
			errs = append(errs, fmt.Errorf("rank %d: %w", i, c.l.check("async", r)))
		}
	}
	return errors.Join(errs...)
}

// Destroy frees every communicator; calling it twice is harmless.
func (c *Comms) Destroy() error {
	var errs []error
	for i, comm := range c.comms {
		if comm != 0 {
			errs = append(errs, c.l.check("ncclCommDestroy", c.l.ncclCommDestroy(comm)))
			c.comms[i] = 0
		}
	}
	return errors.Join(errs...)
}
