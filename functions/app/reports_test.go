package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/app/apptest"
	"github.com/gpusla/gpusla/functions/bundle"
	"github.com/gpusla/gpusla/functions/wiring"
	"github.com/gpusla/gpusla/infra/blob"
	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/infra/store/bolt"
	"github.com/gpusla/gpusla/sla/report"
)

// poster records the notices a channel got: the months' reports (files)
// and the claim reminders (texts, as plain text); fail makes it refuse.
type poster struct {
	mu    sync.Mutex
	files []notify.Notice
	texts []string
	// letters are the files claim alerts carried (nil: none).
	letters []*notify.File
	fail    error
}

func (p *poster) PostNotice(_ context.Context, n notify.Notice) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fail != nil {
		return p.fail
	}
	if n.Kind == notify.NoticeReport {
		p.files = append(p.files, n)
	} else {
		p.texts = append(p.texts, n.PlainText())
	}
	if n.Kind == notify.NoticeClaimOverdue {
		p.letters = append(p.letters, n.File)
	}
	return nil
}

// reportDesk is a store and a ticket desk on the example terms, its clock
// at the start of December in New York.
func reportDesk(t *testing.T) (*bolt.Store, *app.TicketDesk) {
	t.Helper()
	st, desk, _ := reportDeskClock(t)
	return st, desk
}

// reportDeskClock is reportDesk with its service's clock.
func reportDeskClock(t *testing.T) (*bolt.Store, *app.TicketDesk, *apptest.Clock) {
	t.Helper()
	st, err := bolt.Open(filepath.Join(t.TempDir(), "gpusla.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	desk, clock := reportDeskOn(t, st)
	return st, desk, clock
}

// reportDeskOn is a ticket desk on the example terms over st, its clock
// at 1 December 2026 00:00 New York.
func reportDeskOn(t *testing.T, st store.Store) (*app.TicketDesk, *apptest.Clock) {
	t.Helper()
	clock := apptest.NewClock(ny(t, "2026-12-01 00:00:00"))
	svc, err := app.New(app.Config{Store: st, Notifier: &apptest.Notifier{}, Box: apptest.Box(t), Clock: clock, Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	book, err := wiring.LoadTerms("../../testdata/terms")
	if err != nil {
		t.Fatal(err)
	}
	desk, err := svc.Tickets(book)
	if err != nil {
		t.Fatal(err)
	}
	return desk, clock
}

// The monthly job over a November with one node on the US contract that
// was down for ten hours: nothing before the delay after midnight New York
// time, then every format, the bundle and one Slack post; nothing twice;
// reminders 7 and 2 days before the claim deadline and on its last day, once each.
func TestReportJobSchedule(t *testing.T) {
	ctx := context.Background()
	st, desk := reportDesk(t)
	tenHourOutage(t, st)
	blobs, err := blob.NewDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p := &poster{}
	job := &app.ReportJob{Desk: desk, Blobs: blobs, Notices: app.OneChannel{Poster: p}, Renderer: bundle.Renderer{}, Delay: 6 * time.Hour, TempDir: t.TempDir(),
		Log: slog.New(slog.DiscardHandler)}

	run := func(at time.Time) app.ReportRun {
		t.Helper()
		res, err := job.Run(ctx, at)
		if err != nil {
			t.Fatalf("run at %s: %v", at, err)
		}
		return res
	}
	// 03:00 in New York: Shanghai's December began 16 hours ago (its empty
	// November is written, nothing posted); New York's delay has not passed.
	res := run(ny(t, "2026-12-01 03:00:00"))
	if strings.Join(res.Generated, ",") != "2026-11/cn-example" || len(p.files) != 0 {
		t.Fatalf("before the delay: %+v, %d posts", res, len(p.files))
	}
	res = run(ny(t, "2026-12-01 07:00:00"))
	if strings.Join(res.Generated, ",") != "2026-11/us-example" || strings.Join(res.Posted, ",") != "2026-11/us-example" {
		t.Fatalf("after the delay: %+v", res)
	}
	for _, f := range []string{"report.json", "report.html", "report.pdf", "report.md", "report.csv", "evidence.zip", "chain-head.txt", "posted.txt"} {
		if _, err := blobs.Get(ctx, "2026-11/us-example/"+f); err != nil {
			t.Errorf("%s not stored: %v", f, err)
		}
	}
	if len(p.files) != 1 || p.files[0].File == nil || !bytes.HasPrefix(p.files[0].File.Data, []byte("%PDF-")) || p.files[0].File.Name != "gpusla-2026-11-us-example.pdf" {
		t.Fatalf("posted %+v", p.files)
	}
	sum := p.files[0].PlainText()
	// 10 h of 720 h: 98.6111 % → the 30 % tier of 8 GPUs × 3.20 × 721 h… minus the hours before delivery.
	if !strings.Contains(sum, "Claim ") || !strings.Contains(sum, "ny-01: claimable uptime 98.61") || !strings.Contains(sum, "chain head") ||
		!strings.Contains(sum, "2026-11/us-example/") {
		t.Fatalf("summary:\n%s", sum)
	}
	zb, _ := blobs.Get(ctx, "2026-11/us-example/evidence.zip")
	vr, err := bundle.Verify(bytes.NewReader(zb), int64(len(zb)))
	if err != nil || !vr.OK() || vr.Intervals != 1 {
		t.Fatalf("stored bundle: %v %+v", err, vr)
	}
	if res := run(ny(t, "2026-12-01 08:00:00")); len(res.Generated)+len(res.Posted)+len(res.Reminders) != 0 || len(p.files) != 1 {
		t.Fatalf("second run repeated work: %+v", res)
	}

	// Claim deadline: end of the second billing cycle, 2027-02-01 00:00 New York.
	if res := run(ny(t, "2027-01-24 23:00:00")); len(res.Reminders) != 0 {
		t.Fatalf("reminder too early: %+v", res)
	}
	if res := run(ny(t, "2027-01-25 00:30:00")); strings.Join(res.Reminders, ",") != "2026-11/us-example/7d" {
		t.Fatalf("7-day reminder: %+v", res)
	}
	if res := run(ny(t, "2027-01-26 00:30:00")); len(res.Reminders) != 0 {
		t.Fatalf("7-day reminder sent twice: %+v", res)
	}
	if res := run(ny(t, "2027-01-29 23:59:00")); len(res.Reminders) != 0 {
		t.Fatalf("2-day reminder too early: %+v", res)
	}
	if res := run(ny(t, "2027-01-30 00:30:00")); strings.Join(res.Reminders, ",") != "2026-11/us-example/2d" {
		t.Fatalf("2-day reminder: %+v", res)
	}
	// On the day: the deadline is 1 February 00:00 (exclusive), so the last
	// day to file is 31 January, and its reminder comes at its start.
	if res := run(ny(t, "2027-01-30 23:59:00")); len(res.Reminders) != 0 {
		t.Fatalf("day reminder too early: %+v", res)
	}
	if res := run(ny(t, "2027-01-31 00:00:00")); strings.Join(res.Reminders, ",") != "2026-11/us-example/day" {
		t.Fatalf("day reminder: %+v", res)
	}
	// At the deadline, the claim still a draft: no reminder, the one alert
	// that it expired unsent (TestUnsentClaimRemindedOnceEach).
	if res := run(ny(t, "2027-02-01 00:00:00")); len(res.Reminders) != 0 || strings.Join(res.ClaimAlerts, ",") != "us-example/2026-11 expired_unsent" {
		t.Fatalf("at the deadline: %+v", res)
	}
	if len(p.texts) != 4 || !strings.Contains(p.texts[0], "2027-02-01 00:00:00 (") || !strings.Contains(p.texts[3], "Claim deadline passed, never sent") {
		t.Fatalf("reminder texts %q", p.texts)
	}
	p.texts = p.texts[:3]
	// The text names the last day to file (the deadline is exclusive), in
	// the contract's zone.
	for _, txt := range p.texts {
		if !strings.Contains(txt, "Last day to file: 2027-01-31; the claim must be in before 2027-02-01 00:00:00 (") {
			t.Errorf("reminder does not name the last day to file: %s", txt)
		}
	}
	// The time left in words, to the hour (sent at 7 days, 2 days and 24
	// hours before the deadline), never Go's 168h0m0s.
	for i, left := range []string{"7 days left", "2 days left", "24 hours left"} {
		if !strings.Contains(p.texts[i], "; "+left+".") {
			t.Errorf("reminder %d does not say %q: %s", i, left, p.texts[i])
		}
	}
}

// tenHourOutage registers ny-01 on the US contract, ordered on 31 October,
// with two heartbeat runs around a ten-hour outage on 10 November.
func tenHourOutage(t *testing.T, st store.Store) {
	t.Helper()
	heardNY01(t, st, [][2]time.Time{{ny(t, "2026-10-31 10:00:00"), ny(t, "2026-11-10 02:00:00")}, {ny(t, "2026-11-10 12:00:00"), ny(t, "2026-12-01 06:00:00")}})
}

// heardNY01 registers ny-01 on the US contract, ordered 31 October 09:00
// New York, heard every 30 s through each of runs.
func heardNY01(t *testing.T, st store.Store, runs [][2]time.Time) {
	t.Helper()
	ctx := context.Background()
	ordered := ny(t, "2026-10-31 09:00:00")
	if err := st.CreateNode(ctx, store.Node{ID: "ny-01", Provider: "Example GPU Cloud Inc.", Contract: "us-example", OrderedAt: ordered,
		GPUModel: "H200", GPUCount: 8, HeartbeatInterval: 30 * time.Second, PushInterval: time.Minute, Grace: time.Minute, CreatedAt: ordered}); err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		n := int64(r[1].Sub(r[0])/(30*time.Second)) + 1
		if err := st.PutRun(ctx, store.HeartbeatRun{Node: "ny-01", From: r[0], To: r[1], Count: n, ReceivedFrom: r[0].Add(time.Second), ReceivedTo: r[1].Add(time.Second)}); err != nil {
			t.Fatal(err)
		}
	}
}

// A node whose contract no loaded terms define (its terms file removed)
// costs only itself: the job still writes every contract's month, and its
// result and log name the node and the contract; the node's ticket, whose
// later events name only the ticket, goes with it.
func TestReportJobSkipsNodeOfUnknownContract(t *testing.T) {
	ctx := context.Background()
	st, desk := reportDesk(t)
	ordered := ny(t, "2026-10-31 09:00:00")
	for _, n := range []store.Node{{ID: "ny-01", Contract: "us-example"}, {ID: "old-01", Contract: "retired-2025"}} {
		n.Provider, n.OrderedAt, n.GPUModel, n.GPUCount, n.CreatedAt = "Example GPU Cloud Inc.", ordered, "H200", 8, ordered
		n.HeartbeatInterval, n.PushInterval, n.Grace = 30*time.Second, time.Minute, time.Minute
		if err := st.CreateNode(ctx, n); err != nil {
			t.Fatal(err)
		}
		from, to := ny(t, "2026-10-31 10:00:00"), ny(t, "2026-12-01 06:00:00")
		if err := st.PutRun(ctx, store.HeartbeatRun{Node: n.ID, From: from, To: to, Count: int64(to.Sub(from)/(30*time.Second)) + 1,
			ReceivedFrom: from.Add(time.Second), ReceivedTo: to.Add(time.Second)}); err != nil {
			t.Fatal(err)
		}
	}
	opened := ny(t, "2026-11-10 09:00:00")
	if err := st.CreateTicket(ctx, store.Ticket{ID: "T-old", Node: "old-01", Contract: "retired-2025", Priority: "P1", Opened: opened, Open: true,
		Events: []store.TicketEvent{{Type: store.EventProviderResponded, At: opened.Add(time.Hour), RecordedAt: opened.Add(time.Hour)}}}); err != nil {
		t.Fatal(err)
	}
	res, blobs, logs := runMonthJob(t, desk)
	if strings.Join(res.Generated, ",") != "2026-11/cn-example,2026-11/us-example" {
		t.Fatalf("generated %v, want both contracts' months", res.Generated)
	}
	if len(res.Skipped) != 1 || !strings.Contains(res.Skipped[0], `node old-01: contract "retired-2025"`) {
		t.Fatalf("skipped %q, want old-01 and its contract named once", res.Skipped)
	}
	if !strings.Contains(logs, "node=old-01 contract=retired-2025") {
		t.Fatalf("the log does not name the node and contract:\n%s", logs)
	}
	raw, err := blobs.Get(ctx, "2026-11/us-example/report.json")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), `"ny-01"`) || strings.Contains(string(raw), "old-01") || strings.Contains(string(raw), "T-old") {
		t.Fatalf("us-example report should hold ny-01 and nothing of old-01:\n%.800s", raw)
	}
}

// namedChannels are NoticeChannels of named posters, each taking every
// notice (as channels do when no route narrows them).
type namedChannels map[string]*poster

func (c namedChannels) NoticeChannels(string, notify.Notice) []string {
	return slices.Sorted(maps.Keys(c))
}

func (c namedChannels) NoticePoster(name string) (notify.NoticePoster, bool) {
	p, ok := c[name]
	return p, ok
}

// TestReportNoticesReachEveryChannel: a team with Feishu and WeCom and no
// Slack gets the month's report and every claim reminder on each, in the
// contract's language (cn-example: zh); a channel that fails is retried
// alone on the next run, and the one that took a notice never gets it
// twice.
func TestReportNoticesReachEveryChannel(t *testing.T) {
	ctx := context.Background()
	st, desk := reportDesk(t)
	sh := func(s string) time.Time {
		loc, _ := time.LoadLocation("Asia/Shanghai")
		at, err := time.ParseInLocation("2006-01-02 15:04:05", s, loc)
		if err != nil {
			t.Fatal(err)
		}
		return at
	}
	ordered := sh("2026-10-31 09:00:00")
	if err := st.CreateNode(ctx, store.Node{ID: "gz-01", Provider: "示例算力云 Example Compute (Guangzhou)", Contract: "cn-example", OrderedAt: ordered,
		GPUModel: "H200", GPUCount: 8, HeartbeatInterval: 30 * time.Second, PushInterval: time.Minute, Grace: time.Minute, CreatedAt: ordered}); err != nil {
		t.Fatal(err)
	}
	for _, r := range [][2]time.Time{{sh("2026-10-31 10:00:00"), sh("2026-11-10 02:00:00")}, {sh("2026-11-10 12:00:00"), sh("2026-12-01 12:00:00")}} {
		n := int64(r[1].Sub(r[0])/(30*time.Second)) + 1
		if err := st.PutRun(ctx, store.HeartbeatRun{Node: "gz-01", From: r[0], To: r[1], Count: n, ReceivedFrom: r[0].Add(time.Second), ReceivedTo: r[1].Add(time.Second)}); err != nil {
			t.Fatal(err)
		}
	}
	blobs, err := blob.NewDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	feishu, wecom := &poster{}, &poster{fail: errors.New("wecom: 45009 over the limit")}
	job := &app.ReportJob{Desk: desk, Blobs: blobs, Notices: namedChannels{"ops-feishu": feishu, "team-wecom": wecom}, Renderer: bundle.Renderer{},
		Formats: []string{"pdf"}, Delay: 6 * time.Hour, TempDir: t.TempDir(), Log: slog.New(slog.DiscardHandler)}
	res, err := job.Run(ctx, sh("2026-12-01 07:00:00"))
	if err == nil || !strings.Contains(err.Error(), `channel "team-wecom": wecom: 45009`) || strings.Join(res.Posted, ",") != "2026-11/cn-example" {
		t.Fatalf("first run: %+v, %v; want Feishu posted and WeCom's failure named", res, err)
	}
	wecom.fail = nil
	if res, err := job.Run(ctx, sh("2026-12-01 08:00:00")); err != nil || strings.Join(res.Posted, ",") != "2026-11/cn-example" {
		t.Fatalf("retry: %+v, %v", res, err)
	}
	if res, err := job.Run(ctx, sh("2026-12-01 09:00:00")); err != nil || len(res.Posted) != 0 {
		t.Fatalf("third run posted again: %+v, %v", res, err)
	}
	for name, p := range map[string]*poster{"feishu": feishu, "wecom": wecom} {
		if len(p.files) != 1 {
			t.Fatalf("%s got %d reports, want 1", name, len(p.files))
		}
		text := p.files[0].PlainText()
		for _, want := range []string{"2026年11月 SLA 违约报告", "索赔金额：", "gz-01：可索赔可用率", "（北京时间）", "2026-11/cn-example/"} {
			if !strings.Contains(text, want) {
				t.Errorf("%s's report notice lacks %q:\n%s", name, want, text)
			}
		}
	}
	// Every reminder on both channels, in Chinese.
	deadline, err := time.Parse(time.RFC3339, mustContract(t, blobs, "2026-11/cn-example").ClaimDeadline)
	if err != nil {
		t.Fatal(err)
	}
	for _, before := range []time.Duration{7 * 24 * time.Hour, 2 * 24 * time.Hour, 0} {
		at := deadline.Add(-before).Add(time.Minute)
		if before == 0 {
			at = deadline.Add(-time.Hour)
		}
		if _, err := job.Run(ctx, at); err != nil {
			t.Fatal(err)
		}
	}
	for name, p := range map[string]*poster{"feishu": feishu, "wecom": wecom} {
		if len(p.texts) != 3 {
			t.Fatalf("%s got %d reminders, want 3: %q", name, len(p.texts), p.texts)
		}
		for _, txt := range p.texts {
			if !strings.Contains(txt, "索赔截止提醒") || !strings.Contains(txt, "最后提交日：") {
				t.Errorf("%s reminder not in the contract's language: %s", name, txt)
			}
		}
	}
}

func mustContract(t *testing.T, blobs *blob.Dir, prefix string) report.Contract {
	t.Helper()
	raw, err := blobs.Get(context.Background(), prefix+"/report.json")
	if err != nil {
		t.Fatal(err)
	}
	var r report.Report
	if err := json.Unmarshal(raw, &r); err != nil || len(r.Contracts) != 1 {
		t.Fatalf("%s: %v", prefix, err)
	}
	return r.Contracts[0]
}
