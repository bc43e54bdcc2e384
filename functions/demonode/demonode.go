// Package demonode is the demo node of `gpusla serve`: registered when no
// real node is (or when asked), with a real probe pipeline (spool, signed
// push) run in-process against serve's own HTTP API on a fast schedule, so
// a newcomer sees heartbeats, an alert and a recovery in two minutes.
package demonode

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/probe/checkrun"
	"github.com/gpusla/gpusla/probe/expect"
	"github.com/gpusla/gpusla/probe/host"
	"github.com/gpusla/gpusla/probe/push"
	"github.com/gpusla/gpusla/probe/specdb"
	"github.com/gpusla/gpusla/probe/spool"
	"github.com/gpusla/gpusla/probe/wire"
)

// The demo node's schedule: fast, so the whole story fits in two minutes.
const (
	demoNodeID    = "demo-node"
	demoHeartbeat = 5 * time.Second
	demoPush      = 10 * time.Second
	demoGrace     = 15 * time.Second
	demoHostEvery = 30 * time.Second
	demoPauseAt   = 40 * time.Second // after start
	demoPauseFor  = 50 * time.Second
	// From demoFaultAt for demoFaultFor, GPU readings come from a recorded
	// machine whose GPU fell off the bus (XID 79) with a row remap pending.
	demoFaultAt  = 100 * time.Second
	demoFaultFor = 30 * time.Second
	// Recorded snapshots of real machines (probe/checkrun's golden files),
	// found when serve runs from the repository root.
	demoSnapshotDir = "probe/checkrun/testdata/snapshots"
	demoHealthy     = "h200x2-real.json"
	demoFaulty      = "h200-remap-pending-xid79.json"
)

// demoExpected is what the demo node "ordered" when the recorded H200
// snapshots are there.
var demoExpected = expect.Expected{Model: "H200", GPUs: 2, GPUMemoryGB: 141}

// Probe is the demo node's in-process probe.
type Probe struct {
	// healthy and faulty are recorded GPU snapshots; nil when serve does not
	// run from the repository root (then the demo has no GPU checks).
	healthy, faulty *checkrun.Snapshot
	secret          []byte
	spool           *spool.Spool
	log             *slog.Logger
	done            sync.WaitGroup
}

// Setup registers the demo node when mode is "on" (or "auto" and no real
// node is registered) and opens its spool under dataDir; nil when the demo
// is off.
func Setup(ctx context.Context, mode, dataDir string, svc *app.Service, st store.Store, box app.SecretBox, log *slog.Logger) (*Probe, error) {
	if mode == "off" {
		return nil, nil
	}
	nodes, err := st.ListNodes(ctx)
	if err != nil {
		return nil, err
	}
	var demo *store.Node
	real := 0
	for i := range nodes {
		if nodes[i].ID == demoNodeID {
			demo = &nodes[i]
		} else {
			real++
		}
	}
	if mode == "auto" && real > 0 {
		return nil, nil
	}
	d := &Probe{log: log.With("demo", true)}
	d.healthy, err = checkrun.ReadSnapshot(filepath.Join(demoSnapshotDir, demoHealthy))
	if err == nil {
		d.faulty, err = checkrun.ReadSnapshot(filepath.Join(demoSnapshotDir, demoFaulty))
	}
	if err != nil {
		d.healthy, d.faulty = nil, nil
		log.Info("demo: no recorded GPU snapshots here (run from the repository root for GPU checks); heartbeats and host checks only", "looked_in", demoSnapshotDir)
	}
	var secret []byte
	if demo == nil {
		nn := app.NewNode{ID: demoNodeID, Provider: "demo-provider", Contract: "demo", OrderedAt: svc.Now(),
			GPUModel: "demo (no GPU is checked; heartbeats and host checks only)", GPUCount: 1,
			HeartbeatInterval: demoHeartbeat, PushInterval: demoPush, Grace: demoGrace, Demo: true}
		if d.healthy != nil {
			nn.GPUModel, nn.GPUCount, nn.GPUMemoryMiB = "H200 (recorded snapshots of a real 2 × H200 machine)", demoExpected.GPUs, int(demoExpected.GPUMemoryGB*1024)
		}
		_, secret, err = svc.AddNode(ctx, nn)
		if err != nil {
			return nil, fmt.Errorf("register demo node: %w", err)
		}
		log.Info("registered the demo node", "node", demoNodeID, "heartbeat", demoHeartbeat, "push", demoPush, "grace", demoGrace)
	} else if secret, err = box.Open(demo.SealedSecret, demo.ID); err != nil {
		return nil, fmt.Errorf("demo node: %w", err)
	}
	sp, err := spool.Open(spool.Options{Dir: filepath.Join(dataDir, "demo-spool"), MaxBytes: 16 << 20, Node: demoNodeID, Probe: "gpusla-demo", Logger: log})
	if err != nil {
		return nil, fmt.Errorf("demo spool: %w", err)
	}
	d.secret, d.spool = secret, sp
	return d, nil
}

// Run collects heartbeats (and host checks) and spools them every push
// interval; a sender pushes them. Once, it stops pushing for a while — the
// node keeps running and spooling — so the watchdog alerts, and the spooled
// batches then arrive late and close (and reclassify) the incident.
func (d *Probe) Run(ctx context.Context, url string) {
	d.done.Add(1)
	defer d.done.Done()
	defer d.spool.Close()
	what := "2 heartbeats + host checks"
	if d.healthy != nil {
		what = "2 heartbeats + host checks + GPU checks judged on a recorded 2 × H200 snapshot"
	}
	d.log.Info("demo probe started: real signed batches every 10s ("+what+")", "node", demoNodeID, "url", url)

	var senderMu sync.Mutex
	var stopSender context.CancelFunc
	var senders sync.WaitGroup
	startSender := func() {
		senderMu.Lock()
		defer senderMu.Unlock()
		sctx, cancel := context.WithCancel(ctx)
		stopSender = cancel
		s := &push.Sender{URL: url, Node: demoNodeID, Secret: d.secret, Queue: d.spool,
			MinBackoff: 500 * time.Millisecond, MaxBackoff: 5 * time.Second, Log: d.log}
		senders.Add(1)
		go func() {
			defer senders.Done()
			if err := s.Run(sctx); err != nil {
				d.log.Error("demo sender", "err", err)
			}
		}()
	}
	startSender()
	defer func() { stopSender(); senders.Wait() }()

	start := time.Now()
	hb := time.NewTicker(demoHeartbeat)
	defer hb.Stop()
	var pending []wire.Observation
	lastPush, lastHost := time.Now(), time.Time{}
	paused, resumed, faulted, healed := false, false, false, false
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-hb.C:
			now = now.UTC()
			pending = append(pending, wire.Observation{At: now, Kind: wire.KindHeartbeat})
			if now.Sub(lastHost) >= demoHostEvery {
				hctx, cancel := context.WithTimeout(ctx, 3*time.Second)
				checks := host.Collect(hctx, host.Reader{}, expect.Expected{})
				cancel()
				if len(checks) > 0 {
					pending = append(pending, wire.Observation{At: now, Kind: wire.KindCheck, Checks: checks})
				}
				lastHost = now
			}
			if now.Sub(lastPush) >= demoPush-time.Second {
				if snap := d.gpuSnapshot(time.Since(start)); snap != nil {
					pending = append(pending, wire.Observation{At: now, Kind: wire.KindCheck,
						Checks: checkrun.JudgeGPU(snap, specdb.Default(), demoExpected)})
				}
				if _, err := d.spool.Append(pending); err != nil && !errors.Is(ctx.Err(), context.Canceled) {
					d.log.Error("demo spool", "err", err)
				}
				pending, lastPush = nil, now
			}
			switch el := time.Since(start); {
			case !paused && el >= demoPauseAt:
				paused = true
				stopSender()
				d.log.Warn(fmt.Sprintf("demo: the probe now stops pushing for %s (it keeps running and spooling) — watch for an unreachable alert in ~%s and a recovery after",
					demoPauseFor, (demoHeartbeat + demoGrace + 10*time.Second).String()))
			case paused && !resumed && el >= demoPauseAt+demoPauseFor:
				resumed = true
				d.log.Info("demo: the probe pushes again; its spooled batches arrive late and close the incident")
				startSender()
			case d.faulty != nil && !faulted && el >= demoFaultAt:
				faulted = true
				d.log.Warn("demo: GPU readings now come from a recorded machine whose GPU fell off the bus (XID 79) with a row remap pending — watch for gpu_lost and gpu_degraded alerts after two failing checks")
			case faulted && !healed && el >= demoFaultAt+demoFaultFor:
				healed = true
				d.log.Info("demo: GPU readings are healthy again — the incidents close after two passing checks")
			}
		}
	}
}

// gpuSnapshot is the recorded machine the demo's GPUs read like at el.
func (d *Probe) gpuSnapshot(el time.Duration) *checkrun.Snapshot {
	if d.faulty != nil && el >= demoFaultAt && el < demoFaultAt+demoFaultFor {
		return d.faulty
	}
	return d.healthy
}

// Wait waits for Run to return.
func (d *Probe) Wait() { d.done.Wait() }
