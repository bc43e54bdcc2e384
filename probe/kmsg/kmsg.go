// Package kmsg finds NVIDIA XID errors in the kernel log. NVML only
// reports XIDs to a listener that is running when they happen; the kernel
// log keeps the ones raised while the probe was not running (before it was
// installed, across its restarts), as lines such as
//
//	NVRM: Xid (PCI:0000:3b:00): 79, pid=0, GPU has fallen off the bus.
//
// The package reads /dev/kmsg (or `dmesg` output when /dev/kmsg cannot be
// read) into raw lines, and parses them; parsing is separate so that
// recorded logs and fixture files are judged exactly like live ones.
//
// Step 1 of the observation pipeline (read, judge, observe, spool, push):
// reads the kernel log's XIDs for step 2 (probe/health) to judge.
package kmsg

import (
	"regexp"
	"strconv"
	"strings"
)

// Xid is one parsed XID line.
type Xid struct {
	PCI     string `json:"pci"` // bus id as the driver prints it, e.g. "0000:3b:00"
	XID     int    `json:"xid"`
	PID     string `json:"pid,omitempty"`
	Process string `json:"process,omitempty"`
	Message string `json:"message"` // the text after "N, " (pid/name included)
	// BootSeconds is the kernel timestamp in seconds since boot, when the
	// line carries one (/dev/kmsg records and plain dmesg output do).
	BootSeconds *float64 `json:"boot_seconds,omitempty"`
	// Time is the wall-clock prefix of `dmesg -T` or journal lines, as
	// printed (those formats give no year or zone reliably).
	Time string `json:"time,omitempty"`
	Line int    `json:"line"` // 1-based index in Log.Lines (the NVRM lines kept)
}

var (
	xidRe = regexp.MustCompile(`NVRM: Xid \(PCI:([0-9A-Fa-f]{1,8}:[0-9A-Fa-f]{1,2}:[0-9A-Fa-f]{1,2}(?:\.[0-7])?)[^)]*\): (\d{1,5})(?:, ?(.*))?$`)
	// Some drivers print the loss of a GPU without an Xid line.
	offBusRe = regexp.MustCompile(`NVRM: GPU (?:at )?(?:PCI:)?([0-9A-Fa-f]{1,8}:[0-9A-Fa-f]{1,2}:[0-9A-Fa-f]{1,2})(?:\.[0-7])?: GPU has fallen off the bus`)
	pidRe    = regexp.MustCompile(`(?:^|, )pid=('?[^,']*'?)`)
	nameRe   = regexp.MustCompile(`(?:^|, )name=([^,]*)`)
	// Prefixes a kernel line may carry, in the formats we read.
	bracketRe  = regexp.MustCompile(`^\[\s*([0-9]+\.[0-9]+)\]\s*`)                                          // dmesg
	bracketTRe = regexp.MustCompile(`^\[([A-Z][a-z]{2} [A-Z][a-z]{2} [ 0-9]{1,2} [0-9:]{8} [0-9]{4})\]\s*`) // dmesg -T
	journalRe  = regexp.MustCompile(`^([A-Z][a-z]{2} [ 0-9]{1,2} [0-9:]{8}) \S+ kernel: (?:\[\s*([0-9]+\.[0-9]+)\] )?`)
	isoRe      = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2}T[0-9:.]+(?:Z|[+-][0-9:]+)) \S+ kernel: (?:\[\s*([0-9]+\.[0-9]+)\] )?`)
	kmsgRe     = regexp.MustCompile(`^[0-9]+,[0-9]+,([0-9]+),[^;]*;`) // /dev/kmsg record
)

// XIDOffBus is the XID a GPU that fell off the bus reports.
const XIDOffBus = 79

// ParseLine parses one kernel log line in any of the formats above. ok is
// false for lines that are not an XID report.
func ParseLine(line string) (x Xid, ok bool) {
	line = strings.TrimRight(line, "\r\n")
	if !strings.Contains(line, "NVRM: ") {
		return Xid{}, false
	}
	rest := line
	if m := kmsgRe.FindStringSubmatch(rest); m != nil {
		if us, err := strconv.ParseFloat(m[1], 64); err == nil {
			s := us / 1e6
			x.BootSeconds = &s
		}
		rest = rest[len(m[0]):]
	} else if m := bracketRe.FindStringSubmatch(rest); m != nil {
		if s, err := strconv.ParseFloat(m[1], 64); err == nil {
			x.BootSeconds = &s
		}
		rest = rest[len(m[0]):]
	} else if m := bracketTRe.FindStringSubmatch(rest); m != nil {
		x.Time = m[1]
		rest = rest[len(m[0]):]
	} else if m := journalRe.FindStringSubmatch(rest); m != nil {
		x.Time = m[1]
		if m[2] != "" {
			if s, err := strconv.ParseFloat(m[2], 64); err == nil {
				x.BootSeconds = &s
			}
		}
		rest = rest[len(m[0]):]
	} else if m := isoRe.FindStringSubmatch(rest); m != nil {
		x.Time = m[1]
		rest = rest[len(m[0]):]
	}
	if m := xidRe.FindStringSubmatch(rest); m != nil {
		n, err := strconv.Atoi(m[2])
		if err != nil || n == 0 {
			return Xid{}, false
		}
		x.PCI, x.XID, x.Message = strings.ToLower(m[1]), n, strings.TrimSpace(m[3])
		if p := pidRe.FindStringSubmatch(x.Message); p != nil {
			x.PID = strings.Trim(p[1], "'")
		}
		if p := nameRe.FindStringSubmatch(x.Message); p != nil {
			x.Process = strings.TrimSpace(p[1])
		}
		return x, true
	}
	if m := offBusRe.FindStringSubmatch(rest); m != nil {
		x.PCI, x.XID, x.Message = strings.ToLower(m[1]), XIDOffBus, "GPU has fallen off the bus (no Xid line)"
		return x, true
	}
	return Xid{}, false
}

// Parse returns the XIDs in a log, one line each.
func Parse(lines []string) []Xid {
	var out []Xid
	for i, l := range lines {
		if x, ok := ParseLine(l); ok {
			x.Line = i + 1
			out = append(out, x)
		}
	}
	return out
}
