// Package notifytest is the one contract suite of the alert channels: Run
// drives a notifier against a local receiver (httptest on 127.0.0.1) that
// plays the real service — it checks every request the way the service's
// documentation says the service does (signature recomputed here, not with
// the adapter's code; JSON shape; message format; credential in the URL),
// answers the way the service answers (HTTP 200 with an error code, 429),
// and records what a reader would see. The cases are the same for every
// channel: alert, recovery quoting its incident, ticket message, user text
// made inert, a wrong secret refused, rate-limit answers waited out, a
// persistent limit left pending, the client-side quota, and no credential in
// errors. Time is a manual clock that the notifier's sleeps advance, so no
// case depends on how fast the machine is.
package notifytest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/notify/robot"
)

// Answer is a response the receiver gives.
type Answer struct {
	Status int
	Header http.Header
	Body   string
}

// Service is the behaviour of one real service.
type Service interface {
	// URL is the webhook URL on the receiver at base, with its credential.
	URL(base string) string
	// Secret is the signing secret the receiver expects ("" if none).
	Secret() string
	// Check verifies a request as the service does: nil reject means
	// accepted, and seen is what its readers see (the message text and
	// its link buttons).
	Check(r *http.Request, body []byte, now time.Time) (seen Seen, reject *Answer)
	OK() Answer
	RateLimited() Answer
	// Failure is an answer that is neither success nor "later" (for a
	// robot: HTTP 200 with a non-zero code).
	Failure() Answer
	// Markdown says whether shown is markdown (user text must be inert).
	Markdown() bool
	// Credential is the part of the URL that is a secret.
	Credential() string
}

// Case is one channel under test.
type Case struct {
	Service Service
	// New builds the notifier for url and secret and returns it with its
	// poster (the suite sets its clock, sleep and client).
	New func(url, secret string) (notify.Notifier, *robot.Poster, error)
	// Limits are the client-side quotas the notifier must keep.
	Limits []robot.Limit
}

// NewClock is a manual clock at t.
func NewClock(t time.Time) *Clock { return &Clock{now: t} }

// Clock is the manual time of a case: Sleep advances it.
type Clock struct {
	mu    sync.Mutex
	now   time.Time
	Slept []time.Duration
}

// Now returns the clock's time.
func (c *Clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

// Sleep advances the clock by d at once.
func (c *Clock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	c.Slept = append(c.Slept, d)
	return nil
}

// Seen is what a message shows its readers.
type Seen struct {
	Text    string
	Buttons []Button
}

// Button is a link button as the service shows it (a card or actionCard
// button, a markdown link, the webhook's replacement_url).
type Button struct{ Label, URL string }

// Request is one request the receiver accepted or refused.
type Request struct {
	At       time.Time // the clock's time when it arrived
	Shown    string
	Buttons  []Button
	Header   http.Header
	Accepted bool
	// OverQuota: refused because it came past the service's quota.
	OverQuota bool
}

// overQuotaLocked says whether a message accepted at now would put more
// than a limit's N accepted messages within one closed window of its Per,
// the strictest reading of "N per Per": the service then refuses it with
// its rate-limit answer, as the real one does.
func (r *Receiver) overQuotaLocked(now time.Time) bool {
	for _, l := range r.limits {
		n := 1
		for _, q := range r.reqs {
			if q.Accepted && now.Sub(q.At) <= l.Per {
				n++
			}
		}
		if n > l.N {
			return true
		}
	}
	return false
}

// Receiver is the local stand-in of the service.
type Receiver struct {
	svc    Service
	limits []robot.Limit // the quotas the service enforces, as the real one does
	clock  *Clock
	mu     sync.Mutex
	script []Answer // answers to give before the service's own, in order
	reqs   []Request
	srv    *httptest.Server
}

// NewReceiver starts the stand-in of svc enforcing limits on clock's time
// (other packages' tests: functions/app's burst through the outbox).
func NewReceiver(t *testing.T, svc Service, limits []robot.Limit, clock *Clock) *Receiver {
	return newReceiver(t, svc, limits, clock)
}

// URL is the webhook URL of the receiver's service; Client reaches it.
func (r *Receiver) URL() string          { return r.svc.URL(r.srv.URL) }
func (r *Receiver) Client() *http.Client { return r.srv.Client() }

func newReceiver(t *testing.T, svc Service, limits []robot.Limit, clock *Clock) *Receiver {
	r := &Receiver{svc: svc, limits: limits, clock: clock}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve)) // listens on 127.0.0.1
	t.Cleanup(r.srv.Close)
	return r
}

func (r *Receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	now := r.clock.Now()
	seen, reject := r.svc.Check(req, body, now)
	r.mu.Lock()
	ans := r.svc.OK()
	overQuota := false
	switch {
	case reject != nil:
		ans = *reject
	case len(r.script) > 0:
		ans, r.script = r.script[0], r.script[1:]
	case r.overQuotaLocked(now):
		ans, overQuota = r.svc.RateLimited(), true
	}
	r.reqs = append(r.reqs, Request{At: now, Shown: seen.Text, Buttons: seen.Buttons, Header: req.Header.Clone(),
		Accepted: reject == nil && ans.Status/100 == 2 && ans.Body == r.svc.OK().Body, OverQuota: overQuota})
	r.mu.Unlock()
	for k, v := range ans.Header {
		w.Header()[k] = v
	}
	if w.Header().Get("Content-Type") == "" && ans.Body != "" {
		w.Header().Set("Content-Type", "application/json")
	}
	w.WriteHeader(ans.Status)
	io.WriteString(w, ans.Body)
}

func (r *Receiver) then(a ...Answer) { r.mu.Lock(); r.script = append(r.script, a...); r.mu.Unlock() }

// Requests returns what arrived so far.
func (r *Receiver) Requests() []Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Request(nil), r.reqs...)
}

var t0 = time.Date(2026, 11, 30, 10, 0, 30, 0, time.UTC)

func gpu(i int) *int { return &i }

// replacementURL is a link as functions/actionlink signs them.
const replacementURL = "https://gpusla.example.com/v1/actions/replacement?exp=1764756030&incident=gpu_lost%4020261130T100030.000Z&node=gz-01&sig=Q2hlY2tlZCBieSB0aGUgYWN0aW9uIGxpbmsgdGVzdHM"

// Alerts of the suite. The node id and evidence carry markup that must not
// take effect in any dialect: a mention of everyone, bold, a link, a code
// span, a heading.
const hostile = "**pwn** <at id=all></at> <@all> <!channel> [click](https://evil.example) `x`"

func opening() notify.Alert {
	return notify.Alert{Kind: notify.AlertDegraded, Node: "gz-01", Provider: "acme_gpu", IncidentID: "gpu_lost@20261130T100030.000Z",
		IncidentKind: "gpu_lost", Since: t0, Counted: true,
		Failed: []notify.FailedCheck{{Name: "gpu.count", Category: "gpu_lost", Verdict: "fail", Value: "7", Criterion: "8", GPU: gpu(3), Since: t0}},
		Detail: "confirmed by 2 consecutive failures\n# " + hostile}
}

func recovered() notify.Alert {
	a := opening()
	a.Kind, a.Until, a.Duration, a.Failed, a.Detail = notify.AlertRecovered, t0.Add(4*time.Minute+40*time.Second), 4*time.Minute+40*time.Second, nil, ""
	return a
}

// overdue and delivered are a node's delivery alerts: ordered at t0 with a
// 30-minute target, not delivered by then, delivered 1h35m late.
func overdue() notify.Alert {
	return notify.Alert{Kind: notify.AlertDeliveryOverdue, Node: "gz-01", Provider: "acme_gpu", IncidentID: "delivery@20261130T100030.000Z",
		IncidentKind: notify.DeliveryKind, Since: t0, Until: t0.Add(30 * time.Minute), Duration: 30 * time.Minute,
		Detail: "Not delivered yet: 1m0s late so far. " + hostile}
}

func delivered() notify.Alert {
	a := overdue()
	a.Kind, a.Until, a.Duration, a.Detail = notify.AlertDelivered, t0.Add(2*time.Hour+5*time.Minute), time.Hour+35*time.Minute, "Delivered at the first passing acceptance check"
	return a
}

func ticketMsg() notify.TicketMessage {
	return notify.TicketMessage{Kind: notify.TicketBreached, Ticket: "T-0042", Node: "gz-01", Provider: "acme_gpu", Opened: t0,
		Text: "first response due 2026-11-30 12:00 CST passed unmet\n- " + hostile}
}

// notice is a claim reminder whose contract's name carries the hostile
// markup.
func notice() notify.Notice {
	return notify.Notice{Kind: notify.NoticeClaimReminder, Contract: "cn-example", Provider: "acme_gpu", Month: "2026-11",
		Title: "Claim deadline November 2026: acme_gpu (cn-example)",
		Lines: []notify.Line{{{Text: "Last day to file: "}, {Text: "2026-12-31", Strong: true}, {Text: "; contract "}, {Text: hostile, Strong: true}},
			{{Text: "Claim: "}, {Text: "3,703.68 CNY", Strong: true}},
			{{Text: "Report and evidence bundle: "}, {Text: "2026-11/cn-example/", Code: true}},
			{{Text: hostile}}}}
}

type harness struct {
	t     *testing.T
	c     Case
	clock *Clock
	rcv   *Receiver
	n     notify.Notifier
	p     *robot.Poster
}

func setup(t *testing.T, c Case, secret string) *harness {
	t.Helper()
	h := &harness{t: t, c: c, clock: &Clock{now: t0}}
	h.rcv = newReceiver(t, c.Service, c.Limits, h.clock)
	var err error
	h.n, h.p, err = c.New(c.Service.URL(h.rcv.srv.URL), secret)
	if err != nil {
		t.Fatalf("new notifier: %v", err)
	}
	h.p.Now, h.p.Sleep, h.p.Client = h.clock.Now, h.clock.Sleep, h.rcv.srv.Client()
	return h
}

// Run runs the suite against c.
func Run(t *testing.T, c Case) {
	t.Run("Alert", func(t *testing.T) {
		h := setup(t, c, c.Service.Secret())
		if _, err := h.n.Notify(t.Context(), opening()); err != nil {
			t.Fatalf("Notify: %v", err)
		}
		shown := h.accepted(1)[0].Shown
		for _, want := range []string{"gz-01", "GPU lost", "gpu.count (GPU 3): 7 (want 8)", "2026-11-30 10:00:30 UTC", "lost@20261130T100030.000Z"} {
			if !strings.Contains(shown, want) {
				t.Errorf("the message does not show %q:\n%s", want, shown)
			}
		}
		h.inert(shown)
	})
	t.Run("RecoveryQuotesItsIncident", func(t *testing.T) {
		h := setup(t, c, c.Service.Secret())
		if _, err := h.n.Notify(t.Context(), recovered()); err != nil {
			t.Fatalf("Notify: %v", err)
		}
		shown := h.accepted(1)[0].Shown
		for _, want := range []string{"recovered", "4 minutes 40 seconds", "2026-11-30 10:05:10 UTC", "lost@20261130T100030.000Z"} {
			if !strings.Contains(shown, want) {
				t.Errorf("the recovery does not show %q:\n%s", want, shown)
			}
		}
		if c.Service.Markdown() && !strings.Contains(shown, "Closes: ") {
			t.Errorf("the recovery does not quote the incident it closes:\n%s", shown)
		}
	})
	t.Run("ReplacementButton", func(t *testing.T) {
		h := setup(t, c, c.Service.Secret())
		a := opening()
		a.ReplacementURL = replacementURL
		if _, err := h.n.Notify(t.Context(), a); err != nil {
			t.Fatalf("Notify: %v", err)
		}
		got := h.accepted(1)[0]
		want := []Button{{Label: notify.ReplacementLabel, URL: replacementURL}}
		if c.Service.Markdown() && !slices.Equal(got.Buttons, want) || !c.Service.Markdown() && (len(got.Buttons) != 1 || got.Buttons[0].URL != replacementURL) {
			t.Fatalf("buttons %+v, want %+v", got.Buttons, want)
		}
		for _, w := range []string{"gz-01", "gpu.count (GPU 3): 7 (want 8)", "lost@20261130T100030.000Z"} {
			if !strings.Contains(got.Shown, w) {
				t.Errorf("with its button the message does not show %q:\n%s", w, got.Shown)
			}
		}
		h.inert(got.Shown)
	})
	t.Run("NoButtonOnFollowUpsOrOtherKinds", func(t *testing.T) {
		h := setup(t, c, c.Service.Secret())
		// A link on an alert that offers no replacement (set by mistake
		// upstream) is never shown: recovered, update, a network incident.
		rec := recovered()
		upd := opening()
		upd.Kind = notify.AlertUpdate
		net := opening()
		net.IncidentKind, net.IncidentID = "network_degraded", "network_degraded@20261130T100030.000Z"
		plain := opening() // no link configured
		for _, a := range []notify.Alert{rec, upd, net} {
			a.ReplacementURL = replacementURL
			if _, err := h.n.Notify(t.Context(), a); err != nil {
				t.Fatalf("Notify %s: %v", a.Kind, err)
			}
		}
		if _, err := h.n.Notify(t.Context(), plain); err != nil {
			t.Fatalf("Notify: %v", err)
		}
		for i, r := range h.accepted(4) {
			if len(r.Buttons) > 0 || strings.Contains(r.Shown, "/v1/actions/") {
				t.Errorf("message %d carries the replacement link: %+v\n%s", i, r.Buttons, r.Shown)
			}
		}
	})
	t.Run("Delivery", func(t *testing.T) {
		h := setup(t, c, c.Service.Secret())
		for _, a := range []notify.Alert{overdue(), delivered()} {
			if _, err := h.n.Notify(t.Context(), a); err != nil {
				t.Fatalf("Notify %s: %v", a.Kind, err)
			}
		}
		got := h.accepted(2)
		for i, want := range [][]string{
			{"gz-01 delivery overdue: not delivered 30 minutes after the order", "2026-11-30 10:00:30 UTC", "2026-11-30 10:30:30 UTC", "1m0s late so far", "delivery@20261130T100030.000Z"},
			{"gz-01 delivered 1 hour 35 minutes late", "2026-11-30 12:05:30 UTC", "first passing acceptance check"},
		} {
			shown := got[i].Shown
			for _, w := range want {
				if !strings.Contains(shown, w) {
					t.Errorf("delivery alert %d does not show %q:\n%s", i, w, shown)
				}
			}
			// A delivery is no outage: no "counts as outage" verdict.
			if strings.Contains(strings.ToLower(shown), "counts as outage") {
				t.Errorf("delivery alert %d states an outage verdict:\n%s", i, shown)
			}
		}
		h.inert(got[0].Shown)
	})
	t.Run("Ticket", func(t *testing.T) {
		h := setup(t, c, c.Service.Secret())
		if _, err := h.n.NotifyTicket(t.Context(), ticketMsg()); err != nil {
			t.Fatalf("NotifyTicket: %v", err)
		}
		shown := h.accepted(1)[0].Shown
		for _, want := range []string{"T-0042", "gz-01", "BREACHED", "first response due 2026-11-30 12:00 CST passed unmet"} {
			if !strings.Contains(shown, want) {
				t.Errorf("the ticket message does not show %q:\n%s", want, shown)
			}
		}
		h.inert(shown)
	})
	t.Run("Notice", func(t *testing.T) {
		h := setup(t, c, c.Service.Secret())
		np, ok := h.n.(notify.NoticePoster)
		if !ok {
			t.Fatalf("%T cannot post notices: a team on this channel alone would never get the month's report", h.n)
		}
		if err := np.PostNotice(t.Context(), notice()); err != nil {
			t.Fatalf("PostNotice: %v", err)
		}
		shown := h.accepted(1)[0].Shown
		for _, want := range []string{"Claim deadline", "3,703.68 CNY", "2026-12-31", "2026-11/cn-example/"} {
			if !strings.Contains(shown, want) {
				t.Errorf("the notice does not show %q:\n%s", want, shown)
			}
		}
		h.inert(shown)
	})
	if c.Service.Secret() != "" {
		t.Run("WrongSecretRefused", func(t *testing.T) {
			h := setup(t, c, c.Service.Secret()+"x")
			_, err := h.n.Notify(t.Context(), opening())
			if err == nil {
				t.Fatal("Notify with a wrong secret succeeded; the receiver refused it")
			}
			if reqs := h.rcv.Requests(); len(reqs) != 1 || reqs[0].Accepted {
				t.Fatalf("%d requests (want 1, refused, not retried)", len(reqs))
			}
			h.noCredential(err)
		})
	}
	t.Run("RateLimitedThenDelivered", func(t *testing.T) {
		h := setup(t, c, c.Service.Secret())
		h.rcv.then(c.Service.RateLimited(), c.Service.RateLimited())
		if _, err := h.n.Notify(t.Context(), opening()); err != nil {
			t.Fatalf("Notify after two rate-limit answers: %v", err)
		}
		reqs := h.rcv.Requests()
		if len(reqs) != 3 || !reqs[2].Accepted {
			t.Fatalf("%d requests, want 3 with the last accepted", len(reqs))
		}
		if len(h.clock.Slept) < 2 || !reqs[1].At.After(reqs[0].At) || !reqs[2].At.After(reqs[1].At) {
			t.Fatalf("retries did not wait: slept %v, requests at %v %v %v", h.clock.Slept, reqs[0].At, reqs[1].At, reqs[2].At)
		}
	})
	t.Run("RateLimitedForGoodLeftPending", func(t *testing.T) {
		h := setup(t, c, c.Service.Secret())
		for range 50 {
			h.rcv.then(c.Service.RateLimited())
		}
		_, err := h.n.Notify(t.Context(), opening())
		if err == nil {
			t.Fatal("Notify succeeded against a service that only says 'slow down'")
		}
		var waited time.Duration
		for _, d := range h.clock.Slept {
			waited += d
		}
		if waited > h.p.MaxWait {
			t.Fatalf("waited %s, more than MaxWait %s", waited, h.p.MaxWait)
		}
		if n := len(h.rcv.Requests()); n < 2 || n > 20 {
			t.Fatalf("%d attempts, want a few (bounded by MaxWait)", n)
		}
		h.noCredential(err)
	})
	t.Run("FailureIsAnError", func(t *testing.T) {
		h := setup(t, c, c.Service.Secret())
		h.rcv.then(c.Service.Failure())
		_, err := h.n.Notify(t.Context(), opening())
		if err == nil {
			t.Fatalf("Notify succeeded on the answer %+v", c.Service.Failure())
		}
		if n := len(h.rcv.Requests()); n != 1 {
			t.Fatalf("%d requests on a failure, want 1 (the application retries later)", n)
		}
		h.noCredential(err)
	})
	t.Run("AnswerEchoingTheCredential", func(t *testing.T) {
		// A proxy or a broken service that quotes the request back: the
		// answer's excerpt in the error must not carry the URL's credential
		// nor the signing secret: errors reach logs and notices[].last_error.
		h := setup(t, c, c.Service.Secret())
		echo := fmt.Sprintf(`{"error":"refused POST %s (secret %s)"}`, c.Service.URL(h.rcv.srv.URL), c.Service.Secret())
		h.rcv.then(Answer{Status: http.StatusForbidden, Body: echo})
		_, err := h.n.Notify(t.Context(), opening())
		if err == nil {
			t.Fatal("Notify succeeded on a 403")
		}
		if !strings.Contains(err.Error(), "403") {
			t.Errorf("the error lost what went wrong: %v", err)
		}
		h.noCredential(err)
	})
	t.Run("ServerDown", func(t *testing.T) {
		h := setup(t, c, c.Service.Secret())
		h.rcv.srv.Close()
		_, err := h.n.Notify(t.Context(), opening())
		if err == nil {
			t.Fatal("Notify succeeded with the service down")
		}
		h.noCredential(err)
	})
	runQuota(t, c)
	for _, l := range c.Limits {
		t.Run(fmt.Sprintf("KeepsQuota%dPer%s", l.N, l.Per), func(t *testing.T) {
			h := setup(t, c, c.Service.Secret())
			h.p.MaxWait = 24 * time.Hour // this case is about the quota, not the budget
			for i := range 3 * l.N {
				if _, err := h.n.Notify(t.Context(), opening()); err != nil {
					t.Fatalf("message %d: %v", i, err)
				}
			}
			reqs := h.accepted(3 * l.N)
			for i := range reqs {
				j := i
				for j < len(reqs) && reqs[j].At.Sub(reqs[i].At) <= l.Per { // a closed window: the strictest reading of "N per Per"
					j++
				}
				if j-i > l.N {
					t.Fatalf("%d messages within %s from %s; the quota is %d", j-i, l.Per, reqs[i].At, l.N)
				}
			}
			// The first message waits for nothing.
			if !reqs[0].At.Equal(t0) {
				t.Fatalf("the first message waited until %s", reqs[0].At)
			}
		})
	}
}

// accepted returns the accepted requests, failing unless there are n.
func (h *harness) accepted(n int) []Request {
	h.t.Helper()
	var out []Request
	for _, r := range h.rcv.Requests() {
		if r.Accepted {
			out = append(out, r)
		}
	}
	if len(out) != n {
		h.t.Fatalf("%d requests accepted, want %d (all: %+v)", len(out), n, h.rcv.Requests())
	}
	return out
}

// inert checks that the hostile user text shows as text: none of its markup
// survives in a markdown message, and its words are still there.
func (h *harness) inert(shown string) {
	h.t.Helper()
	if !h.c.Service.Markdown() {
		if !strings.Contains(shown, hostile) {
			h.t.Errorf("the user text is not carried as it is:\n%s", shown)
		}
		return
	}
	for _, raw := range []string{"**pwn**", "<at id=all>", "<@all>", "<!channel>", "[click](", "`x`", "\n# ", "\n- **"} {
		if strings.Contains(shown, raw) {
			h.t.Errorf("user markup %q reached the message unescaped:\n%s", raw, shown)
		}
	}
	for _, word := range []string{"pwn", "click", "evil.example", "channel"} {
		if !strings.Contains(shown, word) {
			h.t.Errorf("user text lost %q:\n%s", word, shown)
		}
	}
}

// noCredential checks that an error does not leak the URL's secret, the
// URL's path (where a credential may sit) or the signing secret.
func (h *harness) noCredential(err error) {
	h.t.Helper()
	path := strings.TrimPrefix(h.c.Service.URL(h.rcv.srv.URL), h.rcv.srv.URL)
	for what, s := range map[string]string{"webhook credential": h.c.Service.Credential(), "signing secret": h.c.Service.Secret(), "webhook URL's path": path} {
		if len(s) > 1 && strings.Contains(err.Error(), s) {
			h.t.Fatalf("the error shows the %s %q: %v", what, s, err)
		}
	}
}
