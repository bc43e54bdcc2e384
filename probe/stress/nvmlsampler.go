package stress

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/gpusla/gpusla/probe/stress/result"
)

// nvmlSampler is the live Sampler. One XID event set per GPU, so every
// event is known to belong to the GPU being sampled.
type nvmlSampler struct {
	mu      sync.Mutex
	devs    map[string]nvml.Device
	events  map[string]nvml.EventSet
	xidErrs map[string]string
}

// OpenNVML initialises NVML; Close must be called when done.
func OpenNVML() (*nvmlSampler, error) {
	if ret := nvml.Init(); ret != nvml.SUCCESS {
		return nil, fmt.Errorf("NVML init: %s", nvml.ErrorString(ret))
	}
	return &nvmlSampler{devs: map[string]nvml.Device{}, events: map[string]nvml.EventSet{}, xidErrs: map[string]string{}}, nil
}

// Close frees the event sets and shuts NVML down.
func (s *nvmlSampler) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.events {
		_ = e.Free()
	}
	_ = nvml.Shutdown()
}

func (s *nvmlSampler) dev(busID string) (nvml.Device, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if d, ok := s.devs[busID]; ok {
		return d, nil
	}
	d, ret := nvml.DeviceGetHandleByPciBusId(busID)
	if ret != nvml.SUCCESS {
		return nil, fmt.Errorf("NVML device at %s: %s", busID, nvml.ErrorString(ret))
	}
	s.devs[busID] = d
	// Register for XID events now, so that Sample sees those that happen
	// from here on; a GPU that cannot deliver them says so once.
	set, ret := nvml.EventSetCreate()
	if ret == nvml.SUCCESS {
		if r := d.RegisterEvents(nvml.EventTypeXidCriticalError, set); r == nvml.SUCCESS {
			s.events[busID] = set
		} else {
			_ = set.Free()
			s.xidErrs[busID] = "XID events: " + nvml.ErrorString(r)
		}
	}
	return d, nil
}

func (s *nvmlSampler) Static(busID string) (result.Static, error) {
	var st result.Static
	d, err := s.dev(busID)
	if err != nil {
		return st, err
	}
	st.Name, _ = d.GetName()
	if pci, r := d.GetPciInfo(); r == nvml.SUCCESS {
		st.DeviceID = uint16(pci.PciDeviceId >> 16)
		st.SubsystemID = uint16(pci.PciSubSystemId >> 16)
	}
	if mw, r := d.GetEnforcedPowerLimit(); r == nvml.SUCCESS {
		st.PowerLimitW = float64(mw) / 1000
	}
	if t, r := d.GetTemperatureThreshold(nvml.TEMPERATURE_THRESHOLD_SLOWDOWN); r == nvml.SUCCESS {
		st.SlowdownC = float64(t)
	}
	if t, r := d.GetTemperatureThreshold(nvml.TEMPERATURE_THRESHOLD_SHUTDOWN); r == nvml.SUCCESS {
		st.ShutdownC = float64(t)
	}
	if c, r := d.GetMaxClockInfo(nvml.CLOCK_SM); r == nvml.SUCCESS {
		st.MaxSMClockMHz = float64(c)
	}
	st.Driver, _ = nvml.SystemGetDriverVersion()
	return st, nil
}

func (s *nvmlSampler) Sample(busID string) (Reading, error) {
	r := Reading{At: time.Now()}
	d, err := s.dev(busID)
	if err != nil {
		return r, err
	}
	var errs []string
	if mw, ret := d.GetPowerUsage(); ret == nvml.SUCCESS {
		r.PowerW = float64(mw) / 1000
	} else {
		errs = append(errs, "power: "+nvml.ErrorString(ret))
	}
	if t, ret := d.GetTemperature(nvml.TEMPERATURE_GPU); ret == nvml.SUCCESS {
		r.TempC = float64(t)
	} else {
		errs = append(errs, "temperature: "+nvml.ErrorString(ret))
	}
	if c, ret := d.GetClockInfo(nvml.CLOCK_SM); ret == nvml.SUCCESS {
		r.SMClockMHz = float64(c)
	}
	if ev, ret := d.GetCurrentClocksEventReasons(); ret == nvml.SUCCESS {
		r.ClockEvents = ev
	}
	s.mu.Lock()
	set := s.events[busID]
	s.mu.Unlock()
	if set != nil {
		for {
			e, ret := set.Wait(0)
			if ret != nvml.SUCCESS {
				break
			}
			if e.EventType == nvml.EventTypeXidCriticalError {
				r.XIDs = append(r.XIDs, e.EventData)
			}
		}
	}
	if len(errs) > 0 {
		return r, errors.New(strings.Join(errs, "; "))
	}
	return r, nil
}

func (s *nvmlSampler) Busy(busID string) (Busy, error) {
	var b Busy
	d, err := s.dev(busID)
	if err != nil {
		return b, err
	}
	procs, ret := d.GetComputeRunningProcesses()
	if ret != nvml.SUCCESS {
		return b, fmt.Errorf("NVML compute processes: %s", nvml.ErrorString(ret))
	}
	self := uint32(os.Getpid())
	for _, p := range procs {
		if p.Pid != self {
			b.OtherPIDs = append(b.OtherPIDs, p.Pid)
		}
	}
	if u, ret := d.GetUtilizationRates(); ret == nvml.SUCCESS {
		b.UtilizationPct = float64(u.Gpu)
	}
	return b, nil
}

func (s *nvmlSampler) NVLinks(busID string) ([]bool, error) {
	d, err := s.dev(busID)
	if err != nil {
		return nil, err
	}
	var links []bool
	for l := 0; l < nvml.NVLINK_MAX_LINKS; l++ {
		st, ret := d.GetNvLinkState(l)
		if ret == nvml.ERROR_NOT_SUPPORTED || ret == nvml.ERROR_INVALID_ARGUMENT {
			break // no such link: the GPU has l links
		}
		if ret != nvml.SUCCESS {
			return links, fmt.Errorf("NVLink %d state: %s", l, nvml.ErrorString(ret))
		}
		links = append(links, st == nvml.FEATURE_ENABLED)
	}
	return links, nil
}
