package nvmlread

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/gpusla/gpusla/probe/gpu"
)

// XIDWatcher receives XID critical-error events from NVML. The daemon keeps
// one open for as long as it runs (NVML only delivers events to a
// registered listener; errors raised while nobody listens are only in the
// kernel log, which kmsg reads).
type XIDWatcher struct {
	set     nvml.EventSet
	devices []nvml.Device
	uuids   []string
}

// WatchXIDs registers for XID events on every device that supports them.
// Devices that do not are skipped; an error is returned only when no
// device could be registered at all. nil entries in devices are skipped.
func WatchXIDs(lib nvml.Interface, devices []nvml.Device) (*XIDWatcher, error) {
	set, ret := lib.EventSetCreate()
	if ret != nvml.SUCCESS {
		return nil, fmt.Errorf("create NVML event set: %s", ret.Error())
	}
	w := &XIDWatcher{set: set, devices: devices, uuids: make([]string, len(devices))}
	var registered int
	var problems []string
	for i, d := range devices {
		if d == nil {
			continue
		}
		if u, ret := d.GetUUID(); ret == nvml.SUCCESS {
			w.uuids[i] = u
		}
		supported, ret := d.GetSupportedEventTypes()
		if ret != nvml.SUCCESS {
			problems = append(problems, fmt.Sprintf("gpu %d: supported events: %s", i, ret.Error()))
			continue
		}
		if supported&nvml.EventTypeXidCriticalError == 0 {
			problems = append(problems, fmt.Sprintf("gpu %d: XID events not supported", i))
			continue
		}
		if ret := d.RegisterEvents(nvml.EventTypeXidCriticalError, set); ret != nvml.SUCCESS {
			problems = append(problems, fmt.Sprintf("gpu %d: register XID events: %s", i, ret.Error()))
			continue
		}
		registered++
	}
	if registered == 0 && len(devices) > 0 {
		set.Free()
		return nil, fmt.Errorf("XID events not watched: %s", strings.Join(problems, "; "))
	}
	return w, nil
}

// Drain returns the events that arrived, waiting up to wait for the first
// one (and not at all for the rest).
func (w *XIDWatcher) Drain(ctx context.Context, wait time.Duration) ([]gpu.XIDEvent, error) {
	var out []gpu.XIDEvent
	timeout := uint32(wait.Milliseconds())
	for ctx.Err() == nil {
		e, ret := w.set.Wait(timeout)
		timeout = 0
		switch ret {
		case nvml.SUCCESS:
		case nvml.ERROR_TIMEOUT:
			return out, nil
		default:
			return out, fmt.Errorf("wait for XID events: %s", ret.Error())
		}
		if e.EventType&nvml.EventTypeXidCriticalError == 0 {
			continue
		}
		ev := gpu.XIDEvent{GPU: -1, XID: e.EventData}
		for i, d := range w.devices {
			if d != nil && d == e.Device {
				ev.GPU, ev.UUID = i, w.uuids[i]
			}
		}
		if ev.GPU < 0 && e.Device != nil {
			if idx, ret := e.Device.GetIndex(); ret == nvml.SUCCESS {
				ev.GPU = idx
			}
		}
		out = append(out, ev)
	}
	return out, ctx.Err()
}

// Close frees the event set.
func (w *XIDWatcher) Close() {
	if w != nil && w.set != nil {
		w.set.Free()
	}
}

// ListenXIDs keeps NVML open and calls fn for every XID event until ctx
// ends: the daemon's live XID source (the kernel log covers the gaps when
// it was not running). It returns the error that stopped it, or ctx.Err().
func ListenXIDs(ctx context.Context, lib nvml.Interface, now func() time.Time, fn func(gpu.XIDEvent)) error {
	if now == nil {
		now = time.Now
	}
	if ret := lib.Init(); ret != nvml.SUCCESS {
		return initError(ret)
	}
	defer lib.Shutdown()
	count, ret := lib.DeviceGetCount()
	if ret != nvml.SUCCESS {
		return &gpu.DriverError{Op: "device count", Code: int(ret), Reason: ret.Error()}
	}
	devices := make([]nvml.Device, count)
	for i := range devices {
		if d, ret := lib.DeviceGetHandleByIndex(i); ret == nvml.SUCCESS {
			devices[i] = d
		}
	}
	w, err := WatchXIDs(lib, devices)
	if err != nil {
		return err
	}
	defer w.Close()
	for {
		// Wait in short slices so that cancellation is noticed promptly.
		evs, err := w.Drain(ctx, time.Second)
		for _, e := range evs {
			e.At = now().UTC()
			fn(e)
		}
		if err != nil {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
}
