package slackapi_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/slackapi"
)

// queue keeps the jobs handed over after the answer, so the benchmark
// times what Slack waits for (verify, claim, record, answer) and nothing
// of the follow-up.
type queue struct {
	mu   sync.Mutex
	jobs []slackapi.Job
}

func (q *queue) Run(_ context.Context, j slackapi.Job) error {
	q.mu.Lock()
	q.jobs = append(q.jobs, j)
	q.mu.Unlock()
	return nil
}

// BenchmarkSlashCommandAck: one `/gpusla ticket responded <id>` from the
// request to the answer: signature verified, replay claim written, the
// event recorded with one versioned write, the answer encoded. Reported
// with the store operations it costs (embedded store).
func BenchmarkSlashCommandAck(b *testing.B) {
	t := &testing.T{}
	e := newEnv(t, nil)
	q := &queue{}
	e.h.SetRunner(q)
	tk, _, err := e.desk.Open(context.Background(), app.OpenRequest{Node: "gz-01", Priority: "P1"})
	if err != nil {
		b.Fatal(err)
	}
	bodies := make([]string, b.N)
	for i := range bodies {
		bodies[i] = url.Values{"command": {"/gpusla"}, "text": {"ticket replied " + tk.ID}, "user_id": {"U1"},
			"trigger_id": {fmt.Sprintf("bench-%d", i)}, "response_url": {e.slack.responseURL()}}.Encode()
	}
	now := time.Now()
	before := e.store.Ops()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w := httptest.NewRecorder()
		e.mux.ServeHTTP(w, signed(slackapi.PathCommands, bodies[i], now))
		if w.Code != http.StatusOK {
			b.Fatalf("status %d: %s", w.Code, w.Body)
		}
	}
	b.StopTimer()
	after := e.store.Ops()
	b.ReportMetric(float64(after.Total("/read")-before.Total("/read"))/float64(b.N), "reads/op")
	b.ReportMetric(float64(after.Total("/write")-before.Total("/write"))/float64(b.N), "writes/op")
}
