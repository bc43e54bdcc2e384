package dynamo_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/infra/store/dynamo/dynamotest"
)

// BenchmarkOpenTicketList: the one request a steady-state ticket watch tick
// makes (functions/app BenchmarkTicketWatch100): the sparse-index query of
// 100 open tickets, each the size of a real one (opened, a response, its
// notices sent) — with the request units DynamoDB bills for it. Closed
// tickets are in the table too and must cost nothing here.
func BenchmarkOpenTicketList(b *testing.B) {
	s := dynamotest.NewStore(b)
	t0 := time.Date(2026, 3, 10, 2, 0, 0, 0, time.UTC)
	for i := 0; i < 200; i++ {
		tk := store.Ticket{ID: fmt.Sprintf("T-%08d", i), Node: "gz-01", Provider: "acme", Contract: "cn-example", Priority: "P2",
			ProviderRef: "ACME-1234", Summary: "NCCL all-reduce at half the bandwidth since the reboot", Opened: t0.Add(time.Duration(i) * time.Minute),
			OpenedBy: "slack:U024BE7LH (mei)", Open: i%2 == 0, CreatedAt: t0, UpdatedAt: t0,
			Events: []store.TicketEvent{{Type: store.EventProviderResponded, At: t0.Add(time.Hour), By: "api:k7q2m4xa (ops)", RecordedAt: t0.Add(time.Hour), Target: "response"}},
			Notices: []store.TicketNotice{{Key: "opened", Kind: "opened", CreatedAt: t0, SentAt: t0, Attempts: 1, LastAttemptAt: t0},
				{Key: "event/1", Kind: "recorded", CreatedAt: t0, SentAt: t0, Attempts: 1, LastAttemptAt: t0}}}
		if err := s.CreateTicket(b.Context(), tk); err != nil {
			b.Fatal(err)
		}
	}
	before := s.Ops()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		l, err := s.ListTickets(b.Context(), true)
		if err != nil || len(l) != 100 {
			b.Fatalf("%d open tickets, %v", len(l), err)
		}
	}
	b.StopTimer()
	after := s.Ops()
	b.ReportMetric(float64(after.Total("/query")-before.Total("/query"))/float64(b.N), "queries/op")
	b.ReportMetric(float64(after.Total("/milli_units")-before.Total("/milli_units"))/1000/float64(b.N), "request_units/op")
}
