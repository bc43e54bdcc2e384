// Package refusal records requests the backend refuses (bad signatures,
// replays, schema errors, bad API keys). Every refusal is counted in
// Prometheus (gpusla_refused_requests_total by surface, reason and status);
// the log gets one WARN line per surface, reason and status per interval,
// saying how many more were refused since that reason's last line. Under a
// flood the counts stay exact while the log stays readable: a log line per
// refused request (11 000 lines in 10 s) buried everything else and let
// anyone with the URL fill the disk.
package refusal

import (
	"context"
	"log/slog"
	"regexp"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
)

// Refused counts refusals; it is registered with Prometheus's default
// registry, which `gpusla serve` exposes on /metrics.
var Refused = promauto.NewCounterVec(prometheus.CounterOpts{
	Name: "gpusla_refused_requests_total",
	Help: "Requests refused, by surface (ingest, tickets, slack), reason and HTTP status.",
}, []string{"surface", "reason", "status"})

// DefaultInterval is how often one reason may write a log line.
const DefaultInterval = time.Minute

// Log is the refusal log of one surface.
type Log struct {
	surface string
	log     *slog.Logger
	every   time.Duration
	now     func() time.Time

	mu   sync.Mutex
	last map[key]*seen
}

type key struct {
	reason string
	status int
}

type seen struct {
	at         time.Time // of the last line written
	suppressed int       // refusals since then that wrote none
}

// New returns the refusal log of surface, writing to log at most once per
// interval (DefaultInterval if 0) per reason and status.
func New(surface string, log *slog.Logger, interval time.Duration) *Log {
	if log == nil {
		log = slog.Default()
	}
	if interval <= 0 {
		interval = DefaultInterval
	}
	return &Log{surface: surface, log: log, every: interval, now: time.Now, last: map[key]*seen{}}
}

// SetClock replaces the clock (tests).
func (l *Log) SetClock(now func() time.Time) { l.now = now }

// indices turns "observations[3].checks[12].name" into
// "observations[].checks[].name": reasons must be few for the counter.
var indices = regexp.MustCompile(`\[\d+\]`)

// Refused records one refusal. reason must come from a small set (an error
// sentinel's text, a field name); attrs are logged with the line only.
func (l *Log) Refused(ctx context.Context, reason string, status int, attrs ...any) {
	reason = indices.ReplaceAllString(reason, "[]")
	Refused.WithLabelValues(l.surface, reason, strconv.Itoa(status)).Inc()
	k := key{reason, status}
	now := l.now()
	l.mu.Lock()
	s := l.last[k]
	if s != nil && now.Sub(s.at) < l.every {
		s.suppressed++
		l.mu.Unlock()
		return
	}
	if s == nil {
		s = &seen{}
		l.last[k] = s
	}
	suppressed := s.suppressed
	s.at, s.suppressed = now, 0
	l.mu.Unlock()
	args := append([]any{"surface", l.surface, "status", status, "reason", reason}, attrs...)
	if suppressed > 0 {
		args = append(args, "more_since_last_line", suppressed)
	}
	l.log.WarnContext(ctx, "request refused", args...)
}
