package app_test

import (
	"bytes"
	"io"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/app/apptest"
	"github.com/gpusla/gpusla/functions/bundle"
	"github.com/gpusla/gpusla/infra/slack"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/sla/terms"
)

// logOnly is a store that keeps no history to read node by node: the
// monthly job builds its months from the exported log.
type logOnly struct {
	store.Store
	store.TicketStore
	store.ProviderStatusStore
}

// The monthly job (serve's, and the Lambda's without a parts queue) builds
// the month and its trailing months' scorecard from the store's own
// records, node by node, and its evidence bundle from a log of the nodes
// with a counted outage only: it stores what building from the months'
// exported logs stores, every file byte for byte — the report in every
// format, the evidence bundle, its chain head, and the scorecard in JSON,
// Markdown, HTML and PDF. The month built apart (a parts queue) stores the
// same scorecard, not why it has none.
func TestMonthlyJobFromTheStoreIsTheLogs(t *testing.T) {
	st := openBolt(t)
	tm := booksFleet(t, st, 8)
	ctx := t.Context()
	asOf := time.Date(2026, 4, 1, 6, 0, 0, 0, time.UTC)
	formats := []string{"md", "html", "csv", "pdf"}
	job := func(s store.Store, blobs app.ReportBlobs) *app.ReportJob {
		svc, err := app.New(app.Config{Store: s, Notifier: &slack.Console{W: io.Discard}, Box: apptest.Box(t)})
		if err != nil {
			t.Fatal(err)
		}
		desk, err := svc.Tickets(app.TermsBook{"cn-example": tm[0]})
		if err != nil {
			t.Fatal(err)
		}
		return &app.ReportJob{Desk: desk, Blobs: blobs, Renderer: bundle.Renderer{}, Formats: formats, TempDir: t.TempDir(), ScorecardMonths: 2}
	}
	fromLog, fromStore, apart := blobDir(t), blobDir(t), blobDir(t)
	if err := job(logOnly{st, st, st}, fromLog).Generate(ctx, 2026, 3, "cn-example", asOf); err != nil {
		t.Fatal(err)
	}
	if err := job(st, fromStore).Generate(ctx, 2026, 3, "cn-example", asOf); err != nil {
		t.Fatal(err)
	}
	builtApart(t, job(st, apart), st, tm, asOf)
	for _, name := range []string{"report.json", "report.md", "report.html", "report.csv", "report.pdf", "evidence.zip", "chain-head.txt",
		"scorecard.json", "scorecard.md", "scorecard.html", "scorecard.pdf"} {
		want, err := fromLog.Get(ctx, "2026-03/cn-example/"+name)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			how   string
			blobs app.ReportBlobs
		}{{"from the store", fromStore}, {"apart", apart}} {
			got, err := c.blobs.Get(ctx, "2026-03/cn-example/"+name)
			if err != nil {
				t.Fatalf("%s built %s: %v", name, c.how, err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s built %s differs from the log's (%d bytes, want %d)", name, c.how, len(got), len(want))
			}
		}
	}
	for _, b := range []app.ReportBlobs{fromStore, apart} {
		if _, err := b.Get(ctx, "2026-03/cn-example/scorecard-error.txt"); !app.IsNotFound(err) {
			t.Errorf("a scorecard error stored beside the month: %v", err)
		}
	}
}

// builtApart runs job with a parts queue: the first run sends the
// node-months, a worker builds them, the next run assembles and stores.
func builtApart(t *testing.T, job *app.ReportJob, st app.BooksStore, tm []*terms.Terms, asOf time.Time) {
	t.Helper()
	q := &itemList{}
	job.Parts, job.PartsWait = q, time.Hour
	if err := job.Generate(t.Context(), 2026, 3, "cn-example", asOf); err == nil {
		t.Fatal("the month built apart is not pending after its first run")
	}
	worker := &app.FanOut{Books: app.Books{Store: st, Terms: tm}, Blobs: job.Blobs}
	for _, it := range q.items {
		if err := worker.Work(t.Context(), it); err != nil {
			t.Fatal(err)
		}
	}
	if err := job.Generate(t.Context(), 2026, 3, "cn-example", asOf); err != nil {
		t.Fatal(err)
	}
}
