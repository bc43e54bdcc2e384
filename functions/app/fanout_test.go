package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/app/apptest"
	"github.com/gpusla/gpusla/functions/bundle"
	"github.com/gpusla/gpusla/functions/document"
	"github.com/gpusla/gpusla/functions/fleetsim"
	"github.com/gpusla/gpusla/infra/blob"
	"github.com/gpusla/gpusla/infra/slack"
	"github.com/gpusla/gpusla/infra/store/bolt"
	"github.com/gpusla/gpusla/sla/i18n"
	"github.com/gpusla/gpusla/sla/report"
)

// itemList is a queue that keeps what it is sent, for a test to hand out.
type itemList struct {
	mu    sync.Mutex
	items []app.WorkItem
}

func (q *itemList) Send(_ context.Context, bodies []string) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, b := range bodies {
		it, err := app.ParseWorkItem(b)
		if err != nil {
			return err
		}
		q.items = append(q.items, it)
	}
	return nil
}

func openBolt(t *testing.T) *bolt.Store {
	t.Helper()
	st, err := bolt.Open(filepath.Join(t.TempDir(), "gpusla.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	st.SetNoSync(true)
	return st
}

func blobDir(t *testing.T) *blob.Dir {
	t.Helper()
	d, err := blob.NewDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// renderAll is the month's JSON and its Chinese and English Markdown: the
// Markdown carries the sentences the JSON leaves out (msg.Text).
func renderAll(t *testing.T, r *report.Report) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := report.JSON(&out, r); err != nil {
		t.Fatal(err)
	}
	for _, l := range []i18n.Lang{i18n.ZH, i18n.EN} {
		if err := document.Render(&out, r, "md", document.Extras{Lang: l}); err != nil {
			t.Fatal(err)
		}
	}
	return out.Bytes()
}

// The month fanned out as node-months (Start, a worker's Work per item in
// whatever order, Assemble) is the month Books builds in one process, byte
// for byte in its JSON and in its documents in both languages; until every
// part is in, Assemble says the month is pending.
func TestFanOutIsTheStoresBooks(t *testing.T) {
	st := openBolt(t)
	tm := booksFleet(t, st, 12)
	blobs := blobDir(t)
	skip := map[string]string{"xx-1": "nowhere"}
	books := app.Books{Store: st, Status: st, Terms: tm, Workers: 2, Skip: skip}
	asOf := time.Date(2026, 4, 1, 6, 0, 0, 0, time.UTC)
	whole, err := books.Month(t.Context(), 2026, 3, asOf)
	if err != nil {
		t.Fatal(err)
	}
	want := renderAll(t, whole)

	q := &itemList{}
	f := &app.FanOut{Books: books, Blobs: blobs, Queue: q, Wait: time.Hour}
	now := asOf.Add(time.Minute)
	const prefix = "fanout/2026-03/all"
	if err := f.Start(t.Context(), prefix, 2026, 3, asOf, now); err != nil {
		t.Fatal(err)
	}
	if len(q.items) != len(whole.Nodes) {
		t.Fatalf("%d work items for %d nodes", len(q.items), len(whole.Nodes))
	}
	if _, err := f.Assemble(t.Context(), prefix, now); !errors.Is(err, app.ErrPending) {
		t.Fatalf("assembled before any part came: err = %v", err)
	}
	items := slices.Clone(q.items)
	slices.Reverse(items)
	for _, it := range items {
		if err := f.Work(t.Context(), it); err != nil {
			t.Fatalf("work %s: %v", it.Node, err)
		}
	}
	r, err := f.Assemble(t.Context(), prefix, now)
	if err != nil {
		t.Fatal(err)
	}
	if got := renderAll(t, r); !bytes.Equal(got, want) {
		t.Fatalf("the month fanned out differs from the store's books:\n--- books\n%.4000s\n--- fanned out\n%.4000s", want, got)
	}
	if r.Fleet == nil || len(r.Fleet.Findings) == 0 {
		t.Fatal("the fleet found nothing: the rebuild of a node it finds fault with is not tested")
	}
}

// A node whose last attempt failed, and one that never answered, are named
// in left_out with why, and the month is the others': never silently
// smaller. The silent one is waited for until Wait has passed.
func TestFanOutNamesTheNodesLeftOut(t *testing.T) {
	st := openBolt(t)
	tm := booksFleet(t, st, 8)
	blobs := blobDir(t)
	q := &itemList{}
	f := &app.FanOut{Books: app.Books{Store: st, Status: st, Terms: tm, Workers: 1, Skip: map[string]string{"xx-1": "nowhere"}}, Blobs: blobs, Queue: q, Wait: 30 * time.Minute}
	asOf := time.Date(2026, 4, 1, 6, 0, 0, 0, time.UTC)
	started := asOf.Add(time.Minute)
	const prefix = "fanout/2026-03/all"
	if err := f.Start(t.Context(), prefix, 2026, 3, asOf, started); err != nil {
		t.Fatal(err)
	}
	for _, it := range q.items {
		switch it.Node {
		case "gz-00002": // the ticket's node: its ticket must go with it
			if err := f.Failed(t.Context(), it, 3, errors.New("store: read timed out")); err != nil {
				t.Fatal(err)
			}
		case "gz-00003": // its worker died, writing nothing
		default:
			if err := f.Work(t.Context(), it); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := f.Assemble(t.Context(), prefix, started.Add(29*time.Minute)); !errors.Is(err, app.ErrPending) || !strings.Contains(err.Error(), "gz-00003") {
		t.Fatalf("before Wait: err = %v, want pending on gz-00003", err)
	}
	r, err := f.Assemble(t.Context(), prefix, started.Add(30*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, s := range r.LeftOut {
		left = append(left, s.Node+": "+s.Reason)
	}
	got := strings.Join(left, "\n")
	if len(left) != 2 {
		t.Errorf("left_out: %d nodes, want the two without a part (the node of an unknown contract is the job's to name):\n%s", len(left), got)
	}
	for _, w := range []string{"gz-00002: its part of the month could not be built (its part failed after 3 attempts: store: read timed out)",
		"gz-00003: its part of the month could not be built (no part came back within 30m0s of the month's start)"} {
		if !strings.Contains(got, w) {
			t.Errorf("left_out lacks %q:\n%s", w, got)
		}
	}
	for _, n := range r.Nodes {
		if n.Node == "gz-00002" || n.Node == "gz-00003" {
			t.Errorf("node %s left out and reported", n.Node)
		}
	}
	var md bytes.Buffer
	if err := document.Render(&md, r, "md", document.Extras{Lang: i18n.ZH}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "gz-00003") {
		t.Errorf("the Chinese report does not name gz-00003:\n%.3000s", md.String())
	}
}

// The report job building its month apart (Parts: the node-months sent to
// a queue, built by workers of their own, assembled by a later run)
// stores what it stores building the month here from the exported log:
// the report in every format, the evidence bundle and its chain head, byte
// for byte. The bundle's log holds only the observations of the nodes with
// a counted outage, which is all a bundle keeps.
func TestFanOutBundleIsTheLogsBundle(t *testing.T) {
	st := openBolt(t)
	tm := booksFleet(t, st, 8)
	ctx := t.Context()
	// Two nodes with nothing to claim: the bundle reads none of theirs.
	sh, _ := time.LoadLocation("Asia/Shanghai")
	if _, err := fleetsim.Write(ctx, st, fleetsim.Config{Nodes: 2, Prefix: "hk-", Contract: "cn-example", Loc: sh,
		From: time.Date(2026, 3, 1, 0, 0, 0, 0, sh), Months: 1, QuietEvery: 1}); err != nil {
		t.Fatal(err)
	}
	svc, err := app.New(app.Config{Store: st, Notifier: &slack.Console{W: io.Discard}, Box: apptest.Box(t)})
	if err != nil {
		t.Fatal(err)
	}
	desk, err := svc.Tickets(app.TermsBook{"cn-example": tm[0]})
	if err != nil {
		t.Fatal(err)
	}
	formats := []string{"md", "html", "csv"}
	here, apart := blobDir(t), blobDir(t)
	asOf := time.Date(2026, 4, 1, 6, 0, 0, 0, time.UTC)
	whole := &app.ReportJob{Desk: desk, Blobs: here, Renderer: bundle.Renderer{}, Formats: formats, TempDir: t.TempDir()}
	if err := whole.Generate(ctx, 2026, 3, "cn-example", asOf); err != nil {
		t.Fatal(err)
	}
	q := &itemList{}
	job := &app.ReportJob{Desk: desk, Blobs: apart, Renderer: bundle.Renderer{}, Formats: formats, TempDir: t.TempDir(), Parts: q, PartsWait: time.Hour}
	if err := job.Generate(ctx, 2026, 3, "cn-example", asOf); !errors.Is(err, app.ErrPending) {
		t.Fatalf("first run: err = %v, want the month pending", err)
	}
	if err := job.Generate(ctx, 2026, 3, "cn-example", asOf); !errors.Is(err, app.ErrPending) {
		t.Fatalf("a run before any part: err = %v, want the month pending", err)
	}
	if len(q.items) == 0 || len(q.items) > 10 {
		t.Fatalf("%d work items sent, want one a node (the same ones once)", len(q.items))
	}
	// The workers know the store, the terms and the blobs, nothing of the
	// job (its skipped node comes with the plan).
	worker := &app.FanOut{Books: app.Books{Store: st, Terms: tm}, Blobs: apart}
	for _, it := range q.items {
		if err := worker.Work(ctx, it); err != nil {
			t.Fatal(err)
		}
	}
	if err := job.Generate(ctx, 2026, 3, "cn-example", asOf); err != nil {
		t.Fatal(err)
	}
	var bundled bool
	for _, name := range []string{"report.json", "report.md", "report.html", "report.csv", "evidence.zip", "chain-head.txt"} {
		want, err := here.Get(ctx, "2026-03/cn-example/"+name)
		if err != nil {
			t.Fatal(err)
		}
		got, err := apart.Get(ctx, "2026-03/cn-example/"+name)
		if err != nil {
			t.Fatalf("%s built apart: %v", name, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s built apart differs from the one built here (%d bytes, want %d)", name, len(got), len(want))
		}
		bundled = bundled || (name == "evidence.zip" && len(got) > 0)
	}
	if !bundled {
		t.Fatal("no evidence bundle")
	}
	// The bundle was written without some nodes' observations.
	raw, err := apart.Get(ctx, "2026-03/cn-example/report.json")
	if err != nil {
		t.Fatal(err)
	}
	var r report.Report
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	nodes, err := st.ListNodes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	thin, full := app.BundleThin(&r, nodes), 0
	for _, n := range r.Nodes {
		if !thin[n.Node] {
			full++
		}
	}
	if full == 0 || full == len(r.Nodes) {
		t.Fatalf("%d of %d nodes' observations in the bundle's log: the thin log is not tested", full, len(r.Nodes))
	}
}
