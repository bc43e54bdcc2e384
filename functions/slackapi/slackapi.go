// Package slackapi serves Slack's requests to gpusla: the `/gpusla` slash
// command and the ticket buttons on incident alerts. Every request's
// signature is verified with slack-go's SecretsVerifier (HMAC-SHA256 of the
// signing secret over the timestamp and body, timestamp within five
// minutes) before its body is parsed, and a verified request is accepted
// once only: a replay of the same signed request is refused like a forgery
// (401, nothing recorded).
//
// Slack wants an answer within 3 seconds. What is quick (one or two store
// reads and one conditional write) is done before answering; what may be
// slow (posting in the ticket's thread, building a report) is handed to a
// Runner as a Job and answered later through the request's response_url.
// `gpusla serve` runs jobs in goroutines; the Lambda invokes itself
// asynchronously with the job, because a Lambda is frozen once it answers.
package slackapi

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackutilsx"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/refusal"
	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/store"
)

// Routes.
const (
	PathCommands     = "/slack/commands"
	PathInteractions = "/slack/interactions"
)

// MaxBody caps a Slack request body. Interaction payloads carry the whole
// message clicked on (blocks included); 256 KiB is far above any of ours.
const MaxBody = 256 << 10

// replayWindow is how long a seen signature is remembered: longer than the
// five minutes the verifier accepts a timestamp for, on either side.
const replayWindow = 11 * time.Minute

// Config wires a Handler.
type Config struct {
	Desk *app.TicketDesk
	// SigningSecret is the Slack app's signing secret. Required: without it
	// every request is refused.
	SigningSecret string
	// Runner runs slow work after the answer (default: goroutines).
	Runner Runner
	// Export overrides the event log `/gpusla report` is built from
	// (default: the desk's MonthExport of the month asked for).
	Export app.ExportFunc
	// HTTPClient posts to response_url (default: 10 s timeout).
	HTTPClient *http.Client
	Log        *slog.Logger
	// Replacer answers the "Request replacement" button (nil: the button
	// says replacement requests are not set up on this backend).
	Replacer Replacer
}

// Replacer requests the replacement of a node's physical machine for an
// incident (functions/replacement.Requester): it opens the hardware ticket
// (once per incident) and returns the ticket text for the provider;
// created is false when the incident had its ticket already.
type Replacer interface {
	RequestReplacement(ctx context.Context, node, incidentID, by, thread string) (text, ticketID string, created bool, err error)
}

// Handler serves the Slack endpoints.
type Handler struct {
	desk    *app.TicketDesk
	secret  string
	runner  Runner
	export  app.ExportFunc
	client  *http.Client
	log     *slog.Logger
	refused *refusal.Log
	replace Replacer
}

// New checks the config and returns a Handler.
func New(c Config) (*Handler, error) {
	if c.Desk == nil {
		return nil, errors.New("slackapi: Desk is required")
	}
	if c.SigningSecret == "" {
		return nil, errors.New("slackapi: SigningSecret is required (the Slack app's signing secret)")
	}
	h := &Handler{desk: c.Desk, secret: c.SigningSecret, runner: c.Runner, export: c.Export, client: c.HTTPClient, log: c.Log, replace: c.Replacer}
	if h.log == nil {
		h.log = slog.Default()
	}
	h.refused = refusal.New("slack", h.log, 0)
	if h.client == nil {
		h.client = &http.Client{Timeout: 10 * time.Second}
	}
	if h.runner == nil {
		h.runner = NewGoRunner(h, time.Minute)
	}
	return h, nil
}

// SetRunner replaces the runner (the Lambda's self-invoking one needs the
// handler to exist first).
func (h *Handler) SetRunner(r Runner) { h.runner = r }

// Register adds the Slack routes to mux.
func (h *Handler) Register(mux *http.ServeMux) {
	mux.HandleFunc("POST "+PathCommands, h.commands)
	mux.HandleFunc("POST "+PathInteractions, h.interactions)
}

// verified reads and verifies a Slack request: signature headers present,
// body within MaxBody, HMAC and timestamp correct (slack-go's verifier),
// and not seen before. It answers the refusal itself and returns ok=false.
func (h *Handler) verified(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	sig := r.Header.Get("X-Slack-Signature")
	if sig == "" || r.Header.Get("X-Slack-Request-Timestamp") == "" {
		h.refuse(w, r, http.StatusUnauthorized, "missing Slack signature headers")
		return nil, false
	}
	if r.ContentLength > MaxBody {
		h.refuse(w, r, http.StatusRequestEntityTooLarge, "body over the limit")
		return nil, false
	}
	sv, err := slack.NewSecretsVerifier(r.Header, h.secret)
	if err != nil {
		// Malformed or expired timestamp (older than five minutes); the
		// verifier's message quotes the value, which the log keeps.
		h.refuse(w, r, http.StatusUnauthorized, "malformed or expired timestamp", "err", err.Error())
		return nil, false
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			h.refuse(w, r, http.StatusRequestEntityTooLarge, "body over the limit")
			return nil, false
		}
		h.refuse(w, r, http.StatusBadRequest, "cannot read body")
		return nil, false
	}
	if _, err := sv.Write(body); err != nil {
		h.refuse(w, r, http.StatusInternalServerError, "signature check failed", "err", err.Error())
		return nil, false
	}
	if err := sv.Ensure(); err != nil {
		h.refuse(w, r, http.StatusUnauthorized, "signature mismatch")
		return nil, false
	}
	// Only now is the request known to come from Slack; refuse a replay of
	// it (the same signature again) inside the window it would still verify.
	err = h.desk.ClaimOnce(r.Context(), replayKey(sig), h.desk.Service().Now().Add(replayWindow))
	if errors.Is(err, store.ErrExists) {
		h.refuse(w, r, http.StatusUnauthorized, "replayed request")
		return nil, false
	}
	if err != nil {
		h.log.Error("slack: record request signature", "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return nil, false
	}
	return body, true
}

// replayKey is the claim key of a verified signature. It hashes the
// decoded MAC, not the header as sent: the verifier decodes hex in either
// case, so "v0=AB…" verifies like "v0=ab…" and must be the same claim, or
// an upper-cased replay would open a second ticket. (For the lowercase
// hex Slack sends, the key is what it always was.)
func replayKey(sig string) string {
	if mac, err := hex.DecodeString(strings.TrimPrefix(sig, "v0=")); err == nil {
		sig = "v0=" + hex.EncodeToString(mac)
	}
	sum := sha256.Sum256([]byte(sig))
	return "slack-sig:" + hex.EncodeToString(sum[:16])
}

func (h *Handler) refuse(w http.ResponseWriter, r *http.Request, status int, why string, attrs ...any) {
	// Never log the signature or body.
	h.refused.Refused(r.Context(), why, status, append([]any{"path", r.URL.Path, "remote", r.RemoteAddr}, attrs...)...)
	http.Error(w, http.StatusText(status), status)
}

// Message is an answer to Slack (the slash command's response, or a post
// to response_url).
type Message struct {
	ResponseType    string `json:"response_type,omitempty"` // "ephemeral" (default) or "in_channel"
	Text            string `json:"text"`
	ReplaceOriginal bool   `json:"replace_original,omitempty"`
}

// escaped is m as it may go to Slack. Answers carry ticket summaries,
// provider references, node ids and the user's own words back, with no
// markup of ours but bold, code and emoji: all of the text is escaped
// ('&', '<', '>' as entities, slack-go's helper), so a summary saying
// "<!channel>" shows instead of pinging the channel.
func (m Message) escaped() Message {
	m.Text = slackutilsx.EscapeMessage(m.Text)
	return m
}

func writeMessage(w http.ResponseWriter, m Message) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(m.escaped())
}

// by names who did something, for the ticket's timeline.
func by(userID, userName string) string {
	if userName != "" {
		return "slack:" + userID + " (" + userName + ")"
	}
	return "slack:" + userID
}

// respond posts m to a response_url. Its error is redacted: the URL lets
// anyone post into the channel for half an hour, and the job logs it.
func (h *Handler) respond(ctx context.Context, responseURL string, m Message) error {
	if responseURL == "" {
		return nil
	}
	m = m.escaped()
	err := slack.PostWebhookCustomHTTPContext(ctx, responseURL, h.client, &slack.WebhookMessage{
		Text: m.Text, ResponseType: m.ResponseType, ReplaceOriginal: m.ReplaceOriginal})
	return notify.Redact(err, notify.URLSecrets(responseURL)...)
}
