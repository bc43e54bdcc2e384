package app_test

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/document"
	"github.com/gpusla/gpusla/infra/store/bolt"
	"github.com/gpusla/gpusla/infra/store/dynamo/dynamotest"
	"github.com/gpusla/gpusla/sla/billing"
	"github.com/gpusla/gpusla/sla/claims"
	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/i18n"
	"github.com/gpusla/gpusla/sla/report"
	"github.com/gpusla/gpusla/sla/scorecard"
	"github.com/gpusla/gpusla/sla/terms"
)

// The provider scorecard built from the store node by node is the one
// its months' exported log gives, byte for byte, in every form (JSON,
// Markdown, HTML) and with the claims ledger's recovery figures; so is the
// trial page (JSON, Markdown, both languages): on both stores, over two
// months (the fleet runs from late February into March), with a provider's
// bill judged, the skipped node left out as the job leaves it or named as
// the command names it, on one worker and on several.
func TestStoreScorecardIsTheLogs(t *testing.T) {
	onBothStores(t, testStoreScorecard)
}

// onBothStores runs test on a bbolt store of twelve nodes and a DynamoDB
// one (dynalite) of eight: one of them (the eighth) slower than its
// siblings.
func onBothStores(t *testing.T, test func(t *testing.T, st booksStore, nodes int)) {
	t.Run("bolt", func(t *testing.T) {
		st, err := bolt.Open(filepath.Join(t.TempDir(), "gpusla.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		st.SetNoSync(true)
		test(t, st, 12)
	})
	t.Run("dynamo", func(t *testing.T) {
		st := dynamotest.NewStore(t)
		t.Cleanup(func() { st.Close() })
		test(t, st, 8)
	})
}

func testStoreScorecard(t *testing.T, st booksStore, nodes int) {
	tm := booksFleet(t, st, nodes)
	bill, err := billing.ParseCSV("bill.csv", strings.NewReader("node,period,billed_hours,amount\ngz-00001,2026-03,744,110112.00\ngz-00003,2026-02,80,11840.00\n"))
	if err != nil {
		t.Fatal(err)
	}
	ledger := scorecardLedger(t, tm[0])
	for _, c := range []struct {
		name    string
		skip    map[string]string
		asOf    time.Time
		workers int
		bill    []billing.Line
	}{
		{"after the months, skipped node left out, a bill", map[string]string{"xx-1": "nowhere"}, time.Date(2026, 4, 2, 6, 0, 0, 0, time.UTC), 3, bill},
		{"inside March, every node", nil, time.Date(2026, 3, 20, 0, 0, 0, 0, time.UTC), 1, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := scorecard.Options{From: scorecard.Month{Year: 2026, Month: 2}, To: scorecard.Month{Year: 2026, Month: 3}, AsOf: c.asOf, Bill: c.bill}
			bk := app.Books{Store: st, Status: st, Terms: tm, Workers: c.workers, Skip: c.skip}
			want := logScorecard(t, st, tm, c.skip, o)
			want.AddClaims(ledger, map[string]claims.Deadlines{tm[0].Contract: claims.DeadlinesOf(tm[0])}, c.asOf)
			got, reps, err := bk.Scorecard(t.Context(), o)
			if err != nil {
				t.Fatal(err)
			}
			got.AddClaims(ledger, map[string]claims.Deadlines{tm[0].Contract: claims.DeadlinesOf(tm[0])}, c.asOf)
			for _, f := range []string{"json", "md", "html"} {
				sameDocument(t, "scorecard "+f, func(sc *scorecard.Scorecard) func(*bytes.Buffer) error {
					return func(w *bytes.Buffer) error { return document.RenderScorecard(w, sc, f) }
				}, want, got)
			}
			// Each month's report, built with the others from one read of
			// each node's records, is the month's books built alone.
			for _, r := range reps {
				m, _ := time.Parse("2006-01", r.Month)
				alone, err := bk.Month(t.Context(), m.Year(), m.Month(), c.asOf)
				if err != nil {
					t.Fatal(err)
				}
				var a, g bytes.Buffer
				if err := report.JSON(&a, alone); err != nil {
					t.Fatal(err)
				}
				if err := report.JSON(&g, r); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(a.Bytes(), g.Bytes()) {
					t.Fatalf("the scorecard's %s differs from the month's books built alone:\n--- alone\n%.2000s\n--- scorecard's\n%.2000s", r.Month, a.Bytes(), g.Bytes())
				}
			}
			// The scorecard is what it claims to be: both months, the fleet's
			// nodes, the fleet comparison, the bill and the claims.
			if len(reps) != 2 || reps[1].Month != "2026-03" || len(got.Providers) != 1 || got.Providers[0].Nodes < nodes-1 ||
				got.Events == 0 || len(got.Fleet.Findings) == 0 || got.Providers[0].Claims == nil {
				t.Fatalf("a thin scorecard: %d reports, %d providers, %d events, fleet %+v", len(reps), len(got.Providers), got.Events, got.Fleet)
			}
			o.Trial = true
			wantTrial := logTrial(t, st, tm, c.skip, o)
			gotTrial, _, err := bk.Trial(t.Context(), o)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{"json", "md"} {
				for _, lang := range []i18n.Lang{i18n.EN, i18n.ZH} {
					sameDocument(t, "trial "+f, func(tr *scorecard.Trial) func(*bytes.Buffer) error {
						return func(w *bytes.Buffer) error { return document.RenderTrial(w, tr, f, lang) }
					}, wantTrial, gotTrial)
				}
			}
		})
	}
}

// sameDocument fails unless a and b render to the same bytes.
func sameDocument[T any](t *testing.T, what string, render func(T) func(*bytes.Buffer) error, a, b T) {
	t.Helper()
	var wa, wb bytes.Buffer
	if err := render(a)(&wa); err != nil {
		t.Fatal(err)
	}
	if err := render(b)(&wb); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(wa.Bytes(), wb.Bytes()) {
		t.Fatalf("%s from the store differs from the log's:\n--- log\n%.3000s\n--- store\n%.3000s", what, wa.Bytes(), wb.Bytes())
	}
}

// scorecardLedger is one claim of the contract's February, sent.
func scorecardLedger(t *testing.T, tm *terms.Terms) []claims.Claim {
	t.Helper()
	end := time.Date(2026, 3, 1, 0, 0, 0, 0, tm.Calendar.Loc)
	c, err := claims.New(claims.Draft{Contract: tm.Contract, Provider: tm.Provider, Month: "2026-02", Amount: 120000, Currency: tm.Currency, Deadline: end.AddDate(0, 1, 0),
		TimeZone: tm.Calendar.Loc.String(), Seal: claims.Seal{ObservationsSHA256: "aa", ChainHead: "bb"}, MonthEnd: end, AsOf: end})
	if err != nil {
		t.Fatal(err)
	}
	if c, _, err = c.Send(claims.Sent{At: end.AddDate(0, 0, 3), Via: "email"}, end.AddDate(0, 0, 3)); err != nil {
		t.Fatal(err)
	}
	return []claims.Claim{c}
}

// exportLog is the log of [from, to) as the job's export writes it: every
// node, ticket and status page, without the skipped nodes.
func exportLog(t *testing.T, st booksStore, skip map[string]string, from, to time.Time) *bytes.Buffer {
	t.Helper()
	ctx := context.Background()
	var buf bytes.Buffer
	w := events.NewWriter(&buf)
	emit := app.SkipFilter(skip, w.Write)
	if _, err := app.Export(ctx, st, app.ExportSelect{From: from, To: to}, emit); err != nil {
		t.Fatal(err)
	}
	if _, err := app.ExportTickets(ctx, st, emit); err != nil {
		t.Fatal(err)
	}
	if _, err := app.ExportProviderStatus(ctx, st, from, to, w.Write); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return &buf
}

func logBuilder(t *testing.T, st booksStore, tm []*terms.Terms, skip map[string]string, o scorecard.Options) *scorecard.Builder {
	t.Helper()
	b, err := scorecard.NewBuilder(tm, o)
	if err != nil {
		t.Fatal(err)
	}
	from, _ := report.Window(o.From.Year, o.From.Month)
	_, to := report.Window(o.To.Year, o.To.Month)
	if err := b.ReadLog("export", exportLog(t, st, skip, from, to)); err != nil {
		t.Fatal(err)
	}
	return b
}

func logScorecard(t *testing.T, st booksStore, tm []*terms.Terms, skip map[string]string, o scorecard.Options) *scorecard.Scorecard {
	t.Helper()
	sc, err := logBuilder(t, st, tm, skip, o).Build()
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func logTrial(t *testing.T, st booksStore, tm []*terms.Terms, skip map[string]string, o scorecard.Options) *scorecard.Trial {
	t.Helper()
	tr, err := logBuilder(t, st, tm, skip, o).BuildTrial()
	if err != nil {
		t.Fatal(err)
	}
	return tr
}
