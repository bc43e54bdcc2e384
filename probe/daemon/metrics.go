package daemon

import (
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/gpusla/gpusla/probe/push"
	"github.com/gpusla/gpusla/probe/spool"
	"github.com/gpusla/gpusla/probe/wire"
)

// metrics exposes the latest check results and the delivery state.
type metrics struct {
	reg     *prometheus.Registry
	pass    *prometheus.GaugeVec
	value   *prometheus.GaugeVec
	lastRun *prometheus.GaugeVec
	dur     *prometheus.GaugeVec

	mu   sync.Mutex
	seen map[string]string // check name -> category, to forget skipped ones
}

func newMetrics(sp *spool.Spool, snd *push.Sender) *metrics {
	m := &metrics{reg: prometheus.NewRegistry(), seen: map[string]string{}}
	m.pass = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "gpuprobe_check_pass",
		Help: "Latest verdict of each check: 1 pass, 0 warn or fail (skipped checks are absent)."}, []string{"check", "category"})
	m.value = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "gpuprobe_check_value",
		Help: "Latest measured value of each check that has a number."}, []string{"check", "unit"})
	m.lastRun = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "gpuprobe_job_last_run_timestamp_seconds",
		Help: "When each job last started."}, []string{"job"})
	m.dur = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "gpuprobe_job_duration_seconds",
		Help: "How long each job's last run took."}, []string{"job"})
	m.reg.MustRegister(m.pass, m.value, m.lastRun, m.dur,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "gpuprobe_spool_batches", Help: "Batches waiting in the spool."},
			func() float64 { n, _ := sp.Stats(); return float64(n) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "gpuprobe_spool_bytes", Help: "Bytes waiting in the spool."},
			func() float64 { _, b := sp.Stats(); return float64(b) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "gpuprobe_spool_staged_observations",
			Help: "Observations staged on disk, waiting for the next push (schedules.push)."},
			func() float64 { return float64(sp.Staged()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "gpuprobe_delivery_acked_total", Help: "Batches the backend acknowledged."},
			func() float64 { return float64(snd.Stats().Acked) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "gpuprobe_delivery_failures_total", Help: "Failed delivery attempts."},
			func() float64 { return float64(snd.Stats().Failures) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "gpuprobe_delivery_last_ack_timestamp_seconds", Help: "When the backend last acknowledged a batch."},
			func() float64 { return unix(snd.Stats().LastAck) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "gpuprobe_clock_skew_seconds", Help: "Probe clock minus backend clock, last measured."},
			func() float64 { return snd.Stats().ClockSkew.Seconds() }),
	)
	return m
}

func unix(t time.Time) float64 {
	if t.IsZero() {
		return 0
	}
	return float64(t.UnixNano()) / 1e9
}

func (m *metrics) handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{}))
	return mux
}

func (m *metrics) jobRan(job string, start time.Time, d time.Duration) {
	m.lastRun.WithLabelValues(job).Set(unix(start))
	m.dur.WithLabelValues(job).Set(d.Seconds())
}

func (m *metrics) observe(cs []wire.Check) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, c := range cs {
		if old, ok := m.seen[c.Name]; ok && old != c.Category {
			m.pass.DeleteLabelValues(c.Name, old)
		}
		if c.Verdict == wire.Skipped {
			m.pass.DeleteLabelValues(c.Name, c.Category)
			delete(m.seen, c.Name)
			continue
		}
		m.seen[c.Name] = c.Category
		ok := 0.0
		if c.Verdict == wire.Pass {
			ok = 1
		}
		m.pass.WithLabelValues(c.Name, c.Category).Set(ok)
		if c.Number != nil {
			m.value.WithLabelValues(c.Name, c.Unit).Set(*c.Number)
		}
	}
}
