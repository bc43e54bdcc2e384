package gpu

import (
	"errors"
	"time"
)

// BusyPct is the utilisation at which Read confirms a GPU busy by a second
// window; it is probe/health's idle limit (IdleUtilizationPct, tied to it
// by a test there).
const BusyPct = 5

// Utilisation windows. NVML's utilisation is the % of a sample period
// (1/6 s to 1 s, by product) in which a kernel ran, so a reading taken
// right after the probe's own burn still shows that burn: on an H200 the
// default check run straight after another one read 95–100 %.
const (
	// UtilWindow is how far back the utilisation samples judged reach.
	UtilWindow = 5 * time.Second
	// OwnWorkSettle is how long after the probe's own GPU work ended a
	// reading may still include it: NVML's longest sample period (1 s),
	// and as much again for the CUDA context's teardown and timestamps.
	OwnWorkSettle = 2 * time.Second
	// utilPeriod is NVML's longest sample period: the read waits this long
	// past the settle time, so at least one whole clean period exists.
	utilPeriod = time.Second
)

// UtilSince returns the start of the utilisation window a read at now
// judges — the last UtilWindow, but nothing before the probe's own last GPU
// work had settled — and how long to wait first so that the window holds at
// least one whole sample period (nothing while the own work still runs:
// those reads are skipped instead).
func UtilSince(own OwnWork, now time.Time) (since time.Time, wait time.Duration) {
	since = now.Add(-UtilWindow)
	if own.Running || own.EndedAt.IsZero() {
		return since, 0
	}
	if clean := own.EndedAt.Add(OwnWorkSettle); clean.After(since) {
		since = clean
	}
	wait = min(since.Add(utilPeriod).Sub(now), OwnWorkSettle+utilPeriod)
	return since, max(wait, 0)
}

// MeanUtil is the mean of utilisation samples (0 for none).
func MeanUtil(ss []UtilSample) float64 {
	if len(ss) == 0 {
		return 0
	}
	var u float64
	for _, s := range ss {
		u += s.Pct
	}
	return u / float64(len(ss))
}

// IsDriverError reports whether err means NVML could not be used at all.
func IsDriverError(err error) bool {
	var de *DriverError
	return errors.As(err, &de)
}
