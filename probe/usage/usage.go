// Package usage reads what a rented node's bill charges for besides GPU
// time, as the node itself sees it: the disks attached to it (size, SSD or
// HDD, which one holds the system), the bytes every network interface sent
// and received (/proc/net/dev) and the running boot (boot id, boot time,
// uptime). The daemon sends a reading every hour as checks named usage.*;
// the backend keeps every one (they are the evidence a bill line is held
// to: docs/bills.md), and sla/usage reads them back from the event log.
//
// Step 1 of the observation pipeline (read, judge, observe, spool, push):
// reads what a bill is held to; the readings are checks that pass, with
// nothing for step 2 to judge.
//
// One collector per concern, as node_exporter does (disks.go, netdev.go,
// boot.go), each reading /proc and /sys under a root through
// github.com/prometheus/procfs, so tests run on fixture trees in testdata/
// and compare the checks with golden files.
package usage

import (
	"fmt"
	"net/url"
	"path/filepath"
	"sort"
	"strconv"
	"time"

	"github.com/gpusla/gpusla/probe/wire"
)

// Check names (sla/usage reads the same words back).
const (
	NameBoot   = "usage.boot"
	PrefixDisk = "usage.disk."
	PrefixNet  = "usage.net."
	NameRead   = "usage.read"
)

// Reader reads the usage of the machine under Root ("" or "/" for the live
// one).
type Reader struct {
	Root string
}

func (r Reader) path(p ...string) string {
	root := r.Root
	if root == "" {
		root = "/"
	}
	return filepath.Join(append([]string{root}, p...)...)
}

// collector is one concern's reading: its checks, or an error for the part
// it could not read.
type collector func(Reader) ([]wire.Check, error)

// Collect reads every concern. A concern that cannot be read gives a
// usage.read warning naming it; the others are still sent, since a reading
// that is only partly there is still evidence for the lines it covers.
func (r Reader) Collect() []wire.Check {
	var out []wire.Check
	for _, c := range []struct {
		name string
		read collector
	}{{"boot", readBoot}, {"disks", readDisks}, {"network interfaces", readNetDev}} {
		cs, err := c.read(r)
		out = append(out, cs...)
		if err != nil {
			out = append(out, wire.Check{Name: NameRead, Category: wire.CategoryHost, Verdict: wire.Warn,
				Criterion: "the node's usage (boot, disks, interface counters) can be read",
				Detail:    fmt.Sprintf("%s: %v", c.name, err)})
		}
	}
	return out
}

// reading is a usage check: passes always (it is a measurement, not a
// verdict), with its attributes as a URL query.
func reading(name, value string, number float64, unit string, attrs map[string]string) wire.Check {
	v := url.Values{}
	keys := make([]string, 0, len(attrs))
	for k := range attrs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if attrs[k] != "" {
			v.Set(k, attrs[k])
		}
	}
	return wire.Check{Name: name, Category: wire.CategoryHost, Verdict: wire.Pass, Value: value,
		Criterion: "recorded: checks the bill's lines", Number: &number, Unit: unit, Detail: v.Encode()}
}

func flag(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

func u64(n uint64) string { return strconv.FormatUint(n, 10) }

// bytesText is a size as people read it, both ways a bill may mean GB.
func bytesText(n uint64) string {
	return fmt.Sprintf("%.1f GB (%.1f GiB)", float64(n)/1e9, float64(n)/(1<<30))
}

func durText(d time.Duration) string {
	d = d.Round(time.Second)
	days := d / (24 * time.Hour)
	if days > 0 {
		return fmt.Sprintf("%dd%s", days, (d - days*24*time.Hour).String())
	}
	return d.String()
}
