// Package webhook delivers alerts and ticket messages as signed JSON to any
// HTTP endpoint (an on-call tool, a bridge to another chat, a script), so a
// receiver can act on them and prove they came from this backend.
//
// The request is POST <url> with Content-Type application/json and
//
//	X-Gpusla-Event:     the message's id, the same on every retry (dedupe on it)
//	X-Gpusla-Timestamp: Unix seconds when this attempt was signed
//	X-Gpusla-Signature: sha256=<hex HMAC-SHA256(secret, timestamp + "." + body)>
//
// and the body {"type":"alert","id":…,"text":…,"alert":{…}},
// {"type":"ticket","id":…,"text":…,"ticket":{…}} or
// {"type":"notice","id":…,"text":…,"notice":{…}} (a month's report stored,
// a claim deadline near), the alert, ticket and notice objects being
// infra/notify's Alert, TicketMessage and Notice as JSON (a hardware
// alert's "replacement_url" is the signed "Request replacement" link, left
// out of the id). A receiver
// recomputes the HMAC over the raw body, compares in constant time, and
// refuses timestamps more than five minutes from its clock (Verify does all
// three). A 2xx answer is delivery; 429 and 5xx are retried with backoff
// (Retry-After honoured); any other status is a failure the application
// retries later.
package webhook

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/notify/chantext"
	"github.com/gpusla/gpusla/infra/notify/robot"
)

// Headers of a delivery.
const (
	HeaderEvent     = "X-Gpusla-Event"
	HeaderTimestamp = "X-Gpusla-Timestamp"
	HeaderSignature = "X-Gpusla-Signature"
)

// MinSecret is the shortest secret accepted: an HMAC key guessable by brute
// force would let anyone forge alerts to the receiver.
const MinSecret = 16

// Tolerance is how far a timestamp may be from the receiver's clock.
const Tolerance = 5 * time.Minute

// Config is one endpoint.
type Config struct {
	URL    string `yaml:"url" json:"url"`
	Secret string `yaml:"secret" json:"secret"`
}

// Validate names the field that is wrong; prefix is where the config sits.
func (c Config) Validate(prefix string) error {
	if _, err := robot.WebhookURL(prefix+".url", c.URL); err != nil {
		return err
	}
	if len(c.Secret) < MinSecret {
		return fmt.Errorf("%s.secret: %d bytes; at least %d are needed", prefix, len(c.Secret), MinSecret)
	}
	return nil
}

// Notifier posts to one endpoint.
type Notifier struct {
	cfg Config
	// Poster sends with retries; tests set its clock, sleep and client.
	Poster *robot.Poster
}

// New returns a notifier for a valid config.
func New(cfg Config) (*Notifier, error) {
	if err := cfg.Validate("webhook"); err != nil {
		return nil, err
	}
	n := &Notifier{cfg: cfg, Poster: robot.New("webhook")}
	n.Poster.Secrets = append(notify.URLSecrets(cfg.URL), cfg.Secret)
	return n, nil
}

// Payload is the body of a delivery.
type Payload struct {
	Type  string        `json:"type"` // "alert", "ticket" or "notice"
	ID    string        `json:"id"`
	Text  string        `json:"text"` // a plain-text summary (one line, a notice's lines)
	Alert *notify.Alert `json:"alert,omitempty"`
	// FailedNotListed counts the alert's failing checks past MaxFailed,
	// left out of alert.failed (a spool draining can repeat one failing
	// check thousands of times in a batch).
	FailedNotListed int                   `json:"failed_not_listed,omitempty"`
	Ticket          *notify.TicketMessage `json:"ticket,omitempty"`
	Notice          *notify.Notice        `json:"notice,omitempty"`
}

// Notify posts an alert. There is no thread reference (see robot.Chat).
// The alert's replacement_url is the signed "Request replacement" link,
// on the alerts that offer one (notify.OffersReplacement) only.
func (n *Notifier) Notify(ctx context.Context, a notify.Alert) (string, error) {
	if !notify.OffersReplacement(a) {
		a.ReplacementURL = ""
	}
	p := Payload{Type: "alert", Text: chantext.AlertText(a)}
	if len(a.Failed) > MaxFailed {
		p.FailedNotListed = len(a.Failed) - MaxFailed
		a.Failed = a.Failed[:MaxFailed:MaxFailed]
	}
	a.Detail = chantext.Clip(a.Detail, MaxDetail)
	p.Alert = &a
	return "", n.send(ctx, p)
}

// NotifyTicket posts a ticket message.
func (n *Notifier) NotifyTicket(ctx context.Context, m notify.TicketMessage) (string, error) {
	m.Text = chantext.Clip(m.Text, MaxDetail)
	return "", n.send(ctx, Payload{Type: "ticket", Text: chantext.TicketText(m), Ticket: &m})
}

// PostNotice posts a notice to the team. Its file (the month's PDF) is not
// sent: the notice's lines say where the files are.
func (n *Notifier) PostNotice(ctx context.Context, nt notify.Notice) error {
	return n.send(ctx, Payload{Type: "notice", Text: nt.PlainText(), Notice: &nt})
}

func (n *Notifier) send(ctx context.Context, p Payload) error {
	// The id is a digest of the message, so every retry of one message
	// carries the same id and distinct messages differ. The replacement
	// link is left out of it: each delivery signs a link of its own (with
	// its own expiry), and a retry is still the same message.
	id := p
	if p.Alert != nil && p.Alert.ReplacementURL != "" {
		a := *p.Alert
		a.ReplacementURL = ""
		id.Alert = &a
	}
	raw, err := json.Marshal(id)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(raw)
	p.ID = hex.EncodeToString(sum[:16])
	body, err := json.Marshal(p)
	if err != nil {
		return err
	}
	return n.Poster.Post(ctx, func(now time.Time) (*http.Request, error) {
		req, err := robot.JSONRequest(ctx, n.cfg.URL, body)
		if err != nil {
			return nil, err
		}
		ts := strconv.FormatInt(now.Unix(), 10)
		req.Header.Set(HeaderEvent, p.ID)
		req.Header.Set(HeaderTimestamp, ts)
		req.Header.Set(HeaderSignature, Signature(n.cfg.Secret, ts, body))
		return req, nil
	}, robot.HTTPStatus)
}

// Bounds on a payload, as the robots' messages are bounded: the alert's
// first MaxFailed failing checks (each bounded by the wire: a few
// kilobytes), its evidence and a ticket's text at most MaxDetail
// characters, the text at most chantext.TextMax bytes — a body of a few
// dozen kilobytes at most, whatever a node sent.
const (
	MaxFailed = 10
	MaxDetail = 2000
)

// Signature is the X-Gpusla-Signature value of body signed at timestamp.
func Signature(secret, timestamp string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(timestamp))
	mac.Write([]byte("."))
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// Verify is what a receiver does: the timestamp is a number within
// Tolerance of now, and the signature matches the raw body (compared in
// constant time). The timestamp is checked first, so a replay of an old
// request fails without any work on its body.
func Verify(secret string, h http.Header, body []byte, now time.Time) error {
	ts := h.Get(HeaderTimestamp)
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return fmt.Errorf("%s %q: not Unix seconds", HeaderTimestamp, ts)
	}
	if d := now.Sub(time.Unix(sec, 0)); d > Tolerance || d < -Tolerance {
		return fmt.Errorf("%s %s: %s from now, more than %s", HeaderTimestamp, ts, d.Round(time.Second), Tolerance)
	}
	got := h.Get(HeaderSignature)
	if !strings.HasPrefix(got, "sha256=") {
		return errors.New(HeaderSignature + ": missing or not sha256=<hex>")
	}
	if !hmac.Equal([]byte(got), []byte(Signature(secret, ts, body))) {
		return errors.New(HeaderSignature + ": does not match the body")
	}
	return nil
}

var (
	_ notify.Notifier     = (*Notifier)(nil)
	_ notify.NoticePoster = (*Notifier)(nil)
)
