package serve

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/app/apptest"
	"github.com/gpusla/gpusla/functions/httpapi"
	"github.com/gpusla/gpusla/functions/wiring"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/infra/store/bolt"
)

// TestServeTicketRoutes: what `gpusla serve` wires — the ticket API on the
// same mux as ingest, the Slack endpoints only with a signing secret, terms
// from <data>/terms — answers like the Lambda would.
func TestServeTicketRoutes(t *testing.T) {
	data := t.TempDir()
	if err := os.MkdirAll(filepath.Join(data, "terms"), 0o700); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile("../../testdata/terms/cn-example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, "terms", "cn.yaml"), raw, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv(wiring.EnvTerms, "")
	log := slog.New(slog.DiscardHandler)
	st, svc := testService(t, data, log)
	if err := st.CreateNode(t.Context(), store.Node{ID: "gz-01", Provider: "acme", Contract: "cn-example", GPUCount: 8, OrderedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	_, token, err := app.CreateAPIKey(t.Context(), st, "test", []string{"tickets"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}

	for _, secret := range []string{"", "s3cret"} {
		t.Setenv(wiring.EnvSlackSigningSecret, secret)
		api := httpapi.New(svc, log)
		td, err := setupTickets(svc, api, wiring.FromEnv(), data, nil, log)
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(api)
		req, _ := http.NewRequest("POST", srv.URL+httpapi.PathTickets, bytes.NewBufferString(`{"node":"gz-01","priority":"P2","provider_ref":"X-1"}`))
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var v httpapi.TicketView
		_ = json.NewDecoder(resp.Body).Decode(&v)
		resp.Body.Close()
		if resp.StatusCode != http.StatusCreated || v.Timing == nil || v.Timing.TimeZone != "Asia/Shanghai" {
			t.Fatalf("open through serve's mux: %d %+v", resp.StatusCode, v)
		}
		sresp, err := http.Post(srv.URL+"/slack/commands", "application/x-www-form-urlencoded", strings.NewReader("command=%2Fgpusla"))
		if err != nil {
			t.Fatal(err)
		}
		sresp.Body.Close()
		want := http.StatusNotFound // not served without a signing secret
		if secret != "" {
			want = http.StatusUnauthorized // served, and unsigned requests are refused
		}
		if sresp.StatusCode != want {
			t.Fatalf("slack endpoint with secret %q: %d, want %d", secret, sresp.StatusCode, want)
		}
		if _, err := app.MinuteTick(svc, td.desk, nil)(t.Context()); err != nil {
			t.Fatal(err)
		}
		td.close()
		srv.Close()
	}
}

// The report job serve runs stores the scorecard of GPUSLA_SCORECARD_MONTHS
// months (default 3); a bad value stops serve before it opens anything,
// naming the variable and the value.
func TestServeScorecardMonths(t *testing.T) {
	data := t.TempDir()
	log := slog.New(slog.DiscardHandler)
	st, svc := testService(t, data, log)
	desk, err := svc.Tickets(app.TermsBook{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		v    string
		want int
	}{{"", app.DefaultScorecardMonths}, {"0", 0}, {"12", 12}} {
		job, err := setupReports(wiring.Env{ScorecardMonths: c.v, StatusToken: "tok-0123456789abcdef"}, data, st, desk, httpapi.New(svc, log), wiring.Alerts{}, log)
		if err != nil || job.ScorecardMonths != c.want {
			t.Errorf("%q: %+v %v, want %d months", c.v, job, err, c.want)
		}
	}
	bad := wiring.Env{ScorecardMonths: "quarterly"}
	err = Run(t.Context(), Config{Listen: "127.0.0.1:0", Data: t.TempDir()}, bad, true, log)
	if err == nil || !strings.Contains(err.Error(), wiring.EnvScorecardMonths+`="quarterly"`) {
		t.Errorf("serve with %s=quarterly: %v", wiring.EnvScorecardMonths, err)
	}
}

// serve's log says where the status token came from: the environment when
// GPUSLA_STATUS_TOKEN is set (never "in data/status.token" then: an
// operator would look for the wrong secret), else the data folder's file; a short one stops serve.
func TestServeLogsTheTokenSource(t *testing.T) {
	data := t.TempDir()
	st, svc := testService(t, data, slog.New(slog.DiscardHandler))
	desk, err := svc.Tickets(app.TermsBook{})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(data, wiring.StatusTokenFile)
	for _, c := range []struct {
		env, want, not string
	}{
		{"env-token-0123456789", `token="in $GPUSLA_STATUS_TOKEN`, file},
		{"", `token="in ` + file, "GPUSLA_STATUS_TOKEN"},
	} {
		var out bytes.Buffer
		log := slog.New(slog.NewTextHandler(&out, nil))
		if _, err := setupReports(wiring.Env{StatusToken: c.env}, data, st, desk, httpapi.New(svc, log), wiring.Alerts{}, log); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), c.want) || strings.Contains(out.String(), c.not) {
			t.Errorf("token from %q: log\n%s\nwant %q and not %q", c.env, out.String(), c.want, c.not)
		}
	}
	if _, err := setupReports(wiring.Env{StatusToken: "a"}, data, st, desk, httpapi.New(svc, slog.New(slog.DiscardHandler)), wiring.Alerts{}, slog.New(slog.DiscardHandler)); err == nil ||
		!strings.Contains(err.Error(), "status token $GPUSLA_STATUS_TOKEN: shorter than 16 characters (it has 1)") {
		t.Errorf("GPUSLA_STATUS_TOKEN=a: %v", err)
	}
}

// testService is a service on a new embedded store in data, closed when
// the test ends.
func testService(t *testing.T, data string, log *slog.Logger) (*bolt.Store, *app.Service) {
	t.Helper()
	st, err := bolt.Open(filepath.Join(data, wiring.StoreFile))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc, err := app.New(app.Config{Store: st, Notifier: &apptest.Notifier{}, Box: apptest.Box(t), Log: log})
	if err != nil {
		t.Fatal(err)
	}
	return st, svc
}
