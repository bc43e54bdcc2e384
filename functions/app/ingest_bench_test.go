package app_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/app/apptest"
	"github.com/gpusla/gpusla/infra/store/bolt"
	"github.com/gpusla/gpusla/probe/wire"
)

// BenchmarkIngestBatch is one batch through Service.Ingest on the embedded
// store, by what it holds (docs/BENCHMARKS.md, "ingest cost by batch"):
//
//   - distinct=N: N distinct passing node-wide checks, 512 an observation,
//     on a node that has none yet (each check becomes a key of the node's
//     state), up to wire.MaxBatchChecks (a batch with more is refused);
//   - real=K KiB: a real 8-GPU node's checks (72 node-wide, 40 per GPU,
//     with values, criteria and details as the probe writes them), again
//     and again in one batch of about K KiB, up to the 1 MiB bound — a
//     spool draining;
//   - later/after=N: the node's next ordinary batch (two heartbeats and
//     its 72 node-wide checks) once it holds N keys, up to what
//     app.MaxNodeChecks leaves for those 72.
//
// Per check the cost must not grow with N or K.
func BenchmarkIngestBatch(b *testing.B) {
	for _, n := range []int{100, 500, 1000, wire.MaxBatchChecks} {
		b.Run(fmt.Sprintf("distinct=%d", n), func(b *testing.B) {
			obs := distinctChecks(n)
			benchFresh(b, obs, n)
		})
	}
	for _, kib := range []int{64, 256, 1024} {
		b.Run(fmt.Sprintf("real=%dKiB", kib), func(b *testing.B) {
			obs := realChecks(kib << 10)
			n := 0
			for _, o := range obs {
				n += len(o.Checks)
			}
			benchFresh(b, obs, n)
		})
	}
	for _, n := range []int{0, 1000, app.MaxNodeChecks - 72} {
		b.Run(fmt.Sprintf("later/after=%d", n), func(b *testing.B) {
			svc, p := benchService(b, "later")
			obs, per := distinctChecks(n), wire.MaxBatchChecks/wire.MaxChecks
			for i := 0; i < len(obs); i += per { // as many batches as the bound on one needs
				ingest(b, svc, request(p, time.Now().UTC(), obs[i:min(len(obs), i+per)]))
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				now := time.Now().UTC()
				req := request(p, now, append(apptest.Heartbeats(now, 30*time.Second, 2), apptest.Check(now, nodeChecks()...)))
				b.StartTimer()
				ingest(b, svc, req)
			}
		})
	}
}

// benchFresh ingests obs, holding n checks, into a node of its own each
// time; making and signing the batch is not timed.
func benchFresh(b *testing.B, obs []wire.Observation, n int) {
	svc, _ := benchService(b, "warm")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		req := request(apptest.AddNode(b, svc, fmt.Sprintf("n%06d", i)), time.Now().UTC(), obs)
		b.StartTimer()
		ingest(b, svc, req)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/check")
}

func benchService(b *testing.B, node string) (*app.Service, *apptest.Probe) {
	st, err := bolt.Open(filepath.Join(b.TempDir(), "gpusla.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	st.SetNoSync(true)
	svc, err := app.New(app.Config{Store: st, Notifier: &apptest.Notifier{}, Box: apptest.Box(b), Log: quiet()})
	if err != nil {
		b.Fatal(err)
	}
	return svc, apptest.AddNode(b, svc, node)
}

// request is p's next batch of obs, dated and signed now.
func request(p *apptest.Probe, now time.Time, obs []wire.Observation) app.IngestRequest {
	for i := range obs {
		obs[i].At = now
	}
	_, body := p.Batch(now, obs...)
	return p.Request(now, body)
}

func ingest(b *testing.B, svc *app.Service, req app.IngestRequest) {
	if _, err := svc.Ingest(b.Context(), req); err != nil {
		b.Fatal(err)
	}
}

// distinctChecks is n distinct passing node-wide checks, 512 an observation.
func distinctChecks(n int) []wire.Observation {
	var obs []wire.Observation
	for i := 0; i < n; i += wire.MaxChecks {
		var cs []wire.Check
		for j := i; j < min(n, i+wire.MaxChecks); j++ {
			cs = append(cs, wire.Check{Name: fmt.Sprintf("bench.check.%05d", j), Category: wire.CategoryGPUDegraded, Verdict: wire.Pass})
		}
		obs = append(obs, wire.Observation{Kind: wire.KindCheck, Checks: cs})
	}
	return obs
}

// nodeChecks are a real node's 72 node-wide checks, as long as the probe
// writes them.
func nodeChecks() []wire.Check {
	cs := make([]wire.Check, 72)
	for i := range cs {
		cs[i] = wire.Check{Name: fmt.Sprintf("gpu.node.check%02d", i), Category: wire.CategoryGPUDegraded, Verdict: wire.Pass,
			Value: "no uncorrectable errors", Criterion: "no uncorrectable ECC errors in the card's lifetime counters",
			Detail: "volatile 0, aggregate 0, remapped rows 0 pending 0, retired pages 0"}
	}
	return cs
}

// realChecks repeats a real 8-GPU node's checks (nodeChecks and 40 per
// GPU) in observations of 128 checks until the batch is about size bytes.
func realChecks(size int) []wire.Observation {
	all := nodeChecks()
	for g := 0; g < 8; g++ {
		for k := 0; k < 40; k++ {
			gpu := g
			all = append(all, wire.Check{Name: fmt.Sprintf("gpu.burn.figure%02d", k), Category: wire.CategoryPerformance, Verdict: wire.Pass,
				GPU: &gpu, UUID: "GPU-3f5b1c0e-8a1d-4c2b-9e7f-0123456789ab", Value: "909.8 TFLOP/s", Criterion: "≥ 95 % of the spec's 989 TFLOP/s",
				Unit: "TFLOP/s", Detail: "2 s burn, m64n256k16, 0 wrong results"})
		}
	}
	var obs []wire.Observation
	bytes := 0
	for {
		for i := 0; i < len(all); i += 128 {
			cs := all[i:min(len(all), i+128)]
			n := 64 // the observation's own fields
			for _, c := range cs {
				j, _ := json.Marshal(c)
				n += len(j) + 1
			}
			if bytes+n > size-(4<<10) {
				return obs
			}
			obs = append(obs, wire.Observation{Kind: wire.KindCheck, Checks: cs})
			bytes += n
		}
	}
}
