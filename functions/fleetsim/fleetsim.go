// Package fleetsim writes a simulated fleet's months into a store, record by
// record as the backend keeps them: each node's registration, its heartbeat
// runs (closed ones and the current one in its state), and the batch bodies
// ingest keeps (docs/backend.md): the node's first check results, an hourly
// usage reading, the daily stress job's figures, and the failing checks of
// an occasional XID with the passes that close it. It is what the monthly
// job's benchmarks and the tests that hold the store's path to the event
// log's are built on: a month generated into the store, not held in memory.
//
// Everything is deterministic given the Config: the same fleet twice is the
// same records, byte for byte.
package fleetsim

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/gpusla/gpusla/functions/batchform"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/probe/wire"
)

// Store is what the simulation writes.
type Store interface {
	CreateNode(ctx context.Context, n store.Node) error
	PutState(ctx context.Context, s store.NodeState, prev int64) (int64, error)
	PutRun(ctx context.Context, r store.HeartbeatRun) error
	PutBatch(ctx context.Context, b store.BatchRecord) error
	PutMaintenance(ctx context.Context, m store.Maintenance) error
}

// BulkStore is a store that takes many batch records in one write (the
// embedded store's PutBatches): Write uses it where it can, a node's
// records a chunk at a time, and is then bound by encoding, not commits.
type BulkStore interface {
	PutBatches(ctx context.Context, bs []store.BatchRecord) error
}

// bulkChunk is how many records one bulk write takes.
const bulkChunk = 512

// Config says which fleet and which months.
type Config struct {
	// Nodes is how many; their ids are Prefix + a five-digit index.
	Nodes  int
	Prefix string
	// Contract is every node's contract, Loc its time zone (its months).
	Contract string
	Loc      *time.Location
	// From is the first month and Months how many: each node is ordered ten
	// days before From and runs from three days before it to six hours
	// after the last month.
	From   time.Time
	Months int
	// Retention is the batches' TTL (app.DefaultRetention in the backend);
	// Now, when set, leaves out the batches already expired at it, as the
	// table would have.
	Retention time.Duration
	Now       time.Time
	// Workers writes that many nodes at once (default 4).
	Workers int
	// QuietEvery, when above 0, leaves every QuietEvery-th node (index 0,
	// QuietEvery, …) without its monthly outage: a fleet where most nodes
	// have a month with nothing to claim.
	QuietEvery int
	// FormlessEvery, when above 0, writes every FormlessEvery-th node's
	// batches without their decoded form, as records written before ingest
	// kept one: a store holding both.
	FormlessEvery int
}

// Schedule of every simulated node: the probe's defaults.
const (
	Heartbeat = 30 * time.Second
	Push      = 60 * time.Second
	Grace     = 90 * time.Second
	GPUs      = 8
	Model     = "H100-SXM5-80GB"
	// PricePerHour is the node's price (eight GPUs at 18.50).
	PricePerHour = 148.0
)

// Stats counts what was written.
type Stats struct {
	Nodes, Runs, Batches int
	BodyBytes            int64
}

// Span is the simulated stretch: from three days before the first month to
// six hours after the last one.
func (c Config) Span() (from, to time.Time) {
	start := time.Date(c.From.Year(), c.From.Month(), 1, 0, 0, 0, 0, c.Loc)
	return start.AddDate(0, 0, -3), start.AddDate(0, c.Months, 0).Add(6 * time.Hour)
}

// NodeID is the id of node i.
func (c Config) NodeID(i int) string { return fmt.Sprintf("%s%05d", c.Prefix, i) }

// Write writes the fleet: one maintenance notice for the contract in each
// month, then every node.
func Write(ctx context.Context, st Store, c Config) (Stats, error) {
	if c.Nodes < 1 || c.Months < 1 || c.Loc == nil || c.Contract == "" {
		return Stats{}, fmt.Errorf("fleetsim: config needs nodes, months, a contract and its zone: %+v", c)
	}
	start := time.Date(c.From.Year(), c.From.Month(), 1, 0, 0, 0, 0, c.Loc)
	for m := 0; m < c.Months; m++ {
		// Announced a week ahead: taken out of the books.
		ws := start.AddDate(0, m, 14).Add(2 * time.Hour)
		n := store.Maintenance{ID: store.MaintenanceID(c.Contract, "", ws), Contract: c.Contract, Start: ws.UTC(), End: ws.Add(time.Hour).UTC(),
			AnnouncedAt: ws.AddDate(0, 0, -7).UTC(), Summary: "network switch firmware", CreatedAt: ws.AddDate(0, 0, -7).UTC(), RecordedBy: "fleetsim"}
		// A second fleet of the contract (another prefix) finds it there.
		if err := st.PutMaintenance(ctx, n); err != nil && !errors.Is(err, store.ErrExists) {
			return Stats{}, fmt.Errorf("fleetsim: maintenance: %w", err)
		}
	}
	var (
		mu  sync.Mutex
		all Stats
		g   errgroup.Group
	)
	g.SetLimit(max(c.Workers, 1))
	if c.Workers == 0 {
		g.SetLimit(4)
	}
	for i := 0; i < c.Nodes; i++ {
		g.Go(func() error {
			s, err := writeNode(ctx, st, c, i)
			mu.Lock()
			all.Nodes++
			all.Runs += s.Runs
			all.Batches += s.Batches
			all.BodyBytes += s.BodyBytes
			mu.Unlock()
			return err
		})
	}
	return all, g.Wait()
}

// node is one node being written.
type node struct {
	c     Config
	i     int
	id    string
	st    Store
	stats Stats
	// down is the node's one outage a month (an hour), downs every one.
	downs []time.Time
	// held are records waiting for a bulk write (a BulkStore).
	held []store.BatchRecord
}

func writeNode(ctx context.Context, st Store, c Config, i int) (Stats, error) {
	from, to := c.Span()
	n := &node{c: c, i: i, id: c.NodeID(i), st: st}
	start := time.Date(c.From.Year(), c.From.Month(), 1, 0, 0, 0, 0, c.Loc)
	for m := 0; m < c.Months && (c.QuietEvery <= 0 || i%c.QuietEvery != 0); m++ {
		ms := start.AddDate(0, m, 0)
		n.downs = append(n.downs, ms.Add(time.Duration(24*(i%28)+i%24)*time.Hour))
	}
	rec := store.Node{ID: n.id, Provider: "Example Compute", Contract: c.Contract, OrderedAt: from.AddDate(0, 0, -7).UTC(),
		GPUModel: Model, GPUCount: GPUs, GPUMemoryMiB: 81559, PricePerHour: PricePerHour, Currency: "CNY",
		HeartbeatInterval: Heartbeat, PushInterval: Push, Grace: Grace, CreatedAt: from.AddDate(0, 0, -7).UTC()}
	if err := st.CreateNode(ctx, rec); err != nil {
		return n.stats, fmt.Errorf("fleetsim: node %s: %w", n.id, err)
	}
	if err := n.runs(ctx, from, to); err != nil {
		return n.stats, err
	}
	if err := n.batches(ctx, from, to); err != nil {
		return n.stats, err
	}
	return n.stats, n.flush(ctx)
}

// flush writes the records held for a bulk write.
func (n *node) flush(ctx context.Context) error {
	if len(n.held) == 0 {
		return nil
	}
	if err := n.st.(BulkStore).PutBatches(ctx, n.held); err != nil {
		return fmt.Errorf("fleetsim: batches of %s: %w", n.id, err)
	}
	for _, r := range n.held {
		n.stats.Batches++
		n.stats.BodyBytes += int64(len(r.Body))
	}
	n.held = n.held[:0]
	return nil
}

// seq is the sequence number of the push at t: one a minute from the span's
// start.
func (n *node) seq(t time.Time) uint64 {
	from, _ := n.c.Span()
	return uint64(t.Sub(from)/Push) + 1
}

// up says whether the node runs at t (outside its outages).
func (n *node) up(t time.Time) bool {
	for _, d := range n.downs {
		if !t.Before(d) && t.Before(d.Add(time.Hour)) {
			return false
		}
	}
	return true
}

// runs writes the heartbeat runs between the outages, the last one as the
// state's current run.
func (n *node) runs(ctx context.Context, from, to time.Time) error {
	var runs []store.HeartbeatRun
	s := from
	for _, d := range n.downs {
		runs = append(runs, n.run(s, d.Add(-Heartbeat)))
		s = d.Add(time.Hour)
	}
	runs = append(runs, n.run(s, to))
	for _, r := range runs[:len(runs)-1] {
		if err := n.st.PutRun(ctx, r); err != nil {
			return fmt.Errorf("fleetsim: run of %s: %w", n.id, err)
		}
		n.stats.Runs++
	}
	last := runs[len(runs)-1]
	st := store.NodeState{Node: n.id, LastSeq: last.LastSeq, LastHash: fakeHash(last.LastSeq), LastBatchID: batchID(n.id, last.LastSeq),
		LastReceivedAt: last.ReceivedTo, LastHeartbeatAt: last.To, FirstHeartbeatAt: from.UTC(), AcceptedAt: from.UTC(), AcceptanceKnown: true, AcceptanceHeld: true,
		Run: last, UpdatedAt: last.ReceivedTo}
	if _, err := n.st.PutState(ctx, st, 0); err != nil {
		return fmt.Errorf("fleetsim: state of %s: %w", n.id, err)
	}
	n.stats.Runs++
	return nil
}

// run is the heartbeats from a to b, every one pushed within a minute.
func (n *node) run(a, b time.Time) store.HeartbeatRun {
	return store.HeartbeatRun{Node: n.id, From: a.UTC(), To: b.UTC(), Count: int64(b.Sub(a)/Heartbeat) + 1,
		ReceivedFrom: a.Add(Push + time.Second).UTC(), ReceivedTo: b.Add(time.Second).UTC(), MaxGap: Heartbeat, MaxDelay: Push + time.Second,
		FirstSeq: n.seq(a), LastSeq: n.seq(b)}
}

// batches writes the bodies ingest keeps, in time order.
func (n *node) batches(ctx context.Context, from, to time.Time) error {
	if err := n.put(ctx, from.Add(Push), n.firstChecks(from)); err != nil {
		return err
	}
	day := 0
	for h := from.Truncate(time.Hour).Add(time.Hour); h.Before(to); h = h.Add(time.Hour) {
		if !n.up(h) {
			continue
		}
		if err := n.put(ctx, h, []wire.Observation{n.usage(h, day)}); err != nil {
			return err
		}
		if l := h.In(n.c.Loc); l.Hour() == 3 {
			day++
			at := h.Add(5 * time.Minute)
			if err := n.put(ctx, at, []wire.Observation{n.stress(at, day)}); err != nil {
				return err
			}
		}
		// One node in ten has an XID on one GPU once a month: the failing
		// check and the two passes that close its incident are kept.
		if n.i%10 == 3 && h.In(n.c.Loc).Day() == 1+n.i%27 && h.In(n.c.Loc).Hour() == 15 {
			for k, v := range []string{wire.Fail, wire.Pass, wire.Pass} {
				at := h.Add(time.Duration(20+15*k) * time.Minute)
				if err := n.put(ctx, at, []wire.Observation{n.xid(at, v)}); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// put stores the push at t (its two heartbeats and the observations) as
// ingest would: received a second after it was made, kept for the
// retention unless already expired at Now.
func (n *node) put(ctx context.Context, t time.Time, obs []wire.Observation) error {
	seq := n.seq(t)
	b := wire.Batch{V: wire.Version, ID: batchID(n.id, seq), Node: n.id, Probe: "fleetsim", Seq: seq, CreatedAt: t.UTC(),
		Observations: append([]wire.Observation{{At: t.Add(-Heartbeat).UTC(), Kind: wire.KindHeartbeat}, {At: t.UTC(), Kind: wire.KindHeartbeat}}, obs...)}
	if seq > 1 {
		b.Prev = fakeHash(seq - 1)
	}
	body, err := wire.Encode(&b)
	if err != nil {
		return fmt.Errorf("fleetsim: batch %s/%d: %w", n.id, seq, err)
	}
	recv := t.Add(time.Second).UTC()
	rec := store.BatchRecord{Node: n.id, Seq: seq, ID: b.ID, Hash: wire.BodyHash(body), ReceivedAt: recv, Why: []string{"measurements"}, Body: body}
	if n.c.FormlessEvery <= 0 || n.i%n.c.FormlessEvery != 0 {
		rec.Form = batchform.Append(nil, &b)
	}
	if n.c.Retention > 0 {
		rec.ExpiresAt = recv.Add(n.c.Retention)
		if !n.c.Now.IsZero() && !n.c.Now.Before(rec.ExpiresAt) {
			return nil
		}
	}
	if _, bulk := n.st.(BulkStore); bulk {
		n.held = append(n.held, rec)
		if len(n.held) < bulkChunk {
			return nil
		}
		return n.flush(ctx)
	}
	if err := n.st.PutBatch(ctx, rec); err != nil {
		return fmt.Errorf("fleetsim: batch %s/%d: %w", n.id, seq, err)
	}
	n.stats.Batches++
	n.stats.BodyBytes += int64(len(body))
	return nil
}

func batchID(node string, seq uint64) string { return fmt.Sprintf("%s-b%d", node, seq) }

// fakeHash stands for the chain's link to batch seq (the report does not
// walk the chain; the evidence bundle's verifier does, and is tested on
// real chains).
func fakeHash(seq uint64) string {
	s := sha256.Sum256(fmt.Appendf(nil, "batch %d", seq))
	return hex.EncodeToString(s[:])
}

func num(v float64) *float64 { return &v }

func gpu(g int) *int { return &g }

// firstChecks is the node's acceptance: every GPU present, the count right.
func (n *node) firstChecks(at time.Time) []wire.Observation {
	cs := []wire.Check{{Name: "gpu.count", Category: wire.CategoryInventory, Verdict: wire.Pass, Value: "8 of 8", Criterion: "8 GPUs as ordered", Number: num(8)}}
	for g := 0; g < GPUs; g++ {
		cs = append(cs, wire.Check{Name: "gpu.model", Category: wire.CategoryInventory, Verdict: wire.Pass, Value: Model, GPU: gpu(g),
			UUID: fmt.Sprintf("GPU-%08x-0000-0000-0000-%012d", n.i, g)})
	}
	return []wire.Observation{{At: at.UTC(), Kind: wire.KindCheck, Checks: cs}}
}

// usage is the hourly reading: boot, two disks, two interfaces whose
// counters grow by a steady rate.
func (n *node) usage(at time.Time, day int) wire.Observation {
	from, _ := n.c.Span()
	secs := uint64(at.Sub(from) / time.Second)
	boot := from.Add(-time.Hour).Unix()
	return wire.Observation{At: at.UTC(), Kind: wire.KindCheck, Checks: []wire.Check{
		{Name: "usage.boot", Category: wire.CategoryHost, Verdict: wire.Pass, Number: num(float64(at.Unix() - boot)),
			Detail: fmt.Sprintf("boot_id=%08x-7d1e-4c55-9a0b-%012d&boot_time=%d", n.i, 1, boot)},
		{Name: "usage.disk.nvme0n1", Category: wire.CategoryHost, Verdict: wire.Pass, Detail: "size_bytes=1920383410176&system=1&vendor=Samsung&model=PM9A3"},
		{Name: "usage.disk.nvme1n1", Category: wire.CategoryHost, Verdict: wire.Pass, Detail: "size_bytes=7681501126656&vendor=Samsung&model=PM9A3"},
		{Name: "usage.net.eth0", Category: wire.CategoryHost, Verdict: wire.Pass,
			Detail: fmt.Sprintf("physical=1&default_route=1&rx_bytes=%d&tx_bytes=%d&speed_mbps=25000&ifindex=2", secs*1_250_000, secs*310_000+uint64(day))},
		{Name: "usage.net.ib0", Category: wire.CategoryHost, Verdict: wire.Pass,
			Detail: fmt.Sprintf("physical=1&rx_bytes=%d&tx_bytes=%d&speed_mbps=400000&ifindex=4", secs*9_000_000, secs*9_100_000)},
	}}
}

// stressFigures are the stress job's figures per GPU with their nominal
// values (an H100 SXM's, docs/probe-stress.md) and units.
var stressFigures = []struct {
	name, unit string
	nominal    float64
}{
	{"gpu.burn.fp32", "TFLOP/s", 51}, {"gpu.burn.tf32", "TFLOP/s", 378}, {"gpu.burn.fp16", "TFLOP/s", 740},
	{"gpu.burn.bf16", "TFLOP/s", 740}, {"gpu.burn.fp8", "TFLOP/s", 1480},
	{"gpu.bw.h2d", "GB/s", 53}, {"gpu.bw.d2h", "GB/s", 52}, {"gpu.bw.d2d", "GB/s", 2900}, {"gpu.power", "W", 690},
}

// stress is the daily stress job: every figure on every GPU, a little
// noise, and on one node in fifty GPU 3 some 12 % slow from the tenth day
// (what the fleet baselines find).
func (n *node) stress(at time.Time, day int) wire.Observation {
	var cs []wire.Check
	for g := 0; g < GPUs; g++ {
		for k, f := range stressFigures {
			// Deterministic noise of ±1.5 % from the node, GPU, figure and day.
			h := sha256.Sum256(fmt.Appendf(nil, "%d/%d/%d/%d", n.i, g, k, day))
			v := f.nominal * (1 + (float64(h[0])/255-0.5)*0.03)
			if n.i%50 == 7 && g == 3 && day >= 10 {
				v *= 0.88
			}
			v = math.Round(v*100) / 100
			cs = append(cs, wire.Check{Name: f.name, Category: wire.CategoryPerformance, Verdict: wire.Pass, Value: fmt.Sprintf("%.2f %s", v, f.unit),
				Criterion: fmt.Sprintf("≥ %.0f %s", f.nominal*0.8, f.unit), Number: num(v), Unit: f.unit, GPU: gpu(g)})
		}
	}
	return wire.Observation{At: at.UTC(), Kind: wire.KindCheck, Checks: cs}
}

// xid is the XID check on GPU 2, failing or passing.
func (n *node) xid(at time.Time, verdict string) wire.Observation {
	c := wire.Check{Name: "gpu.xid.79", Category: wire.CategoryGPUDegraded, Verdict: verdict, GPU: gpu(2), Value: "none", Criterion: "no hardware XID"}
	if verdict == wire.Fail {
		c.Value, c.Detail = "XID 79", "GPU has fallen off the bus"
	}
	return wire.Observation{At: at.UTC(), Kind: wire.KindCheck, Checks: []wire.Check{c}}
}
