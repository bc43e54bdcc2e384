// Package apptest holds test helpers for code that drives app.Service: a
// manual clock, a notifier that records what it was asked to send, and a
// simulated probe that builds hash-chained, signed batches exactly as the
// real one does (through probe/wire).
package apptest

import (
	"context"
	"crypto/rand"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/probe/wire"
	"github.com/gpusla/gpusla/sla/terms"
)

// Clock is a manual app.Clock.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock starts a clock at t.
func NewClock(t time.Time) *Clock { return &Clock{t: t.UTC()} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

// Set moves the clock to t.
func (c *Clock) Set(t time.Time) { c.mu.Lock(); c.t = t.UTC(); c.mu.Unlock() }

// Advance moves the clock by d.
func (c *Clock) Advance(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// Notifier records alerts and ticket messages. Fail makes the next sends fail.
type Notifier struct {
	mu      sync.Mutex
	Alerts  []notify.Alert
	Tickets []notify.TicketMessage
	Fail    error
	n       int
}

// Notify records a and returns a thread reference for first messages.
func (r *Notifier) Notify(_ context.Context, a notify.Alert) (string, error) {
	return r.record(a.Thread, func() { r.Alerts = append(r.Alerts, a) })
}

// record runs add under the lock unless sends fail, and returns the thread
// a message in thread gets: its own, or a new one for a first message.
func (r *Notifier) record(thread string, add func()) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.Fail != nil {
		return "", r.Fail
	}
	add()
	if thread != "" {
		return thread, nil
	}
	r.n++
	return fmt.Sprintf("thread-%d", r.n), nil
}

// NotifyTicket records m and returns a thread reference for first messages.
func (r *Notifier) NotifyTicket(_ context.Context, m notify.TicketMessage) (string, error) {
	return r.record(m.Thread, func() { r.Tickets = append(r.Tickets, m) })
}

// TicketsSent returns a copy of the recorded ticket messages.
func (r *Notifier) TicketsSent() []notify.TicketMessage {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]notify.TicketMessage(nil), r.Tickets...)
}

// TicketCount returns how many recorded ticket messages are of kind k.
func (r *Notifier) TicketCount(k notify.TicketKind) int {
	n := 0
	for _, m := range r.TicketsSent() {
		if m.Kind == k {
			n++
		}
	}
	return n
}

// Sent returns a copy of the recorded alerts.
func (r *Notifier) Sent() []notify.Alert {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]notify.Alert(nil), r.Alerts...)
}

// Count returns how many recorded alerts are of kind k.
func (r *Notifier) Count(k notify.AlertKind) int {
	n := 0
	for _, a := range r.Sent() {
		if a.Kind == k {
			n++
		}
	}
	return n
}

// Box returns a SecretBox with a random key.
func Box(t testing.TB) app.SecretBox {
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	b, err := app.NewAESGCMBox(key)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Probe is a simulated node: it numbers and chains batches like the real probe.
type Probe struct {
	Node   string
	Secret []byte
	Seq    uint64
	Prev   string
	Chain  string // the chain id sent with every batch ("" like an old probe)
	// SkewMS is the clock skew the batches report (probe minus backend).
	SkewMS int64
	lives  int // restarts so far: batch ids stay unique across them, as the probe's random ones are
	mu     sync.Mutex
}

// Batch builds the next batch of the chain with the given observations.
func (p *Probe) Batch(created time.Time, obs ...wire.Observation) (*wire.Batch, []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.Seq++
	b := &wire.Batch{V: wire.Version, ID: p.batchID(), Node: p.Node, Probe: "apptest", Seq: p.Seq,
		Prev: p.Prev, Chain: p.Chain, CreatedAt: created.UTC(), ClockSkewMS: p.SkewMS, Observations: obs}
	body, err := wire.Encode(b)
	if err != nil {
		panic(err)
	}
	p.Prev = wire.BodyHash(body)
	return b, body
}

// Restart is the probe losing its state: a new chain (id chain, "" for an
// old probe) from seq 1.
func (p *Probe) Restart(chain string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.Seq, p.Prev, p.Chain = 0, "", chain
	p.lives++
}

func (p *Probe) batchID() string {
	if p.lives == 0 {
		return fmt.Sprintf("%s-b%d", p.Node, p.Seq)
	}
	return fmt.Sprintf("%s-r%d-b%d", p.Node, p.lives, p.Seq)
}

// Request signs body at t as an ingest request.
func (p *Probe) Request(t time.Time, body []byte) app.IngestRequest {
	ts, sig := wire.Sign(p.Secret, t, body)
	return app.IngestRequest{Node: p.Node, Timestamp: ts, Signature: sig, Body: body}
}

// Heartbeats returns n heartbeat observations every step ending at end.
func Heartbeats(end time.Time, step time.Duration, n int) []wire.Observation {
	out := make([]wire.Observation, n)
	for i := range out {
		out[i] = wire.Observation{At: end.Add(-time.Duration(n-1-i) * step).UTC(), Kind: wire.KindHeartbeat}
	}
	return out
}

// Check returns a check observation at t.
func Check(t time.Time, checks ...wire.Check) wire.Observation {
	return wire.Observation{At: t.UTC(), Kind: wire.KindCheck, Checks: checks}
}

// AddNode registers a node with the default schedule and returns its probe.
func AddNode(t testing.TB, svc *app.Service, id string) *Probe {
	n, secret, err := svc.AddNode(context.Background(), app.NewNode{ID: id, Provider: "acme", Contract: "acme-std",
		OrderedAt: svc.Now().Add(-time.Hour), GPUModel: "NVIDIA H100 80GB HBM3", GPUCount: 8, PricePerHour: 20})
	if err != nil {
		t.Fatal(err)
	}
	return &Probe{Node: n.ID, Secret: secret}
}

// TermsYAML is the contract AddNode registers nodes under ("acme-std"): a
// plain one whose detection settings the application tests rely on —
// 90 s grace, 2 failures of a check to open, 2 passes to close, the
// default definitive checks.
const TermsYAML = `contract: acme-std
provider: acme
currency: USD
timezone: UTC
business_hours:
  monday: "09:00-17:00"
  tuesday: "09:00-17:00"
  wednesday: "09:00-17:00"
  thursday: "09:00-17:00"
  friday: "09:00-17:00"
uptime:
  target: 99.5
  unavailable: [unreachable, gpu_lost]
  minimum_outage: 1m
  tiers:
    - {min: 99.0, max: 99.5, credit: 10}
    - {min: 0, max: 99.0, credit: 30}
detection:
  heartbeat_grace: 90s
  failure_threshold: 2
  success_threshold: 2
support:
  response:
    P1: {business_hours: 15m, off_hours: 30m, clock: wall}
    P2: {business_hours: 1h, clock: wall}
claim:
  within_days: 30
billing:
  price_per_gpu_hour: 2.5
`

// Terms is a terms book holding TermsYAML.
func Terms(t testing.TB) app.TermsBook {
	ts, err := terms.Parse("apptest/acme-std.yaml", []byte(TermsYAML))
	if err != nil {
		t.Fatal(err)
	}
	return app.TermsBook{ts[0].Contract: ts[0]}
}
