// Package usage is what a node's probe measured of the things a bill
// charges besides GPU time: the disks attached to it (size, SSD or HDD, the
// system disk), the bytes each network interface sent and received
// (/proc/net/dev) and the node's boots (uptime). The probe sends them as
// checks named usage.* (docs/probe.md, "Usage readings"); this package reads
// them back from the event log and turns a month of them into figures a bill
// line can be held to: the disks seen, and for the traffic a lower and an
// upper bound of the bytes sent in a period, with counter resets and reboots
// accounted for (Traffic).
//
// On the path from an observation to a report row, this is a step beside
// incidents: the usage readings in the log → the figures a bill line is held
// to.
package usage

import (
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gpusla/gpusla/sla/events"
)

// Check names. Each reading is one observation of the probe's usage job:
// one usage.boot check, one usage.disk.NAME per whole disk and one
// usage.net.NAME per interface. The attributes are in the check's detail as
// a URL query (url.Values), counters as exact decimal integers.
const (
	NameBoot   = "usage.boot"
	PrefixDisk = "usage.disk."
	PrefixNet  = "usage.net."
	// NameRead is a warning the probe sends when part of a reading failed.
	NameRead = "usage.read"
)

// IsUsage reports whether a check is one of the usage readings.
func IsUsage(name string) bool { return strings.HasPrefix(name, "usage.") }

// Boot is the node's running kernel.
type Boot struct {
	ID   string    `json:"id"`        // /proc/sys/kernel/random/boot_id: new at every boot
	Time time.Time `json:"boot_time"` // /proc/stat btime
	// Uptime is /proc/uptime's first figure when it was read.
	UptimeSeconds float64 `json:"uptime_seconds"`
}

// Disk is a whole block device as the node saw it.
type Disk struct {
	Name       string `json:"name"`
	SizeBytes  uint64 `json:"size_bytes"`
	Rotational bool   `json:"rotational"` // queue/rotational = 1: a spinning disk, unless Virtual
	// Virtual: a hypervisor's disk (virtio, Xen, a hypervisor's SCSI
	// emulation, or any disk of a guest), whose rotational flag the
	// hypervisor sets and which therefore says nothing of the medium.
	Virtual bool   `json:"virtual"`
	System  bool   `json:"system"` // holds the root filesystem
	Vendor  string `json:"vendor,omitempty"`
	Model   string `json:"model,omitempty"`
}

// Iface is one network interface's counters.
type Iface struct {
	Name         string `json:"name"`
	RxBytes      uint64 `json:"rx_bytes"`
	TxBytes      uint64 `json:"tx_bytes"`
	Physical     bool   `json:"physical"`      // backed by a device (/sys/class/net/NAME/device), not a bridge, veth or tunnel
	DefaultRoute bool   `json:"default_route"` // carries the default route
	SpeedMbps    int64  `json:"speed_mbps,omitempty"`
	// Index is the kernel's ifindex: a new one under the same name within
	// a boot is a re-created interface, whose counters started from zero.
	Index int64 `json:"ifindex,omitempty"`
}

// Reading is one usage observation.
type Reading struct {
	At     time.Time
	Boot   *Boot
	Disks  []Disk
	Ifaces []Iface
}

// FromChecks reads the usage checks of one observation. ok is false when
// it has none. A usage check it cannot read is an error naming it: a
// misread counter must not become a traffic figure.
func FromChecks(at time.Time, cs []events.Check) (r Reading, ok bool, err error) {
	r.At = at
	for _, c := range cs {
		if !IsUsage(c.Name) || c.Name == NameRead {
			continue
		}
		v, perr := parseDetail(c.Detail)
		if perr != nil {
			return r, false, fmt.Errorf("check %s: detail %q: %v", c.Name, c.Detail, perr)
		}
		switch {
		case c.Name == NameBoot:
			b := &Boot{ID: v.Get("boot_id")}
			bt, err := intOf(&v, "boot_time")
			if err != nil {
				return r, false, fmt.Errorf("check %s: %v", c.Name, err)
			}
			b.Time = time.Unix(int64(bt), 0).UTC()
			if c.Number != nil {
				b.UptimeSeconds = *c.Number
			}
			r.Boot, ok = b, true
		case strings.HasPrefix(c.Name, PrefixDisk):
			d := Disk{Name: strings.TrimPrefix(c.Name, PrefixDisk), Vendor: v.Get("vendor"), Model: v.Get("model"),
				Rotational: v.Get("rotational") == "1", Virtual: v.Get("virtual") == "1", System: v.Get("system") == "1"}
			if d.SizeBytes, err = intOf(&v, "size_bytes"); err != nil {
				return r, false, fmt.Errorf("check %s: %v", c.Name, err)
			}
			r.Disks, ok = append(r.Disks, d), true
		case strings.HasPrefix(c.Name, PrefixNet):
			i := Iface{Name: strings.TrimPrefix(c.Name, PrefixNet), Physical: v.Get("physical") == "1", DefaultRoute: v.Get("default_route") == "1"}
			if i.RxBytes, err = intOf(&v, "rx_bytes"); err == nil {
				i.TxBytes, err = intOf(&v, "tx_bytes")
			}
			if err != nil {
				return r, false, fmt.Errorf("check %s: %v", c.Name, err)
			}
			for _, f := range []struct {
				k   string
				dst *int64
			}{{"speed_mbps", &i.SpeedMbps}, {"ifindex", &i.Index}} {
				if s := v.Get(f.k); s != "" {
					if *f.dst, err = strconv.ParseInt(s, 10, 64); err != nil {
						return r, false, fmt.Errorf("check %s: %s %q is not an integer", c.Name, f.k, s)
					}
				}
			}
			r.Ifaces, ok = append(r.Ifaces, i), true
		}
	}
	return r, ok, nil
}

// detail is a usage check's detail, key=value pairs joined by '&' as
// url.ParseQuery reads them.
type detail struct {
	kv   [maxPairs][2]string // the first pairs, read where they lie
	n    int
	rest string     // what follows them, read as Get asks
	vals url.Values // or as url.ParseQuery read it
}

// maxPairs is how many of a detail's pairs are split once: a disk's or an
// interface's detail holds six or seven, each asked for.
const maxPairs = 12

// parseDetail reads s as url.ParseQuery does. A detail with nothing to
// unescape and no ';' (what the probe writes) is read where it lies, an
// hourly reading's five checks without a map or a copy each; any other is
// left to url.ParseQuery, errors and all.
func parseDetail(s string) (detail, error) {
	for i := 0; i < len(s); i++ {
		// One pass over the bytes: strings.ContainsAny builds its set of
		// three on every call, a few hundred thousand times a month's books.
		if c := s[i]; c == '%' || c == '+' || c == ';' {
			v, err := url.ParseQuery(s)
			return detail{vals: v}, err
		}
	}
	var d detail
	for s != "" && d.n < maxPairs {
		var pair string
		pair, s, _ = strings.Cut(s, "&")
		if pair == "" {
			continue
		}
		d.kv[d.n][0], d.kv[d.n][1], _ = strings.Cut(pair, "=")
		d.n++
	}
	d.rest = s
	return d, nil
}

// Get is the first value of key k, as url.Values.Get.
func (d *detail) Get(k string) string {
	if d.vals != nil {
		return d.vals.Get(k)
	}
	for i := range d.n {
		if d.kv[i][0] == k {
			return d.kv[i][1]
		}
	}
	for s := d.rest; s != ""; {
		var pair string
		pair, s, _ = strings.Cut(s, "&")
		if key, v, _ := strings.Cut(pair, "="); key == k && pair != "" {
			return v
		}
	}
	return ""
}

func intOf(v *detail, k string) (uint64, error) {
	s := v.Get(k)
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s %q is not a whole number", k, s)
	}
	return n, nil
}

// Detail encodes a check's attributes the way FromChecks reads them (the
// probe writes the same form with url.Values).
func Detail(kv map[string]string) string {
	v := url.Values{}
	for k, x := range kv {
		v.Set(k, x)
	}
	return v.Encode()
}

// Month is what the probe measured over a node's month, as the report
// carries it (docs/reports.md, "usage").
type Month struct {
	Readings int       `json:"readings"`
	First    time.Time `json:"first_reading"`
	Last     time.Time `json:"last_reading"`
	// LastSeen is the node's last sign of life of the month (any heartbeat
	// or check), which storage billed later is held to.
	LastSeen time.Time  `json:"last_seen,omitzero"`
	Boots    []BootSeen `json:"boots"`
	Disks    []DiskSeen `json:"disks"`
	// Traffic is over the node's service period in the month.
	Traffic *Traffic `json:"traffic,omitempty"`
	// All holds every reading (not in the JSON), for bill lines that cover
	// only part of the month.
	All []Reading `json:"-"`
}

// BootSeen is one boot and the readings taken in it.
type BootSeen struct {
	ID        string    `json:"id"`
	BootTime  time.Time `json:"boot_time"`
	FirstSeen time.Time `json:"first_reading"`
	LastSeen  time.Time `json:"last_reading"`
}

// DiskSeen is one disk over the readings that saw it.
type DiskSeen struct {
	Disk
	// MinSizeBytes differs from SizeBytes (the largest) when the disk was
	// resized in the month.
	MinSizeBytes uint64    `json:"min_size_bytes"`
	FirstSeen    time.Time `json:"first_reading"`
	LastSeen     time.Time `json:"last_reading"`
}

// Summarize folds readings into a month; from–to is the node's service
// period, which the traffic bounds cover.
func Summarize(all []Reading, from, to time.Time, lastSeen time.Time) *Month {
	if len(all) == 0 {
		return nil
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].At.Before(all[j].At) })
	m := &Month{Readings: len(all), First: all[0].At, Last: all[len(all)-1].At, LastSeen: lastSeen, Boots: []BootSeen{}, Disks: []DiskSeen{}, All: all}
	boots := map[string]int{}
	disks := map[string]int{}
	for _, r := range all {
		if b := r.Boot; b != nil {
			i, ok := boots[b.ID]
			if !ok {
				i = len(m.Boots)
				boots[b.ID] = i
				m.Boots = append(m.Boots, BootSeen{ID: b.ID, BootTime: b.Time, FirstSeen: r.At})
			}
			m.Boots[i].LastSeen = r.At
		}
		for _, d := range r.Disks {
			i, ok := disks[d.Name]
			if !ok {
				i = len(m.Disks)
				disks[d.Name] = i
				m.Disks = append(m.Disks, DiskSeen{Disk: d, MinSizeBytes: d.SizeBytes, FirstSeen: r.At})
			}
			s := &m.Disks[i]
			s.LastSeen = r.At
			s.MinSizeBytes = min(s.MinSizeBytes, d.SizeBytes)
			if d.SizeBytes > s.SizeBytes {
				s.SizeBytes = d.SizeBytes
			}
			// Any reading that saw the disk rotational, virtual or holding
			// the root filesystem says so for the month.
			s.Rotational = s.Rotational || d.Rotational
			s.Virtual = s.Virtual || d.Virtual
			s.System = s.System || d.System
		}
	}
	sort.Slice(m.Disks, func(i, j int) bool { return m.Disks[i].Name < m.Disks[j].Name })
	if to.After(from) {
		m.Traffic = TrafficIn(all, from, to)
	}
	return m
}

// DisksIn are the disks seen by readings inside from–to (the whole month's
// when from or to is zero), folded as Summarize does.
func (m *Month) DisksIn(from, to time.Time) []DiskSeen {
	if from.IsZero() || to.IsZero() {
		return m.Disks
	}
	var in []Reading
	for _, r := range m.All {
		if !r.At.Before(from) && r.At.Before(to) {
			in = append(in, r)
		}
	}
	if len(in) == 0 {
		return nil
	}
	return Summarize(in, time.Time{}, time.Time{}, time.Time{}).Disks
}
