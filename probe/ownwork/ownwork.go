// Package ownwork records the probe's own GPU work — when a stress run
// began and ended, and in which process — so that the idleness checks
// (gpu.utilization, gpu.processes, gpu.memory_in_use) never take the
// probe's own load for a tenant's. The daemon's health job asks it whether
// its own stress job overlaps the read; `gpuprobe check` asks it when the
// previous probe process's burn ended, to judge only utilisation samples
// taken after it.
//
// It serves step 2 of the observation pipeline (read, judge, observe, spool,
// push): it tells the judges which GPU work was the probe's own.
//
// Within a process the state is kept in memory. Across processes it is one
// small JSON file, replaced atomically (internal/atomicfile) on every begin and end:
// the last one wins, which is enough, because only the latest work's end
// matters and a running one is recognised by its live PID.
package ownwork

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/gpusla/gpusla/internal/atomicfile"

	"github.com/gpusla/gpusla/probe/gpu"
)

// EnvDir overrides the directory of the state file.
const EnvDir = "GPUPROBE_STATE_DIR"

// FileName is the state file's name in its directory.
const FileName = "own-gpu-work.json"

// DefaultPath is where the state file lives: $GPUPROBE_STATE_DIR, else
// /run/gpuprobe (tmpfs: gone after a reboot, when it no longer matters)
// where this process may write it, else a per-user directory under the
// system's temporary directory. Nothing is created until a work is
// recorded.
func DefaultPath() string {
	if d := os.Getenv(EnvDir); d != "" {
		return filepath.Join(d, FileName)
	}
	if writable("/run/gpuprobe") || (!exists("/run/gpuprobe") && writable("/run")) {
		return filepath.Join("/run/gpuprobe", FileName)
	}
	return filepath.Join(os.TempDir(), "gpuprobe-"+strconv.Itoa(os.Getuid()), FileName)
}

func writable(dir string) bool { return syscall.Access(dir, 2 /* W_OK */) == nil }

func exists(path string) bool { _, err := os.Stat(path); return err == nil }

// MaxRunning bounds how long another process's "running" record is
// believed: longer than any stress job may run (the daemon cancels its
// own after stress.timeout), so a record left by a killed probe whose PID
// was reused does not hold the idleness checks off for ever.
const MaxRunning = 12 * time.Hour

// record is the state file.
type record struct {
	PID       int        `json:"pid"`
	StartedAt time.Time  `json:"started_at"`
	EndedAt   *time.Time `json:"ended_at,omitempty"` // nil while running
}

// Recorder records and reports the probe's own GPU work.
type Recorder struct {
	// Path is the state file shared with other probe processes ("": this
	// process only).
	Path string
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	Log *slog.Logger

	mu      sync.Mutex
	running int
	begun   uint64
	ended   time.Time
}

// New returns a recorder sharing its state through the file at path.
func New(path string, log *slog.Logger) *Recorder { return &Recorder{Path: path, Log: log} }

func (r *Recorder) now() time.Time {
	if r.Now != nil {
		return r.Now().UTC()
	}
	return time.Now().UTC()
}

// Begin marks the start of GPU work; the returned function marks its end
// (call it once the GPU is idle again: contexts released). A nil Recorder
// records nothing.
func (r *Recorder) Begin() (end func()) {
	if r == nil {
		return func() {}
	}
	r.mu.Lock()
	r.running++
	r.begun++
	started := r.now()
	r.mu.Unlock()
	r.write(record{PID: os.Getpid(), StartedAt: started})
	var once sync.Once
	return func() {
		once.Do(func() {
			r.mu.Lock()
			r.running--
			at := r.now()
			r.ended = at
			last := r.running == 0
			r.mu.Unlock()
			if last {
				r.write(record{PID: os.Getpid(), StartedAt: started, EndedAt: &at})
			}
		})
	}
}

func (r *Recorder) write(rec record) {
	if r.Path == "" {
		return
	}
	data, _ := json.Marshal(rec)
	err := os.MkdirAll(filepath.Dir(r.Path), 0o755)
	if err == nil {
		err = atomicfile.WriteFile(r.Path, append(data, '\n'), 0o644)
	}
	if err != nil && r.Log != nil {
		// Without the file a later probe process may judge the tail of this
		// work as a tenant's load: a false warning, never a false pass.
		r.Log.Warn("cannot record the probe's own GPU work", "path", r.Path, "err", err)
	}
}

// State is what the probe knows of its own GPU work now: this process's,
// and another probe process's from the state file (running only while its
// PID lives).
func (r *Recorder) State() gpu.OwnWork {
	self := uint32(os.Getpid())
	if r == nil {
		return gpu.OwnWork{PIDs: []uint32{self}}
	}
	r.mu.Lock()
	w := gpu.OwnWork{Running: r.running > 0, EndedAt: r.ended, PIDs: []uint32{self}, Begun: r.begun}
	r.mu.Unlock()
	rec, err := r.read()
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) && r.Log != nil {
			r.Log.Warn("cannot read the probe's own GPU work record", "path", r.Path, "err", err)
		}
		return w
	}
	switch {
	case rec.EndedAt != nil:
		if rec.EndedAt.After(w.EndedAt) {
			w.EndedAt = rec.EndedAt.UTC()
		}
	case rec.PID != int(self) && alive(rec.PID) && r.now().Sub(rec.StartedAt) < MaxRunning:
		w.Running = true
		w.PIDs = append(w.PIDs, uint32(rec.PID))
	}
	return w
}

func (r *Recorder) read() (record, error) {
	var rec record
	if r.Path == "" {
		return rec, os.ErrNotExist
	}
	data, err := os.ReadFile(r.Path)
	if err != nil {
		return rec, err
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		return rec, fmt.Errorf("%s: %w", r.Path, err)
	}
	return rec, nil
}

// alive reports whether a process with this PID exists. A probe process
// killed while burning leaves a "running" record whose PID is gone: that
// work has ended, at an unknown time before now.
func alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
