package e2e

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/httpapi"
	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/infra/store/bolt"
)

// slackOutage is how long each bad phase of TestSlackOutage lasts (Slack
// answering 503, refusing connections, answering slowly). The issue's
// figure is five minutes: go test ./functions/e2e -run TestSlackOutage
// -e2e.slack-outage 5m. serve's alert_retry is scaled with it, so an alert
// is tried about four times per phase whatever its length.
var slackOutage = flag.Duration("e2e.slack-outage", 10*time.Second, "how long each Slack fault of TestSlackOutage lasts (the issue's figure: 5m)")

// slackDelay is how long the slow Slack takes to answer each request:
// longer than the probe's request timeout (2 s in these tests), so an ack
// that waited on Slack would not come at all, and shorter than an alert
// attempt may take (3/4 of alert_retry), so a slow answer is a delivery.
const slackDelay = 3 * time.Second

// Slack modes of slackFront.
const (
	slackUp      = "up"
	slackFailing = "failing" // 503 to every request
	slackRefused = "refused" // nothing listens: connection refused
	slackSlow    = "slow"    // every answer held for slackDelay
)

// span is a closed time interval [from, to].
type span struct{ from, to time.Time }

func (s span) within(o span) bool { return !s.from.Before(o.from) && !s.to.After(o.to) }

// slackFront is what serve calls Slack: a loopback listener in front of the
// slacktest server that can fail, refuse or be slow, on the same address.
type slackFront struct {
	t      *testing.T
	addr   string
	proxy  *httputil.ReverseProxy
	mu     sync.Mutex
	mode   string
	srv    *http.Server
	held   []span // each request answered in slow mode, from arrival to answer
	failed int    // requests answered 503
}

func newSlackFront(t *testing.T, sl *fakeSlack) *slackFront {
	target, err := url.Parse(sl.apiURL())
	if err != nil {
		t.Fatal(err)
	}
	f := &slackFront{t: t, addr: freeAddr(t, "127.0.0.1"), proxy: httputil.NewSingleHostReverseProxy(target)}
	f.set(slackUp)
	t.Cleanup(func() { f.set(slackRefused) })
	return f
}

// apiURL is the base URL serve's slack-go is pointed at.
func (f *slackFront) apiURL() string { return "http://" + f.addr + "/" }

func (f *slackFront) set(mode string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.mode = mode
	if mode == slackRefused {
		if f.srv != nil {
			f.srv.Close()
			f.srv = nil
		}
		return
	}
	if f.srv != nil {
		return
	}
	ln, err := net.Listen("tcp", f.addr) // the address it had: serve keeps its URL
	if err != nil {
		f.t.Fatalf("Slack back on %s: %v", f.addr, err)
	}
	f.srv = &http.Server{Handler: http.HandlerFunc(f.serve)}
	go f.srv.Serve(ln)
}

func (f *slackFront) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	mode := f.mode
	if mode == slackFailing {
		f.failed++
	}
	f.mu.Unlock()
	switch mode {
	case slackFailing:
		http.Error(w, "service unavailable", http.StatusServiceUnavailable)
		return
	case slackSlow:
		arrived := time.Now()
		time.Sleep(slackDelay) // a slow Slack: the stimulus, not a wait
		f.proxy.ServeHTTP(w, r)
		f.mu.Lock()
		f.held = append(f.held, span{arrived, time.Now()})
		f.mu.Unlock()
		return
	}
	f.proxy.ServeHTTP(w, r)
}

// push is one POST /v1/batches as the meter saw it.
type push struct {
	span
	status int
	phase  string
}

// ingestMeter stands between the probe and serve and times every push
// from its request to the end of serve's answer (the ack).
type ingestMeter struct {
	addr   string
	mu     sync.Mutex
	phase  string
	pushes []push
}

func newIngestMeter(t *testing.T, backend string) *ingestMeter {
	target, _ := url.Parse("http://" + backend)
	m := &ingestMeter{addr: freeAddr(t, "127.0.0.1")}
	proxy := httputil.NewSingleHostReverseProxy(target)
	srv := &http.Server{Addr: m.addr, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		from := time.Now()
		proxy.ServeHTTP(sw, r)
		p := push{span: span{from, time.Now()}, status: sw.status}
		m.mu.Lock()
		p.phase = m.phase
		if r.URL.Path == httpapi.PathBatches {
			m.pushes = append(m.pushes, p)
		}
		m.mu.Unlock()
	})}
	ln, err := net.Listen("tcp", m.addr)
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return m
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) { w.status = code; w.ResponseWriter.WriteHeader(code) }

func (m *ingestMeter) setPhase(p string) { m.mu.Lock(); m.phase = p; m.mu.Unlock() }

func (m *ingestMeter) of(phase string) []push {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []push
	for _, p := range m.pushes {
		if p.phase == phase {
			out = append(out, p)
		}
	}
	return out
}

// latencies returns the pushes' durations, sorted.
func latencies(ps []push) []time.Duration {
	ds := make([]time.Duration, len(ps))
	for i, p := range ps {
		ds[i] = p.to.Sub(p.from)
	}
	slices.Sort(ds)
	return ds
}

var reAlertText = regexp.MustCompile(`^\[(\w+)\] .*\(incident ([^)]+)\)$`)

// alertKindOfTag is the alert kind behind a plain text's tag: a check-based
// incident's opening alert is tagged with the incident's kind
// ("[gpu_degraded]"), every other alert with its own kind.
func alertKindOfTag(tag string) notify.AlertKind {
	switch k := notify.AlertKind(tag); k {
	case notify.AlertUnreachable, notify.AlertRecovered, notify.AlertReclassified, notify.AlertUpdate,
		notify.AlertDeliveryOverdue, notify.AlertDelivered, notify.AlertLimits:
		return k
	}
	return notify.AlertDegraded
}

// A real `gpusla serve` and a real `gpuprobe
// run` whose GPUs fail and recover every few seconds, and whose node goes
// away once; Slack is healthy, then answers 503, then refuses connections,
// then answers only after slackDelay, each for -e2e.slack-outage, then is
// healthy again. Proven:
//
//   - the probe's pushes never wait on Slack: every push of every phase is
//     acked 200 (none cut off by the probe's 2 s timeout, though a slow Slack
//     answer takes 3 s); while Slack is slow, acks complete inside Slack's
//     unanswered requests, and no push takes as long as one Slack answer.
//     Per-phase latencies are logged beside the healthy baseline.
//   - once Slack is back, every alert arrives exactly once (no text twice;
//     every incident's opening alert, and the recovery of each closed one;
//     nothing left pending in the store) and in the order raised (each
//     message's record claimed after the one before it).
func TestSlackOutage(t *testing.T) {
	outage := *slackOutage
	retry := max(10*time.Second, outage/4)
	sl := newFakeSlack(t)
	front := newSlackFront(t, sl)
	b := newBackend(t, storeEmbedded, sl, "127.0.0.1")
	b.env = append(b.env, "GPUSLA_SLACK_API_URL="+front.apiURL()) // the last value counts
	cfg := filepath.Join(t.TempDir(), "serve.yaml")
	if err := os.WriteFile(cfg, fmt.Appendf(nil, "alert_retry: %s\n", retry), 0o600); err != nil {
		t.Fatal(err)
	}
	b.args = []string{"--config", cfg}
	reg := b.addNode("out-1")
	b.start()
	meter := newIngestMeter(t, b.addr)
	reg.Config["backend"].(map[string]any)["url"] = "http://" + meter.addr + httpapi.PathBatches
	pr := newProbe(t, reg, snapHealthy, nil)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("serve log:\n%s\nprobe log:\n%s", tail(b.logs.String(), 8000), tail(pr.logs.String(), 3000))
		}
	})
	meter.setPhase("start")
	pr.start()
	eventually(t, 60*time.Second, "the node's first checks are stored", func() bool { return b.nodes()[reg.ID].LastSeq >= 3 })

	// The GPUs fail and recover every 4 s: GPU lost and GPU degraded alerts
	// and their recoveries, raised at ingest, all through.
	stopFlips := make(chan struct{})
	flipsDone := make(chan struct{})
	go func() {
		defer close(flipsDone)
		bad := false
		for {
			select {
			case <-stopFlips:
				pr.useSnapshot(snapHealthy)
				return
			case <-time.After(4 * time.Second):
			}
			bad = !bad
			pr.useSnapshot(map[bool]string{true: snapDegraded, false: snapHealthy}[bad])
		}
	}()

	phases := []struct{ name, mode string }{
		{"healthy", slackUp}, {"failing", slackFailing}, {"refused", slackRefused}, {"slow", slackSlow},
	}
	windows := map[string]span{}
	for _, ph := range phases {
		from := time.Now()
		meter.setPhase(ph.name)
		front.set(ph.mode)
		if ph.mode == slackRefused {
			// The node goes away for a while: an unreachable alert (the
			// watchdog's) and its recovery (ingest's), both while Slack is away.
			time.Sleep(outage / 4) // the phase's script: up a while, then away
			pr.stop()
			eventually(t, 30*time.Second, "the node is unreachable", func() bool {
				_, err := incidentOf(b.incidents(reg.ID), "unreachable")
				return err == nil
			})
			pr.start()
		}
		time.Sleep(time.Until(from.Add(outage))) // the phase's length: the stimulus
		windows[ph.name] = span{from, time.Now()}
	}
	meter.setPhase("after")
	front.set(slackUp)
	close(stopFlips)
	<-flipsDone

	// Every incident closes and every alert of it arrives.
	eventually(t, 4*retry+2*time.Minute, "every incident closed and its alerts in Slack", func() bool {
		incs := b.incidents(reg.ID)
		if len(incs) == 0 {
			return false
		}
		got := map[string]bool{}
		for _, m := range sl.all() {
			if g := reAlertText.FindStringSubmatch(m.Text); g != nil {
				got[g[1]+" "+g[2]] = true
			}
		}
		for _, inc := range incs {
			// An opening alert's text is tagged with its incident's kind
			// ("[gpu_degraded]", "[unreachable]").
			if inc.Open() || !got[inc.Kind+" "+inc.ID] || !got[string(notify.AlertRecovered)+" "+inc.ID] {
				return false
			}
		}
		return true
	})
	pr.stop()
	// A deliberate pause, not a wait: nothing may be sent twice, and two
	// retry periods give a duplicate time to show. A loaded machine can
	// only hide one (a weaker check), never fail a right backend.
	time.Sleep(2 * retry)
	b.stop()

	// ---- the acks never waited on Slack -----------------------------------
	base := latencies(meter.of("healthy"))
	for _, ph := range phases {
		ps := meter.of(ph.name)
		ds := latencies(ps)
		if len(ds) < 3 {
			t.Fatalf("phase %s: %d pushes, want several", ph.name, len(ds))
		}
		t.Logf("ingest latency, Slack %-8s %3d pushes: median %v, max %v (healthy: median %v, max %v)",
			ph.name, len(ds), ds[len(ds)/2], ds[len(ds)-1], base[len(base)/2], base[len(base)-1])
		for _, p := range ps {
			if p.status != http.StatusOK {
				t.Errorf("phase %s: a push at %s was answered %d, want 200 (acked)", ph.name, p.from.Format(time.TimeOnly), p.status)
			}
		}
		if ph.mode == slackSlow && ds[len(ds)-1] >= slackDelay {
			t.Errorf("a push took %v while Slack took %v to answer: the ack waited on Slack", ds[len(ds)-1], slackDelay)
		}
	}
	front.mu.Lock()
	held, failed := slices.Clone(front.held), front.failed
	front.mu.Unlock()
	if failed == 0 {
		t.Errorf("Slack answered no request 503 while failing: no alert was tried then")
	}
	inside := 0
	for _, p := range meter.of("slow") {
		for _, h := range held {
			if p.span.within(h) {
				inside++
				break
			}
		}
	}
	if len(held) == 0 || inside == 0 {
		t.Errorf("slow Slack: %d requests held, %d acks completed while one was unanswered; want both", len(held), inside)
	}
	t.Logf("slow Slack: %d requests held %v each; %d acks completed while one was unanswered", len(held), slackDelay, inside)

	// ---- every alert exactly once, in order ----------------------------------
	st, err := bolt.OpenExisting(filepath.Join(b.dir, "gpusla.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := t.Context()
	if p, err := st.ListPendingAlerts(ctx); err != nil || len(p) != 0 {
		t.Fatalf("alerts still pending after Slack came back: %+v %v", p, err)
	}
	msgs := sl.all()
	seen := map[string]bool{}
	var prev store.AlertRecord
	claimedIn := map[string]int{}
	for i, m := range msgs {
		if seen[m.Text] {
			t.Errorf("message %d sent twice: %s", i, m.Text)
		}
		seen[m.Text] = true
		g := reAlertText.FindStringSubmatch(m.Text)
		if g == nil || g[1] == string(notify.AlertReclassified) {
			continue
		}
		rec, err := st.GetAlert(ctx, reg.ID, g[2], alertKindOfTag(g[1]), "")
		if err != nil || rec.SentAt.IsZero() {
			t.Fatalf("message %d (%s): alert record %+v %v, want one marked sent", i, m.Text, rec, err)
		}
		if !prev.CreatedAt.IsZero() && !rec.CreatedAt.After(prev.CreatedAt) {
			t.Errorf("message %d (%s %s, raised %s) arrived after %s %s, raised later (%s)", i, rec.Kind, rec.IncidentID,
				rec.CreatedAt.Format(time.StampMicro), prev.Kind, prev.IncidentID, prev.CreatedAt.Format(time.StampMicro))
		}
		prev = rec
		for name, w := range windows {
			if !rec.CreatedAt.Before(w.from) && rec.CreatedAt.Before(w.to) {
				claimedIn[name]++
			}
		}
	}
	for _, ph := range phases {
		if claimedIn[ph.name] == 0 {
			t.Errorf("no alert was raised while Slack was %s", ph.name)
		}
	}
	t.Logf("%d Slack messages checked for order and duplicates; alerts raised per phase: %v", len(msgs), claimedIn)
}
