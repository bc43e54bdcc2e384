package daemon

import (
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"

	"github.com/gpusla/gpusla/probe/push"
	"github.com/gpusla/gpusla/probe/spool"
	"github.com/gpusla/gpusla/probe/wire"
)

// metrics exposes the latest check results and the delivery state.
// Per-GPU results carry gpu and uuid labels, so one GPU's result never
// overwrites another's; verdicts are a state set (pass, warn, fail, each
// 0 or 1; skipped checks are absent); measured values are in base units
// with the unit in the metric name (Prometheus conventions), and every
// label value is ASCII.
type metrics struct {
	reg     *prometheus.Registry
	verdict *prometheus.GaugeVec
	values  map[string]*prometheus.GaugeVec // by metric name
	lastRun *prometheus.GaugeVec
	dur     *prometheus.GaugeVec

	mu   sync.Mutex
	seen map[string]prometheus.Labels // series key -> labels of its verdict series
	uuid map[int]string               // GPU index -> UUID, learned from checks that carry one
}

// baseUnits maps a check's unit to its metric name suffix and the factor
// to its base unit; counts (GPUs, words, XIDs…) are dimensionless.
var baseUnits = map[string]struct {
	suffix string
	factor float64
}{
	"W": {"watts", 1}, "°C": {"celsius", 1}, "MiB": {"bytes", 1 << 20}, "GiB": {"bytes", 1 << 30}, "GB": {"bytes", 1e9},
	"bits": {"bits", 1}, "GB/s": {"bytes_per_second", 1e9}, "Mbit/s": {"bits_per_second", 1e6},
	"TFLOP/s": {"flop_per_second", 1e12}, "MHz": {"hertz", 1e6}, "ms": {"seconds", 1e-3}, "s": {"seconds", 1},
	"%": {"ratio", 0.01}, "ratio": {"ratio", 1},
}

// valueMetric is the metric name for a unit: gpuprobe_check_<base unit>,
// or gpuprobe_check_value for counts.
func valueMetric(unit string) (string, float64) {
	if u, ok := baseUnits[unit]; ok {
		return "gpuprobe_check_" + u.suffix, u.factor
	}
	return "gpuprobe_check_value", 1
}

// ascii keeps printable ASCII and replaces anything else, so label values
// never carry "°" or other non-ASCII text.
func ascii(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e {
			return '_'
		}
		return r
	}, s)
}

var seriesLabels = []string{"check", "gpu", "uuid"}

func newMetrics(sp *spool.Spool, snd *push.Sender) *metrics {
	m := newCheckMetrics()
	m.lastRun = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "gpuprobe_job_last_run_timestamp_seconds",
		Help: "When each job last started."}, []string{"job"})
	m.dur = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "gpuprobe_job_duration_seconds",
		Help: "How long each job's last run took."}, []string{"job"})
	m.reg.MustRegister(m.lastRun, m.dur,
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

// newCheckMetrics is the registry with the check families only.
func newCheckMetrics() *metrics {
	m := &metrics{reg: prometheus.NewRegistry(), seen: map[string]prometheus.Labels{}, uuid: map[int]string{},
		values: map[string]*prometheus.GaugeVec{}}
	m.verdict = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "gpuprobe_check_verdict",
		Help: "Latest verdict of each check as a state set: 1 for its verdict (pass, warn or fail), 0 for the others; skipped checks are absent. gpu and uuid are empty for machine-wide checks."},
		append(seriesLabels, "category", "verdict"))
	for _, u := range baseUnits {
		name := "gpuprobe_check_" + u.suffix
		if _, ok := m.values[name]; !ok {
			m.values[name] = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name,
				Help: "Latest measured value of each check, in " + strings.ReplaceAll(u.suffix, "_", " ") + "."}, seriesLabels)
		}
	}
	m.values["gpuprobe_check_value"] = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "gpuprobe_check_value",
		Help: "Latest measured count of each check that counts something (GPUs, words, XIDs, ...)."}, seriesLabels)
	for _, v := range m.values {
		m.reg.MustRegister(v)
	}
	m.reg.MustRegister(m.verdict)
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
		if c.GPU != nil && c.UUID != "" {
			m.uuid[*c.GPU] = c.UUID
		}
	}
	for _, c := range cs {
		gpu, uuid := "", ""
		if c.GPU != nil {
			gpu, uuid = strconv.Itoa(*c.GPU), m.uuid[*c.GPU]
			if c.UUID != "" {
				uuid = c.UUID
			}
		}
		series := prometheus.Labels{"check": ascii(c.Name), "gpu": gpu, "uuid": ascii(uuid)}
		key := series["check"] + "\x00" + gpu
		if old, ok := m.seen[key]; ok {
			for _, v := range []string{wire.Pass, wire.Warn, wire.Fail} {
				m.verdict.Delete(with(old, "verdict", v))
			}
			delete(m.seen, key)
		}
		// A value may move to another unit or uuid label; only the latest stays.
		for _, v := range m.values {
			v.DeletePartialMatch(prometheus.Labels{"check": series["check"], "gpu": gpu})
		}
		if c.Verdict == wire.Skipped {
			continue
		}
		vl := with(series, "category", ascii(c.Category))
		m.seen[key] = vl
		for _, v := range []string{wire.Pass, wire.Warn, wire.Fail} {
			set := 0.0
			if c.Verdict == v {
				set = 1
			}
			m.verdict.With(with(vl, "verdict", v)).Set(set)
		}
		if c.Number != nil {
			name, factor := valueMetric(c.Unit)
			m.values[name].With(series).Set(*c.Number * factor)
		}
	}
}

// with is l plus one more label.
func with(l prometheus.Labels, k, v string) prometheus.Labels {
	out := prometheus.Labels{k: v}
	for a, b := range l {
		out[a] = b
	}
	return out
}

// Families is what the daemon's /metrics serves once it has observed cs,
// with an empty spool and a sender that has sent nothing: every metric
// name and label a dashboard or an alert rule can query. The deployment's
// tests hold the shipped dashboards and rules to it.
func Families(cs []wire.Check) ([]*dto.MetricFamily, error) {
	dir, err := os.MkdirTemp("", "gpuprobe-families")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	sp, err := spool.Open(spool.Options{Dir: dir, Node: "families", MaxBytes: 2 * wire.MaxBodyBytes})
	if err != nil {
		return nil, err
	}
	defer sp.Close()
	m := newMetrics(sp, &push.Sender{})
	m.observe(cs)
	m.jobRan("heartbeat", time.Unix(0, 0), 0)
	return m.reg.Gather()
}
