package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/app/apptest"
	"github.com/gpusla/gpusla/functions/bundle"
	"github.com/gpusla/gpusla/functions/statuspage"
	"github.com/gpusla/gpusla/functions/wiring"
	"github.com/gpusla/gpusla/infra/blob"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/infra/store/bolt"
	"github.com/gpusla/gpusla/sla/i18n"
	"github.com/gpusla/gpusla/sla/report"
	"github.com/gpusla/gpusla/sla/scorecard"
)

// scoreTerms writes two contracts in UTC, one per provider, from the US
// example's terms (business hours Monday to Friday 08:00-20:00; sev1
// answered within 1 h at any hour and resolved within 8 h; delivery within
// 2 h; billed per second from delivery). Alpha's nodes are on the public
// status page.
func scoreTerms(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile("../../testdata/terms/us-example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, c := range []struct{ id, provider, extra string }{
		{"alpha-c", "Alpha Compute", "\nstatus_page:\n  public: true\n  show: [gpus]\n"},
		{"beta-c", "Beta Cloud", ""},
	} {
		doc := string(raw)
		for _, r := range [][2]string{{"contract: us-example", "contract: " + c.id}, {"provider: Example GPU Cloud Inc.", "provider: " + c.provider},
			{"timezone: America/New_York ", "timezone: UTC "}} {
			if !strings.Contains(doc, r[0]) {
				t.Fatalf("us-example.yaml has no %q to replace", r[0])
			}
			doc = strings.Replace(doc, r[0], r[1], 1)
		}
		if err := os.WriteFile(filepath.Join(dir, c.id+".yaml"), []byte(doc+c.extra), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func utc(t *testing.T, s string) time.Time {
	t.Helper()
	at, err := time.Parse("2006-01-02 15:04", s)
	if err != nil {
		t.Fatal(err)
	}
	return at
}

// scoreFixture is the crafted two-provider backend: its store, desk and
// the instant the job runs.
type scoreFixture struct {
	st   *bolt.Store
	desk *app.TicketDesk
	now  time.Time
}

// twoProviders seeds the store with the scenario every figure of
// TestReportJobStoresTheScorecard is computed from by hand:
//
//   - six 8 × H200 nodes ordered 2026-02-02 00:00Z, heartbeating every 30 s
//     from delivery to 2026-04-01 06:00Z: Alpha's a1, a2, a3 delivered after
//     1 h, 1.5 h and 4 h (a3 is late: the target is 2 h), Beta's b1, b2, b3
//     after 0.5 h each;
//   - a1 silent from 2026-03-10 02:00 (its last heartbeat) to 12:00 (the
//     next): unreachable from one interval after the last, 02:00:30, to
//     12:00 — 35 970 s, counted;
//   - sev1 tickets opened on Saturdays (off-hours) at 10:00 and resolved
//     two hours later: Alpha's three on a1, a2, a3 (three machines, the
//     fewest ranked) answered after 20, 40 and 90
//     minutes (the last breaches the 1 h target), Beta's one on b1 after 10.
func twoProviders(t *testing.T) scoreFixture {
	t.Helper()
	ctx := context.Background()
	st, err := bolt.Open(filepath.Join(t.TempDir(), "gpusla.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	now := utc(t, "2026-04-01 07:00")
	svc, err := app.New(app.Config{Store: st, Notifier: &apptest.Notifier{}, Box: apptest.Box(t), Clock: apptest.NewClock(now), Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	book, err := wiring.LoadTerms(scoreTerms(t))
	if err != nil {
		t.Fatal(err)
	}
	desk, err := svc.Tickets(book)
	if err != nil {
		t.Fatal(err)
	}
	ordered := utc(t, "2026-02-02 00:00")
	end := utc(t, "2026-04-01 06:00")
	run := func(node string, from, to time.Time) {
		t.Helper()
		if err := st.PutRun(ctx, store.HeartbeatRun{Node: node, From: from, To: to, Count: int64(to.Sub(from)/(30*time.Second)) + 1,
			ReceivedFrom: from.Add(time.Second), ReceivedTo: to.Add(time.Second)}); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []struct {
		id, provider, contract string
		delivery               time.Duration
	}{
		{"a1", "Alpha Compute", "alpha-c", time.Hour}, {"a2", "Alpha Compute", "alpha-c", 90 * time.Minute}, {"a3", "Alpha Compute", "alpha-c", 4 * time.Hour},
		{"b1", "Beta Cloud", "beta-c", 30 * time.Minute}, {"b2", "Beta Cloud", "beta-c", 30 * time.Minute}, {"b3", "Beta Cloud", "beta-c", 30 * time.Minute},
	} {
		if err := st.CreateNode(ctx, store.Node{ID: n.id, Provider: n.provider, Contract: n.contract, OrderedAt: ordered, CreatedAt: ordered,
			GPUModel: "H200", GPUCount: 8, HeartbeatInterval: 30 * time.Second, PushInterval: time.Minute, Grace: time.Minute}); err != nil {
			t.Fatal(err)
		}
		first := ordered.Add(n.delivery)
		if n.id == "a1" {
			run(n.id, first, utc(t, "2026-03-10 02:00"))
			run(n.id, utc(t, "2026-03-10 12:00"), end)
			continue
		}
		run(n.id, first, end)
	}
	for i, tk := range []struct {
		node, day string
		answer    time.Duration
	}{{"a1", "2026-03-07", 20 * time.Minute}, {"a2", "2026-03-14", 40 * time.Minute}, {"a3", "2026-03-21", 90 * time.Minute}, {"b1", "2026-03-07", 10 * time.Minute}} {
		at := utc(t, tk.day+" 10:00")
		if at.Weekday() != time.Saturday {
			t.Fatalf("%s is not a Saturday", tk.day)
		}
		opened, _, err := desk.Open(ctx, app.OpenRequest{Node: tk.node, Priority: "sev1", Summary: "test ticket", At: at, By: "test", Key: fmt.Sprint("k", i)})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range []app.EventRequest{{Type: "provider_responded", At: at.Add(tk.answer), Key: "r"}, {Type: "ticket_resolved", At: at.Add(2 * time.Hour), Key: "s"}} {
			if _, err := desk.Record(ctx, opened.ID, e); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := desk.Flush(ctx, opened.ID); err != nil {
			t.Fatal(err)
		}
	}
	return scoreFixture{st: st, desk: desk, now: now}
}

// near says whether a stored figure is the hand-computed one.
func near(got *float64, want float64) bool {
	return got != nil && math.Abs(*got-want) <= 1e-3*math.Max(1, math.Abs(want))
}

// The scheduled job stores the scorecard of the last ScorecardMonths months
// beside the month's report, in JSON, Markdown, HTML and PDF, built from the
// one export the report is built from; every headline figure here is
// computed by hand from the scenario (twoProviders), and the trailing
// window shows in the deliveries: they were in February, so a scorecard of
// March alone would have none. The Slack summary names the scorecard, and
// the status page's team view shows the stored comparison.
func TestReportJobStoresTheScorecard(t *testing.T) {
	ctx := context.Background()
	f := twoProviders(t)
	dir := t.TempDir()
	blobs, err := blob.NewDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	p := &poster{}
	job := &app.ReportJob{Desk: f.desk, Blobs: blobs, Notices: app.OneChannel{Poster: p}, Renderer: bundle.Renderer{}, Delay: 6 * time.Hour, ScorecardMonths: 2,
		TempDir: t.TempDir(), Log: slog.New(slog.DiscardHandler)}
	res, err := job.Run(ctx, f.now)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(res.Generated, ",") != "2026-03/alpha-c,2026-03/beta-c" || len(res.ScorecardFailed) != 0 ||
		strings.Join(res.Scorecards, ",") != "2026-03/alpha-c 2026-02..2026-03,2026-03/beta-c 2026-02..2026-03" {
		t.Fatalf("run: %+v", res)
	}
	for _, name := range []string{"scorecard.json", "scorecard.md", "scorecard.html", "scorecard.pdf", "report.json", "report.pdf"} {
		if _, err := blobs.Get(ctx, "2026-03/alpha-c/"+name); err != nil {
			t.Errorf("%s not stored: %v", name, err)
		}
	}
	if pdf, _ := blobs.Get(ctx, "2026-03/alpha-c/scorecard.pdf"); !bytes.HasPrefix(pdf, []byte("%PDF-")) {
		t.Errorf("scorecard.pdf is not a PDF")
	}
	raw, err := blobs.Get(ctx, "2026-03/alpha-c/scorecard.json")
	if err != nil {
		t.Fatal(err)
	}
	var sc scorecard.Scorecard
	if err := json.Unmarshal(raw, &sc); err != nil {
		t.Fatal(err)
	}
	if sc.From != "2026-02" || sc.To != "2026-03" || len(sc.Providers) != 2 || sc.AsOf != "2026-04-01T07:00:00Z" {
		t.Fatalf("scorecard %s..%s as of %s, %d providers", sc.From, sc.To, sc.AsOf, len(sc.Providers))
	}
	cells := map[string]map[string]scorecard.Figure{} // provider → column → cell
	for _, r := range sc.Table.Rows {
		cells[r.Provider] = map[string]scorecard.Figure{}
		for i, c := range sc.Table.Columns {
			cells[r.Provider][c.Key] = r.Cells[i]
		}
	}
	alpha, beta := cells["Alpha Compute"], cells["Beta Cloud"]

	// Exposure: February has 672 h; from delivery to 1 March the nodes were
	// in service 648 h less their delivery time; March's 744 h whole.
	alphaHours := (648 - 1) + (648 - 1.5) + (648 - 4) + 3*744.0 // 4169.5 h
	alphaNodeMonths := ((648-1)+(648-1.5)+(648-4))/672 + 3      // 5.8832
	const outage = 35970.0                                      // a1's counted seconds
	for _, c := range []struct {
		name  string
		got   scorecard.Figure
		value float64
		n     int
		rank  int
	}{
		// Order to delivery p90 of 1, 1.5 and 4 h by linear interpolation:
		// 1.5 + 0.8 × (4 − 1.5) = 3.5 h; Beta's 0.5 h is better.
		{"alpha delivery p90", alpha["delivery.p90_hours"], 3.5, 3, 2},
		{"beta delivery p90", beta["delivery.p90_hours"], 0.5, 3, 1},
		// 599.5 claimable minutes over Alpha's node-months.
		{"alpha claimable outage", alpha["reliability.claimable_outage_minutes_per_node_month"], outage / 60 / alphaNodeMonths, 6, 2},
		{"beta claimable outage", beta["reliability.claimable_outage_minutes_per_node_month"], 0, 6, 1},
		// Billed per second from delivery; not usable: the outage.
		{"alpha billed not usable", alpha["billing.billed_not_usable_share"], outage / (alphaHours * 3600), 6, 2},
		{"beta billed not usable", beta["billing.billed_not_usable_share"], 0, 6, 1},
		// Off-hours first responses 20, 40, 90 min: p90 = 40 + 0.8 × 50.
		{"alpha off-hours p90", alpha["support.off_hours_first_response_p90_minutes"], 80, 3, 1},
		// One of three tickets past the 1 h target.
		{"alpha breach share", alpha["support.breach_share"], 1.0 / 3, 3, 1},
	} {
		if !near(c.got.Value, c.value) || c.got.N != c.n || c.got.Rank != c.rank || c.got.TooFew {
			v := "nil"
			if c.got.Value != nil {
				v = fmt.Sprint(*c.got.Value)
			}
			t.Errorf("%s: value %s n=%d rank %d/%d too_few=%v, want %.6g n=%d rank %d", c.name, v, c.got.N, c.got.Rank, c.got.Ranked, c.got.TooFew, c.value, c.n, c.rank)
		}
	}
	// Beta answered one ticket: shown, marked too few, not ranked — and so
	// Alpha is ranked first of one.
	for _, k := range []string{"support.off_hours_first_response_p90_minutes", "support.breach_share"} {
		if b := beta[k]; !b.TooFew || b.Rank != 0 || b.N != 1 || b.MinN != scorecard.MinTickets {
			t.Errorf("beta %s: %+v, want too few (n=1 < %d), unranked", k, b, scorecard.MinTickets)
		}
		if a := alpha[k]; a.Ranked != 1 {
			t.Errorf("alpha %s ranked of %d, want 1", k, a.Ranked)
		}
	}
	if b := beta["support.off_hours_first_response_p90_minutes"]; !near(b.Value, 10) {
		t.Errorf("beta off-hours p90 %v, want 10 min", b.Value)
	}
	// Nothing measured: no acceptance or network results in the store.
	if a := alpha["network.gateway_rtt_p99_ms"]; a.Value != nil || a.N != 0 || a.Rank != 0 {
		t.Errorf("gateway RTT with no results: %+v", a)
	}

	// The documents people read carry the scorecard as a section of the
	// report, over the trailing months; the json stays the report's form
	// (the scorecard is its own file beside it).
	for _, name := range []string{"report.md", "report.html"} {
		doc, _ := blobs.Get(ctx, "2026-03/alpha-c/"+name)
		if !strings.Contains(string(doc), "Provider scorecard February 2026 to March 2026") ||
			!strings.Contains(string(doc), "over these months beside the whole fleet") {
			t.Errorf("%s has no scorecard section over February to March", name)
		}
	}
	if js, _ := blobs.Get(ctx, "2026-03/alpha-c/report.json"); bytes.Contains(js, []byte(`"scorecard"`)) {
		t.Errorf("report.json carries the scorecard; it is scorecard.json's")
	}

	// The report is the month's report: the one `gpusla report` builds from
	// the same export alone.
	var stored report.Report
	js, _ := blobs.Get(ctx, "2026-03/alpha-c/report.json")
	if err := json.Unmarshal(js, &stored); err != nil {
		t.Fatal(err)
	}
	alone, _, err := f.desk.MonthReport(ctx, 2026, time.March, f.now, f.desk.RangeExport(utc(t, "2026-01-30 00:00"), utc(t, "2026-04-03 00:00")))
	if err != nil {
		t.Fatal(err)
	}
	want := app.ContractReport(alone, "alpha-c")
	if len(stored.Nodes) != 3 || len(want.Nodes) != 3 {
		t.Fatalf("stored report %d nodes, alone %d", len(stored.Nodes), len(want.Nodes))
	}
	for i := range want.Nodes {
		g, w := stored.Nodes[i], want.Nodes[i]
		if g.Node != w.Node || g.Uptime.ClaimableOutageSeconds != w.Uptime.ClaimableOutageSeconds || g.Credit.Amount != w.Credit.Amount {
			t.Errorf("stored report node %s: claimable %d s credit %v; alone %s: %d s %v", g.Node, g.Uptime.ClaimableOutageSeconds, g.Credit.Amount,
				w.Node, w.Uptime.ClaimableOutageSeconds, w.Credit.Amount)
		}
	}
	if stored.Nodes[0].Uptime.ClaimableOutageSeconds != int64(outage) {
		t.Errorf("a1's claimable outage %d s, want %d", stored.Nodes[0].Uptime.ClaimableOutageSeconds, int64(outage))
	}

	// The Slack summary points at it.
	var summary string
	for _, pf := range p.files {
		if pf.Contract == "alpha-c" {
			summary = pf.PlainText()
		}
	}
	if !strings.Contains(summary, "Provider scorecard February 2026 to March 2026 (2 providers compared): 2026-03/alpha-c/scorecard.html") {
		t.Errorf("summary does not name the scorecard:\n%s", summary)
	}

	// The status page's team view: the same comparison from the stored file.
	h := statuspage.New(statuspage.Config{Nodes: f.st, Terms: f.desk.Contract, Tickets: f.desk, Reports: blobs, Token: "t0ken-for-the-test",
		Now: func() time.Time { return f.now }})
	page, err := h.Build(ctx, statuspage.Request{Mode: statuspage.Private, Lang: i18n.EN})
	if err != nil {
		t.Fatal(err)
	}
	sv := page.Scorecard
	if sv == nil || len(sv.Rows) != 2 || len(sv.Columns) != len(sc.Table.Columns) {
		t.Fatalf("status page scorecard %+v (notes %v)", sv, page.Notes)
	}
	if sv.Title != "Provider scorecard February 2026 to March 2026" || sv.Zone != "UTC" || sv.AsOf != "2026-04-01 07:00:00 +00:00 UTC" {
		t.Errorf("status page scorecard %q in %s as of %q", sv.Title, sv.Zone, sv.AsOf)
	}
	col := map[string]int{}
	for i, c := range sv.Columns {
		col[c.Key] = i
	}
	row := map[string]statuspage.ScoreRow{}
	for _, r := range sv.Rows {
		row[r.Provider] = r
	}
	for _, c := range []struct {
		provider, key, text, rank string
		tooFew                    bool
	}{
		{"Alpha Compute", "delivery.p90_hours", "3.50 h (n=3)", "#2 of 2", false},
		{"Beta Cloud", "delivery.p90_hours", "0.50 h (n=3)", "#1 of 2", false},
		{"Alpha Compute", "support.off_hours_first_response_p90_minutes", "80.0 min (n=3)", "#1 of 1", false},
		{"Beta Cloud", "support.off_hours_first_response_p90_minutes", "10.0 min (too few: n=1 < 3)", "–", true},
		{"Alpha Compute", "reliability.claimable_outage_minutes_per_node_month", fmt.Sprintf("%.2f min per node-month (n=6)", outage/60/alphaNodeMonths), "#2 of 2", false},
	} {
		i, ok := col[c.key]
		if !ok {
			t.Fatalf("status page: no column %s", c.key)
		}
		got := row[c.provider].Cells[i]
		if got.Text != c.text || got.RankText != c.rank || got.TooFew != c.tooFew {
			t.Errorf("status page %s %s: %q %q too few %v, want %q %q %v", c.provider, c.key, got.Text, got.RankText, got.TooFew, c.text, c.rank, c.tooFew)
		}
	}
	// The public view has no comparison at all.
	pub, err := h.Build(ctx, statuspage.Request{Mode: statuspage.Public, Lang: i18n.EN})
	if err != nil {
		t.Fatal(err)
	}
	pj, _ := json.Marshal(pub)
	if pub.Scorecard != nil || bytes.Contains(pj, []byte("scorecard")) || bytes.Contains(pj, []byte("Beta Cloud")) || bytes.Contains(pj, []byte("3.50 h")) {
		t.Errorf("the public view shows the scorecard: %s", pj)
	}
}

// failingScorecard renders reports as the job's renderer does but fails
// one scorecard form, as a full disk or a broken font would.
type failingScorecard struct {
	bundle.Renderer
	format string
}

func (r failingScorecard) RenderScorecard(w io.Writer, sc *scorecard.Scorecard, format string, lang i18n.Lang) error {
	if format == r.format {
		return fmt.Errorf("%s renderer broke", format)
	}
	return r.Renderer.RenderScorecard(w, sc, format, lang)
}

// A scorecard that cannot be made never costs the month its report: every
// report form is stored, no scorecard form is (they are rendered before
// any is stored), the run names the failure and so does a file beside the
// report; the Slack post still goes out, without the scorecard line.
func TestScorecardFailureKeepsTheReport(t *testing.T) {
	ctx := context.Background()
	f := twoProviders(t)
	blobs, err := blob.NewDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p := &poster{}
	job := &app.ReportJob{Desk: f.desk, Blobs: blobs, Notices: app.OneChannel{Poster: p}, Renderer: failingScorecard{format: "pdf"}, Delay: 6 * time.Hour, ScorecardMonths: 3,
		TempDir: t.TempDir(), Log: slog.New(slog.DiscardHandler)}
	res, err := job.Run(ctx, f.now)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Generated) != 2 || len(res.Scorecards) != 0 || len(res.ScorecardFailed) != 2 ||
		res.ScorecardFailed[0] != "2026-03/alpha-c: render scorecard pdf: pdf renderer broke" || len(res.Posted) != 2 {
		t.Fatalf("run: %+v", res)
	}
	for _, name := range []string{"report.json", "report.html", "report.pdf", "report.md", "report.csv", "evidence.zip"} {
		if _, err := blobs.Get(ctx, "2026-03/alpha-c/"+name); err != nil {
			t.Errorf("%s not stored: %v", name, err)
		}
	}
	for _, name := range []string{"scorecard.json", "scorecard.md", "scorecard.html", "scorecard.pdf"} {
		if _, err := blobs.Get(ctx, "2026-03/alpha-c/"+name); !app.IsNotFound(err) {
			t.Errorf("%s stored although the scorecard failed (%v)", name, err)
		}
	}
	if msg, err := blobs.Get(ctx, "2026-03/alpha-c/scorecard-error.txt"); err != nil || !strings.Contains(string(msg), "pdf renderer broke") {
		t.Errorf("scorecard-error.txt: %q %v", msg, err)
	}
	for _, pf := range p.files {
		if strings.Contains(pf.PlainText(), "scorecard") {
			t.Errorf("summary names a scorecard that was not stored:\n%s", pf.PlainText())
		}
	}
}
