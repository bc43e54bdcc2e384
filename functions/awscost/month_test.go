package awscost_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/app/apptest"
	"github.com/gpusla/gpusla/functions/awscost"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/infra/store/dynamo/dynamotest"
	"github.com/gpusla/gpusla/probe/gpu"
	"github.com/gpusla/gpusla/probe/health"
	"github.com/gpusla/gpusla/probe/wire"
)

func TestMain(m *testing.M) {
	code := m.Run()
	dynamotest.Stop()
	os.Exit(code)
}

// The probe's default schedule (probe/config): a heartbeat every 30 s, a
// push every 60 s, GPU health every 5 min, network checks every 15 min.
const (
	pushEvery    = time.Minute
	healthEvery  = 5
	networkEvery = 15
	retention    = app.DefaultRetention
)

// Assumptions that are not measured here (docs/cost.md says why).
const (
	ingestBilledMS   = 20  // three DynamoDB round trips in-region plus HMAC and JSON
	watchdogBilledMS = 40  // a handful of requests per tick
	memoryMB         = 128 // template.yaml
	// The sealer's billed time a node-day: its four or five round trips
	// (digest, receipts, batches, the put) as if one after another, though
	// it runs 32 nodes at once (lambdafn.SealerWorkers).
	sealerBilledMS = 30
	sealerMemoryMB = 512  // template.yaml, SealerFunction
	responseBytes  = 400  // ack JSON plus HTTP headers
	itemOverhead   = 100  // DynamoDB adds 100 bytes of storage per item
	fleet          = 100  // nodes sharing one watchdog, for the per-node figure
	budget         = 0.05 // $ per node-month for a node in a fleet: the goal (docs/cost.md)
)

// h100 builds the snapshot of a healthy 8-GPU H100 node, so the health
// checks in the simulated batches are the ones the real probe would send.
func h100() *gpu.Snapshot {
	u32 := func(v uint32) *uint32 { return &v }
	u64 := func(v uint64) *uint64 { return &v }
	f := func(v float64) *float64 { return &v }
	b := func(v bool) *bool { return &v }
	i := func(v int) *int { return &v }
	s := &gpu.Snapshot{DriverVersion: "570.124.06", CUDAVersion: "12.8", XIDWatch: gpu.XIDWatchOK}
	for n := 0; n < 8; n++ {
		s.Devices = append(s.Devices, gpu.Device{
			Index: n, Name: "NVIDIA H100 80GB HBM3", UUID: fmt.Sprintf("GPU-6a1c0f3e-2b4d-4c1e-9f00-00000000000%d", n),
			Serial: fmt.Sprintf("165322000000%d", n), Architecture: "Hopper",
			PCI:            gpu.PCI{BusID: fmt.Sprintf("00000000:%02X:00.0", 0x18+n*0x10), DeviceID: 0x233010de},
			MemoryTotalMiB: u64(81559), MemoryUsedMiB: u64(512), SMClockMHz: u32(1980), MemClockMHz: u32(2619),
			MaxSMClockMHz: u32(1980), MaxMemClockMHz: u32(2619),
			PowerUsageW: f(118), PowerDefaultLimitW: f(700), PowerEnforcedLimitW: f(700), PowerLimitMinW: f(200), PowerLimitMaxW: f(700),
			TemperatureC: u32(34), SlowdownThresholdC: u32(90), ShutdownThresholdC: u32(92), ClockEventReasons: u64(1),
			UtilizationGPU: u32(0), UtilizationMemory: u32(0), PersistenceMode: b(true), MIGMode: i(0),
			PCIeReplayCounter: u64(0), PCIeMaxGen: i(5), PCIeGPUMaxGen: i(5), PCIeMaxWidth: i(16), PCIeCurrentGen: i(5), PCIeCurrentWidth: i(16),
			ECCEnabled: b(true), ECCVolatileCorr: u64(0), ECCVolatileUncorr: u64(0), ECCAggregateCorr: u64(0), ECCAggregateUncorr: u64(0),
			RemappedRows:    &gpu.Remap{},
			RetiredPagesSBE: i(0), RetiredPagesDBE: i(0), RetiredPagesPending: b(false),
			NVLinks:           []bool{true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true},
			ProcessesReadable: true,
		})
	}
	return s
}

func num(v float64) *float64 { return &v }

// networkChecks are the probe's network checks at their defaults, passing.
func networkChecks() []wire.Check {
	return []wire.Check{
		{Name: "net.gateway.ping", Category: wire.CategoryConnectivity, Verdict: wire.Pass, Value: "0.21 ms, 0 % loss", Number: num(0.21), Unit: "ms", Criterion: "loss < 1 %"},
		{Name: "net.internet.ping", Category: wire.CategoryConnectivity, Verdict: wire.Pass, Value: "1.9 ms, 0 % loss", Number: num(1.9), Unit: "ms", Criterion: "loss < 1 %"},
		{Name: "net.dns", Category: wire.CategoryConnectivity, Verdict: wire.Pass, Value: "3 ms", Number: num(3), Unit: "ms", Criterion: "resolves in < 1 s"},
		{Name: "net.https.backend", Category: wire.CategoryConnectivity, Verdict: wire.Pass, Value: "200 in 41 ms", Number: num(41), Unit: "ms", Criterion: "2xx in < 5 s"},
		{Name: "net.latency.peer", Category: wire.CategoryNetwork, Verdict: wire.Pass, Value: "0.35 ms", Number: num(0.35), Unit: "ms", Criterion: "< 1 ms"},
		{Name: "net.tcp.peer", Category: wire.CategoryNetwork, Verdict: wire.Pass, Value: "0.4 ms", Number: num(0.4), Unit: "ms", Criterion: "connects in < 100 ms"},
	}
}

// TestSimulatedMonth runs the real application (app.Service: ingest and
// watchdog) on the DynamoDB store against dynalite for GPUSLA_COST_DAYS
// simulated days (default 1; docs/cost.md was made with 30), counts every
// store operation, and prices a node-month. It also holds the design to
// its promise: a heartbeat-only push is one conditional write of one WRU.
func TestSimulatedMonth(t *testing.T) {
	days := 1
	if v := os.Getenv("GPUSLA_COST_DAYS"); v != "" {
		d, err := strconv.Atoi(v)
		if err != nil || d < 1 || d > 31 {
			t.Fatalf("GPUSLA_COST_DAYS=%q: want 1 to 31", v)
		}
		days = d
	}
	if testing.Short() && days > 1 {
		t.Skip("short mode")
	}
	ctx := context.Background()
	db := dynamotest.NewStore(t)
	start := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	clock := apptest.NewClock(start)
	db.SetClock(clock.Now)
	notifier := &apptest.Notifier{}
	svc, err := app.New(app.Config{Store: db, Notifier: notifier, Box: apptest.Box(t), Clock: clock, BackendID: "lambda"})
	if err != nil {
		t.Fatal(err)
	}
	p := apptest.AddNode(t, svc, "node-1")
	healthChecks := health.Judge(health.Input{GPU: h100()})

	var ingestOps, watchdogOps store.OpCounts = store.OpCounts{}, store.OpCounts{}
	add := func(acc, d store.OpCounts) {
		for k, v := range d {
			acc[k] += v
		}
	}
	var pushes, hbOnly, ticks int
	var hbMaxWrites int64
	var hbMaxWRU, maxBody, healthBody int
	minutes := days * 24 * 60
	for m := 0; m < minutes; m++ {
		now := start.Add(time.Duration(m)*pushEvery + 2*time.Second)
		clock.Set(now)
		obs := apptest.Heartbeats(now, 30*time.Second, 2)
		withChecks := false
		if m%healthEvery == 0 {
			obs = append(obs, apptest.Check(now.Add(-time.Second), healthChecks...))
			withChecks = true
		}
		if m%networkEvery == 0 {
			obs = append(obs, apptest.Check(now.Add(-time.Second), networkChecks()...))
			withChecks = true
		}
		_, body := p.Batch(now, obs...)
		maxBody = max(maxBody, len(body))
		if m%healthEvery == 0 && m%networkEvery != 0 {
			healthBody = len(body)
		}
		before := db.Ops()
		ack, err := svc.Ingest(ctx, p.Request(now, body))
		if err != nil || ack.Status != wire.AckStored {
			t.Fatalf("minute %d: ingest: %+v %v", m, ack, err)
		}
		d := awscost.Sub(db.Ops(), before)
		add(ingestOps, d)
		pushes++
		if !withChecks && m > 1 {
			hbOnly++
			w, _ := awscost.Units(d)
			hbMaxWrites = max(hbMaxWrites, d.Total("/"+store.OpWrite))
			hbMaxWRU = max(hbMaxWRU, int(w))
		}

		clock.Set(start.Add(time.Duration(m)*pushEvery + 30*time.Second))
		before = db.Ops()
		if _, err := svc.Watchdog(ctx); err != nil {
			t.Fatalf("minute %d: watchdog: %v", m, err)
		}
		add(watchdogOps, awscost.Sub(db.Ops(), before))
		ticks++
	}
	if n := len(notifier.Sent()); n != 0 {
		t.Fatalf("a healthy node produced %d alerts: %+v", n, notifier.Sent())
	}

	// The daily sealer seals each day once it can no longer change
	// (app/sealer.go, the SealerFunction's run at 01:10 UTC), reading the
	// day through its receipts: its reads and writes, and the digests kept
	// as long as their batches, are the node's.
	sealer := app.Books{Store: db, Workers: 1}.WithDigests(db, nil)
	sealOps := store.OpCounts{}
	for d := range days {
		day := start.AddDate(0, 0, d)
		clock.Set(day.Add(24*time.Hour + app.DigestSealDelay + 10*time.Minute))
		before := db.Ops()
		s, err := sealer.SealDay(ctx, day, clock.Now())
		if err != nil {
			t.Fatal(err)
		}
		if s.Sealed != 1 {
			t.Fatalf("the sealer on %s: %+v, want the node's day sealed", day.Format(time.DateOnly), s)
		}
		add(sealOps, awscost.Sub(db.Ops(), before))
	}
	// The promise the design makes for a heartbeat-only push.
	if hbMaxWrites != 1 || hbMaxWRU > 1 {
		t.Errorf("a heartbeat-only push cost up to %d writes of up to %d WRU; the cost model needs 1 write of 1 WRU (shrink NodeState)", hbMaxWrites, hbMaxWRU)
	}
	st, err := db.GetState(ctx, "node-1")
	if err != nil {
		t.Fatal(err)
	}
	stateJSON, _ := json.Marshal(st)

	scale := float64(awscost.Month) / float64(time.Duration(minutes)*time.Minute)
	ingestWRU, ingestRRU := awscost.Units(ingestOps)
	fixed := []string{"ListBackendRuns", "PutBackendRun", "ListPendingAlerts", "ListNodes"}
	wdFixedWRU, wdFixedRRU := awscost.Units(watchdogOps, fixed...)
	wdAllWRU, wdAllRRU := awscost.Units(watchdogOps)
	wdNodeWRU, wdNodeRRU := wdAllWRU-wdFixedWRU, wdAllRRU-wdFixedRRU

	batchBytes := float64(ingestOps["PutBatch/write/bytes"])
	batchItems := float64(ingestOps["PutBatch/write"])
	storedGB := func(bytesPerSim, itemsPerSim float64, keep time.Duration) float64 {
		months := float64(keep) / float64(awscost.Month)
		return (bytesPerSim + itemOverhead*itemsPerSim) * scale * months / (1 << 30)
	}
	digestWRU, _ := awscost.Units(sealOps, "PutDigest")
	sealWRU, sealRRU := awscost.Units(sealOps)
	sealFixedWRU, sealFixedRRU := awscost.Units(sealOps, "ListNodes")
	digestBytes, digestItems := float64(sealOps["PutDigest/write/bytes"]), float64(sealOps["PutDigest/write"])
	usage := func(share float64, withBatches bool, keep time.Duration) awscost.Usage {
		wru := ingestWRU + wdNodeWRU + wdFixedWRU*share + (sealWRU - sealFixedWRU) + sealFixedWRU*share
		rru := ingestRRU + wdNodeRRU + wdFixedRRU*share + (sealRRU - sealFixedRRU) + sealFixedRRU*share
		gb := storedGB(batchBytes, batchItems, keep) + storedGB(digestBytes, digestItems, keep)
		if !withBatches {
			bw, _ := awscost.Units(ingestOps, "PutBatch")
			wru -= bw
			gb = 0
		}
		return awscost.Usage{
			IngestInvocations:   float64(pushes) * scale,
			WatchdogInvocations: float64(ticks) * scale * share,
			SchedulerInvokes:    float64(ticks) * scale * share,
			IngestBilledMS:      ingestBilledMS, WatchdogBilledMS: watchdogBilledMS, MemoryMB: memoryMB,
			WRU: wru * scale, RRU: rru * scale,
			StoredGB:   gb,
			ResponseGB: float64(pushes) * scale * responseBytes / (1 << 30),
			// One run a day for the fleet; its duration is the node-days it
			// seals, each assumed at sealerBilledMS.
			SealerInvocations: float64(days) * scale * share,
			SealerGBs:         float64(days) * scale * sealerBilledMS / 1000 * sealerMemoryMB / 1024,
		}
	}

	var out bytes.Buffer
	fmt.Fprintf(&out, "Simulated %d day(s): %d pushes (%d heartbeat-only), %d watchdog ticks, scaled ×%.2f to a 30-day month.\n", days, pushes, hbOnly, ticks, scale)
	fmt.Fprintf(&out, "Heartbeat-only push: at most %d write(s), %d WRU. Node state: %d bytes as JSON, %.0f bytes stored on average. Largest batch body %d bytes, a health batch %d bytes (stored deflated: %.0f bytes on average).\n\n",
		hbMaxWrites, hbMaxWRU, len(stateJSON), float64(ingestOps["PutState/write/bytes"])/max(float64(ingestOps["PutState/write"]), 1),
		maxBody, healthBody, batchBytes/max(batchItems, 1))
	fmt.Fprintf(&out, "Day digests (sealed by the daily sealer): %d written, %.0f bytes and %.0f WRU each; the sealer's reads and writes a node-day %.1f RRU, %.1f WRU (receipts: %.0f WRU a node-month).\n\n",
		int(digestItems), digestBytes/max(digestItems, 1), digestWRU/max(digestItems, 1), sealRRU/float64(days), sealWRU/float64(days), scale*func() float64 { w, _ := awscost.Units(ingestOps, "PutReceipt", "PutReceiptsSince"); return w }())
	scenarios := []struct {
		name        string
		share       float64
		withBatches bool
		keep        time.Duration
	}{
		{fmt.Sprintf("One node per stack (it carries the whole watchdog); evidence batches kept %d days", int(retention.Hours()/24)), 1, true, retention},
		{fmt.Sprintf("Per node in a fleet of %d (watchdog's fixed requests shared); evidence batches kept %d days", fleet, int(retention.Hours()/24)), 1.0 / fleet, true, retention},
	}
	var fleetTotal float64
	for i, sc := range scenarios {
		bill := awscost.USEast1.Bill(usage(sc.share, sc.withBatches, sc.keep))
		fmt.Fprintf(&out, "### %s\n\n", sc.name)
		if err := awscost.Write(&out, bill); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintln(&out)
		t.Logf("%s: $%.4f per node-month", sc.name, awscost.Total(bill))
		if i == 1 {
			fleetTotal = awscost.Total(bill)
		}
	}
	// The cost goal, so that a regression fails: storing every
	// all-pass check batch for 400 days cost $0.106 a node-month.
	if fleetTotal > budget {
		t.Errorf("a node in a fleet of %d costs $%.4f a month, over the $%.2f goal", fleet, fleetTotal, budget)
	}
	fmt.Fprintf(&out, "### Store requests per node-month (one node, scaled)\n\nIngest:\n\n")
	_ = awscost.PerMethod(&out, awscost.Scale(ingestOps, scale))
	fmt.Fprintf(&out, "\nWatchdog:\n\n")
	_ = awscost.PerMethod(&out, awscost.Scale(watchdogOps, scale))
	t.Log("\n" + out.String())
	if path := os.Getenv("GPUSLA_COST_OUT"); path != "" {
		if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
