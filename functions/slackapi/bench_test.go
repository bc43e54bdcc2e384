package slackapi_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/slackapi"
	"github.com/gpusla/gpusla/infra/store/dynamo/dynamotest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	dynamotest.Stop()
	os.Exit(code)
}

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
func BenchmarkSlashCommandAck(b *testing.B) { benchAck(b, newEnv(b, nil)) }

// BenchmarkSlashCommandAckDynamoDB: the same against DynamoDB as dynalite
// implements it (a local Node.js server: its latency is not AWS's, but the
// request counts are what AWS would bill).
func BenchmarkSlashCommandAckDynamoDB(b *testing.B) {
	benchAck(b, newEnvOn(b, nil, dynamotest.NewStore(b)))
}

func benchAck(b *testing.B, e *env) {
	q := &queue{}
	e.h.SetRunner(q)
	// One fresh ticket per command, so every item is the size of a real
	// ticket's (a handful of events), not one ticket grown by b.N events.
	bodies := make([]string, b.N)
	for i := range bodies {
		tk, _, err := e.desk.Open(context.Background(), app.OpenRequest{Node: "gz-01", Priority: "P1"})
		if err != nil {
			b.Fatal(err)
		}
		bodies[i] = url.Values{"command": {"/gpusla"}, "text": {"ticket responded " + tk.ID}, "user_id": {"U1"},
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
	if mu := after.Total("/milli_units") - before.Total("/milli_units"); mu > 0 {
		b.ReportMetric(float64(mu)/1000/float64(b.N), "request_units/op")
	}
}
