package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
	"go.yaml.in/yaml/v3"
)

// Every is a fixed-interval schedule. Unlike cron's @every it accepts
// sub-second intervals, which the tests use to make batches fast.
type Every time.Duration

// Next implements cron.Schedule.
func (e Every) Next(t time.Time) time.Time { return t.Add(time.Duration(e)) }

// ParseSchedule reads a schedule: "off", a Go duration, or a cron spec
// (five fields, or a descriptor such as @daily / @every 1h).
func ParseSchedule(s string) (cron.Schedule, error) {
	s = strings.TrimSpace(s)
	if s == "off" {
		return nil, nil
	}
	if d, err := time.ParseDuration(s); err == nil {
		if d < 100*time.Millisecond {
			return nil, fmt.Errorf("%q is shorter than 100ms", s)
		}
		return Every(d), nil
	}
	sch, err := cron.ParseStandard(s)
	if err != nil {
		return nil, fmt.Errorf("%q is neither a duration (30s), a cron spec (0 3 * * *) nor off: %v", s, err)
	}
	return sch, nil
}

// Window is a daily interval in local time; it may wrap midnight.
type Window struct {
	Start, End int // minutes after midnight
}

// ParseWindow reads "HH:MM-HH:MM".
func ParseWindow(s string) (Window, error) {
	a, b, ok := strings.Cut(s, "-")
	if !ok {
		return Window{}, fmt.Errorf("%q is not HH:MM-HH:MM", s)
	}
	start, err := hhmm(strings.TrimSpace(a))
	if err != nil {
		return Window{}, err
	}
	end, err := hhmm(strings.TrimSpace(b))
	if err != nil {
		return Window{}, err
	}
	if start == end {
		return Window{}, fmt.Errorf("%q is empty", s)
	}
	return Window{Start: start, End: end}, nil
}

func hhmm(s string) (int, error) {
	h, m, ok := strings.Cut(s, ":")
	hh, err1 := strconv.Atoi(h)
	mm, err2 := strconv.Atoi(m)
	if !ok || err1 != nil || err2 != nil || hh < 0 || hh > 24 || mm < 0 || mm > 59 || (hh == 24 && mm != 0) {
		return 0, fmt.Errorf("%q is not a time of day HH:MM", s)
	}
	return hh*60 + mm, nil
}

// Contains reports whether t (in the window's time zone) falls inside.
func (w Window) Contains(t time.Time) bool {
	m := t.Hour()*60 + t.Minute()
	if w.Start < w.End {
		return m >= w.Start && m < w.End
	}
	return m >= w.Start || m < w.End
}

func (w Window) String() string {
	return fmt.Sprintf("%02d:%02d-%02d:%02d", w.Start/60, w.Start%60, w.End/60, w.End%60)
}

// ByteSize is a size that may be written as a number of bytes or with a
// unit: 512KiB, 64MiB, 1GiB (also KB/MB/GB as powers of 1000).
type ByteSize int64

// UnmarshalYAML implements yaml.Unmarshaler.
func (b *ByteSize) UnmarshalYAML(n *yaml.Node) error {
	v, err := ParseByteSize(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %v", n.Line, err)
	}
	*b = v
	return nil
}

// ParseByteSize reads "64MiB", "1GB", "1048576".
func ParseByteSize(s string) (ByteSize, error) {
	s = strings.TrimSpace(s)
	units := []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1}}
	mult := int64(1)
	for _, u := range units {
		if rest, ok := strings.CutSuffix(s, u.suffix); ok {
			s, mult = strings.TrimSpace(rest), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n > (1<<50)/mult {
		return 0, fmt.Errorf("%q is not a size (e.g. 64MiB)", s)
	}
	return ByteSize(n * mult), nil
}
