package e2e

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/httpapi"
)

// The recorded load run (docs/BENCHMARKS.md "End-to-end and load"):
//
//	go test ./functions/e2e -run TestLoad -timeout 30m -e2e.load.nodes 1000 -e2e.load.duration 5m -e2e.load.every 5s -v
//
// CI runs the short default.
var (
	loadNodes    = flag.Int("e2e.load.nodes", 200, "simulated nodes in TestLoad")
	loadDuration = flag.Duration("e2e.load.duration", 15*time.Second, "how long TestLoad pushes")
	loadEvery    = flag.Duration("e2e.load.every", 2*time.Second, "each simulated node's push interval in TestLoad")
	loadOut      = flag.String("e2e.load.out", "", "write TestLoad's figures as JSON to this file")
)

// loadFigures is what TestLoad measures.
type loadFigures struct {
	Nodes          int     `json:"nodes"`
	Seconds        float64 `json:"seconds"`
	PushEvery      string  `json:"push_every"`
	Batches        int     `json:"batches"`
	PerSecond      float64 `json:"batches_per_second"`
	Errors         int     `json:"errors"`
	Lost           int     `json:"lost"`
	P50ms          float64 `json:"p50_ms"`
	P90ms          float64 `json:"p90_ms"`
	P99ms          float64 `json:"p99_ms"`
	Maxms          float64 `json:"max_ms"`
	ServeCPUSec    float64 `json:"serve_cpu_seconds"`
	ServePeakRSSMB float64 `json:"serve_peak_rss_mib"`
	StoreMB        float64 `json:"store_mib"`
}

// TestLoad drives a real `gpusla serve` (embedded store, loopback) with
// simulated nodes, each pushing a signed, chained batch of two heartbeats
// every -e2e.load.every from a random phase, for -e2e.load.duration: no
// request may fail, and at the end every node's stored chain head equals
// the last batch it was acknowledged (no batch lost). Latency is measured
// per request.
func TestLoad(t *testing.T) {
	b := newBackend(t, storeEmbedded, newFakeSlack(t), "127.0.0.1")
	b.watchdog = "@every 10s"
	nodes := registerSim(t, b.dir, "load", *loadNodes)
	b.start()
	url := b.url(httpapi.PathBatches)
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConns: *loadNodes, MaxIdleConnsPerHost: *loadNodes}}
	cpu0 := procCPU(b.p.cmd.Process.Pid)

	ctx, cancel := context.WithTimeout(context.Background(), *loadDuration)
	defer cancel()
	var mu sync.Mutex
	var lat []time.Duration
	var errs []string
	var wg sync.WaitGroup
	start := time.Now()
	for _, n := range nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			phase := time.NewTimer(rand.N(*loadEvery))
			select {
			case <-ctx.Done():
				phase.Stop()
				return
			case <-phase.C:
			}
			tick := time.NewTicker(*loadEvery)
			defer tick.Stop()
			for {
				took, err := n.push(context.Background(), client, url) // never cut a request off mid-way
				mu.Lock()
				if err != nil {
					errs = append(errs, err.Error())
				} else {
					lat = append(lat, took)
				}
				mu.Unlock()
				select {
				case <-ctx.Done():
					return
				case <-tick.C:
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	cpu := procCPU(b.p.cmd.Process.Pid) - cpu0
	rss := procPeakRSS(b.p.cmd.Process.Pid)

	f := loadFigures{Nodes: len(nodes), Seconds: elapsed.Seconds(), PushEvery: loadEvery.String(), Batches: len(lat), Errors: len(errs),
		ServeCPUSec: cpu, ServePeakRSSMB: rss}
	f.PerSecond = float64(f.Batches) / f.Seconds
	slices.Sort(lat)
	q := func(p float64) float64 {
		if len(lat) == 0 {
			return 0
		}
		return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds()) / 1000
	}
	f.P50ms, f.P90ms, f.P99ms, f.Maxms = q(0.50), q(0.90), q(0.99), q(1)
	ns := b.nodes()
	for _, n := range nodes {
		if got := ns[n.id].LastSeq; got != n.acked || n.pending != nil {
			f.Lost++
			if f.Lost <= 5 {
				t.Errorf("%s: store at seq %d, acknowledged %d, pending %v", n.id, got, n.acked, n.pending != nil)
			}
		}
	}
	b.stop()
	if st, err := os.Stat(b.dir + "/gpusla.db"); err == nil {
		f.StoreMB = float64(st.Size()) / (1 << 20)
	}
	raw, _ := json.MarshalIndent(f, "", "  ")
	t.Logf("load figures:\n%s", raw)
	if *loadOut != "" {
		if err := os.WriteFile(*loadOut, raw, 0o644); err != nil {
			t.Error(err)
		}
	}
	if len(errs) > 0 {
		t.Errorf("%d requests failed; first: %s", len(errs), errs[0])
	}
	if f.Lost > 0 {
		t.Errorf("%d nodes lost batches", f.Lost)
	}
	if f.Batches == 0 {
		t.Fatal("no batch was pushed")
	}
}

// procCPU is a process's user+system CPU seconds (Linux /proc; 0 elsewhere).
func procCPU(pid int) float64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// Fields after the command name (which may hold spaces) start at ')'.
	fs := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+1:]))
	if len(fs) < 13 {
		return 0
	}
	ut, _ := strconv.ParseFloat(fs[11], 64)
	st, _ := strconv.ParseFloat(fs[12], 64)
	return (ut + st) / 100 // USER_HZ
}

// procPeakRSS is a process's peak resident memory in MiB (VmHWM).
func procPeakRSS(pid int) float64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			return kb / 1024
		}
	}
	return 0
}
