package app_test

import (
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/app/apptest"
	"github.com/gpusla/gpusla/infra/store/bolt"
)

// BenchmarkIngest is one heartbeat batch through Service.Ingest on the
// embedded store, from many nodes in parallel (no HTTP): the application's
// share of `gpusla loadgen`.
func BenchmarkIngest(b *testing.B) {
	st, err := bolt.Open(filepath.Join(b.TempDir(), "gpusla.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	svc, err := app.New(app.Config{Store: st, Notifier: &apptest.Notifier{}, Box: apptest.Box(b), Log: quiet()})
	if err != nil {
		b.Fatal(err)
	}
	const nodes = 256
	probes := make([]*apptest.Probe, nodes)
	for i := range probes {
		probes[i] = apptest.AddNode(b, svc, fmt.Sprintf("bench-%03d", i))
	}
	var next atomic.Int64
	b.SetParallelism(16)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		p := probes[next.Add(1)%nodes]
		for pb.Next() {
			now := time.Now().UTC()
			_, body := p.Batch(now, apptest.Heartbeats(now, 30*time.Second, 2)...)
			if _, err := svc.Ingest(b.Context(), p.Request(now, body)); err != nil {
				b.Fatal(err)
			}
		}
	})
}
