package statuspage

import (
	"bytes"
	"context"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/app/apptest"
	"github.com/gpusla/gpusla/functions/wiring"
	"github.com/gpusla/gpusla/infra/blob"
	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/infra/store/bolt"
	"github.com/gpusla/gpusla/internal/testenv"
)

const token = "s3cret-status-token"

// seeded is a backend with three nodes: one up, one unreachable for 40
// minutes, one with a degraded GPU; an open ticket; a stored report.
func seeded(t *testing.T) (*Handler, time.Time) {
	t.Helper()
	dir := t.TempDir()
	st, err := bolt.Open(filepath.Join(dir, "gpusla.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	box, err := app.NewAESGCMBox(bytes.Repeat([]byte{7}, 32))
	if err != nil {
		t.Fatal(err)
	}
	svc, err := app.New(app.Config{Store: st, Notifier: &apptest.Notifier{}, Box: box, Clock: apptest.NewClock(now)})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i, id := range []string{"sh-a100-01", "va-h200-07", "gz-h20-03"} {
		n := store.Node{ID: id, Provider: "Example GPU Cloud", Contract: "us-example", OrderedAt: now.AddDate(0, -4, 0),
			GPUModel: "H200", GPUCount: 8, HeartbeatInterval: 30 * time.Second, Grace: 90 * time.Second, CreatedAt: now.AddDate(0, -4, 0)}
		if err := st.CreateNode(ctx, n); err != nil {
			t.Fatal(err)
		}
		last := now.Add(-20 * time.Second)
		if i == 1 {
			last = now.Add(-40 * time.Minute)
		}
		s := store.NodeState{Node: id, LastReceivedAt: last, LastHeartbeatAt: last, FirstHeartbeatAt: now.AddDate(0, 0, -60-i*20)}
		if _, err := st.PutState(ctx, s, 0); err != nil {
			t.Fatal(err)
		}
	}
	incs := []store.Incident{
		{Node: "va-h200-07", Kind: "unreachable", Start: now.Add(-40*time.Minute + 30*time.Second), Counted: true, Cause: "no_data", Evidence: "no heartbeat since 11:20:00"},
		{Node: "va-h200-07", Kind: "unreachable", Start: now.AddDate(0, 0, -12), End: now.AddDate(0, 0, -12).Add(3 * time.Hour), Counted: true},
		{Node: "gz-h20-03", Kind: "gpu_degraded", Start: now.Add(-2 * time.Hour), Counted: false,
			Failed: []notify.FailedCheck{{Name: "gpu.xid", Category: "gpu_degraded", Verdict: "fail", Value: "xid 79"}}},
		{Node: "sh-a100-01", Kind: "gpu_lost", Start: now.AddDate(0, 0, -30), End: now.AddDate(0, 0, -30).Add(20 * time.Minute), Counted: true},
	}
	for _, inc := range incs {
		inc.ID = store.IncidentID(inc.Kind, inc.Start)
		if err := st.CreateIncident(ctx, inc); err != nil {
			t.Fatal(err)
		}
	}
	book, err := wiring.LoadTerms("../../testdata/terms")
	if err != nil {
		t.Fatal(err)
	}
	desk, err := svc.Tickets(book)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := desk.Open(ctx, app.OpenRequest{Node: "va-h200-07", Priority: "sev1", Summary: "node unreachable", At: now.Add(-35 * time.Minute), By: "test", Key: "k1"}); err != nil {
		t.Fatal(err)
	}
	reports, err := blob.NewDir(filepath.Join(dir, "reports"))
	if err != nil {
		t.Fatal(err)
	}
	if err := reports.Put(ctx, "2026-10/us-example/report.html", []byte("<!DOCTYPE html><title>October</title><p>report")); err != nil {
		t.Fatal(err)
	}
	return New(Config{Nodes: st, Tickets: desk, Reports: reports, Token: token, Now: func() time.Time { return now }}), now
}

func TestTokenRequired(t *testing.T) {
	h, _ := seeded(t)
	mux := http.NewServeMux()
	h.Register(mux)
	for _, c := range []struct {
		name, auth, query string
		want              int
	}{
		{"no token", "", "", 401},
		{"wrong token", "Bearer nope", "", 401},
		{"wrong query", "", "?token=nope", 401},
		{"bearer", "Bearer " + token, "", 200},
		{"query", "", "?token=" + token, 200},
	} {
		req := httptest.NewRequest("GET", PathStatus+c.query, nil)
		if c.auth != "" {
			req.Header.Set("Authorization", c.auth)
		}
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, req)
		if rec.Code != c.want {
			t.Errorf("%s: status %d, want %d", c.name, rec.Code, c.want)
		}
		if c.name == "query" && !strings.Contains(rec.Header().Get("Set-Cookie"), CookieName+"=") {
			t.Errorf("query token did not set the cookie")
		}
	}
	off := New(Config{Nodes: nil})
	rec := httptest.NewRecorder()
	off.ServeHTTP(rec, httptest.NewRequest("GET", PathStatus, nil))
	if rec.Code != http.StatusServiceUnavailable {
		t.Errorf("no token configured: status %d, want 503", rec.Code)
	}
	// Report download, and a name that tries to escape.
	req := httptest.NewRequest("GET", PathReports+"2026-10/us-example/report.html", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	rec = httptest.NewRecorder()
	mux.ServeHTTP(rec, req)
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), "October") {
		t.Errorf("report download: %d %q", rec.Code, rec.Body.String())
	}
	req = httptest.NewRequest("GET", PathReports+"..%2f..%2fetc/passwd", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	rec = httptest.NewRecorder()
	mux.ServeHTTP(rec, req)
	if rec.Code == 200 {
		t.Errorf("escaping name served: %d", rec.Code)
	}
}

func TestPageContent(t *testing.T) {
	h, _ := seeded(t)
	p, err := h.Build(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	states := map[string]string{}
	for _, n := range p.Nodes {
		states[n.ID] = n.State
		if len(n.Days) != Days {
			t.Errorf("%s: %d day bars, want %d", n.ID, len(n.Days), Days)
		}
	}
	if states["va-h200-07"] != "unreachable" || states["gz-h20-03"] != "degraded" || states["sh-a100-01"] != "up" {
		t.Fatalf("states %v", states)
	}
	if len(p.Incidents) != 2 || len(p.Tickets) != 1 || len(p.Reports) != 1 {
		t.Fatalf("incidents %d, tickets %d, reports %d", len(p.Incidents), len(p.Tickets), len(p.Reports))
	}
	tk := p.Tickets[0]
	// sev1: 1 h response, opened 35 min ago: 25 min left.
	if tk.Target != "response" || tk.Deadline.Sub(h.c.Now()) != 25*time.Minute {
		t.Fatalf("ticket deadline %+v", tk)
	}
	for _, n := range p.Nodes {
		if n.ID == "sh-a100-01" {
			d := n.Days[Days-1-30]
			if d.Class == "ok" || d.Percent > 99 {
				t.Errorf("the day of sh-a100-01's 20-minute GPU loss shows %+v", d)
			}
		}
	}
}

// The page in a real browser: headless Chromium loads it with the token,
// the DOM (after the script ran) shows the seeded nodes, incidents and the
// ticket timer, and a screenshot is taken.
func TestPageInHeadlessChromium(t *testing.T) {
	bin := testenv.Chromium(t)
	h, _ := seeded(t)
	mux := http.NewServeMux()
	h.Register(mux)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	url := srv.URL + PathStatus + "?token=" + token
	args := func(extra ...string) []string {
		return append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
			"--disable-component-update", "--disable-sync", "--no-first-run", "--user-data-dir=" + t.TempDir(),
			"--virtual-time-budget=3000"}, extra...)
	}
	run := func(a []string) []byte {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, a...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("chromium %v: %v\n%s", a, err, errb.String())
		}
		return out.Bytes()
	}
	dom := string(run(args("--dump-dom", url)))
	for _, want := range []string{"sh-a100-01", "va-h200-07", "gz-h20-03", `class="badge unreachable"`, "gpu_degraded", "xid 79",
		"2026-10/us-example/report.html", "node unreachable"} {
		if !strings.Contains(dom, want) {
			t.Errorf("page in chromium lacks %q", want)
		}
	}
	if strings.Count(dom, `<tr class="incident">`) != 2 || strings.Count(dom, `<tr class="ticket">`) != 1 {
		t.Errorf("want 2 incident rows and 1 ticket row")
	}
	// The timer script ran in the browser: it marks every timer it updated,
	// and the ticket's (a 1 h response target opened 35 min before the
	// page's clock) counts down from about 25 minutes.
	tm := regexp.MustCompile(`data-deadline="\d+" data-ticked="1">00h 2[45]m \d\ds left<`).FindString(dom)
	if tm == "" || strings.Count(dom, `data-ticked="1"`) < 3+2+1 {
		t.Errorf("timers did not tick in the browser:\n%s", dom)
	}
	shot := filepath.Join(t.TempDir(), "status.png")
	if dir := os.Getenv("GPUSLA_SCREENSHOT_DIR"); dir != "" {
		shot = filepath.Join(dir, "status-page.png")
	}
	run(args("--screenshot="+shot, "--window-size=1280,900", "--hide-scrollbars", url))
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot is not a PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 1280 || b.Dy() != 900 {
		t.Fatalf("screenshot %v, want 1280×900", b)
	}
	t.Logf("screenshot: %s", shot)
}
