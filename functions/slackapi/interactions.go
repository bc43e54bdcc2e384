package slackapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/slack-go/slack"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/notify/chantext"
	"github.com/gpusla/gpusla/infra/store"
)

// Click is a parsed click on one of the ticket buttons.
type Click struct {
	ActionID    string
	Node        string
	IncidentID  string
	UserID      string
	UserName    string
	ChannelID   string
	MessageTs   string // the alert message clicked on
	ThreadTs    string // its thread (the incident's), or MessageTs
	ResponseURL string
}

// ErrNotOurs marks an interaction that is valid but not for gpusla's
// buttons (answered 200 and ignored, as Slack expects).
var ErrNotOurs = errors.New("not a gpusla ticket button")

// ParseInteraction decodes an interaction body (form field "payload",
// JSON) into a Click on one of our buttons.
func ParseInteraction(body []byte) (Click, error) {
	v, err := url.ParseQuery(string(body))
	if err != nil {
		return Click{}, fmt.Errorf("interaction body: %w", err)
	}
	raw := v.Get("payload")
	if raw == "" {
		return Click{}, errors.New("interaction body: payload: missing")
	}
	var ic slack.InteractionCallback
	if err := json.Unmarshal([]byte(raw), &ic); err != nil {
		return Click{}, fmt.Errorf("interaction body: payload: %w", err)
	}
	if ic.Type != slack.InteractionTypeBlockActions {
		return Click{}, fmt.Errorf("%w: interaction type %q", ErrNotOurs, ic.Type)
	}
	for _, a := range ic.ActionCallback.BlockActions {
		if a == nil {
			continue
		}
		switch a.ActionID {
		case notify.ActionTicketOpen, notify.ActionTicketResponded, notify.ActionTicketResolved, notify.ActionRequestReplacement:
		default:
			continue
		}
		node, inc, err := notify.ParseIncidentButtonValue(a.Value)
		if err != nil {
			return Click{}, fmt.Errorf("interaction body: actions[%s]: %w", a.ActionID, err)
		}
		c := Click{ActionID: a.ActionID, Node: node, IncidentID: inc, UserID: ic.User.ID, UserName: ic.User.Name,
			ChannelID: ic.Container.ChannelID, MessageTs: ic.Container.MessageTs, ThreadTs: ic.Container.ThreadTs,
			ResponseURL: ic.ResponseURL}
		if c.ChannelID == "" {
			c.ChannelID = ic.Channel.ID
		}
		if c.MessageTs == "" {
			c.MessageTs = ic.Message.Timestamp
		}
		if c.ThreadTs == "" {
			c.ThreadTs = ic.Message.ThreadTimestamp
		}
		if c.ThreadTs == "" {
			c.ThreadTs = c.MessageTs
		}
		if c.MessageTs == "" {
			return Click{}, errors.New("interaction body: container.message_ts: missing (needed to recognise repeated clicks)")
		}
		return c, nil
	}
	return Click{}, fmt.Errorf("%w: no gpusla action in the payload", ErrNotOurs)
}

// interactions serves button clicks.
func (h *Handler) interactions(w http.ResponseWriter, r *http.Request) {
	body, ok := h.verified(w, r)
	if !ok {
		return
	}
	click, err := ParseInteraction(body)
	if errors.Is(err, ErrNotOurs) {
		w.WriteHeader(http.StatusOK)
		return
	}
	if err != nil {
		h.log.Warn("slack interaction refused", "reason", err.Error())
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 2500*time.Millisecond)
	defer cancel()
	reply, ticketID := h.click(ctx, click)
	job := Job{Kind: JobReply, ResponseURL: click.ResponseURL, Text: reply, Ticket: ticketID}
	if err := h.queue(ctx, job); err != nil {
		h.log.Warn("slack: reply not queued", "err", err)
	}
	// Slack ignores the body of a block_actions answer; the reply goes to
	// response_url, the ticket's notices to the incident's thread.
	w.WriteHeader(http.StatusOK)
}

// click does what a button says and returns the reply for the clicker and
// the ticket it touched ("" if none).
func (h *Handler) click(ctx context.Context, c Click) (string, string) {
	key := app.IncidentTicketKey(c.Node, c.IncidentID)
	who := by(c.UserID, c.UserName)
	if c.ActionID == notify.ActionRequestReplacement {
		return h.requestReplacement(ctx, c, who)
	}
	if c.ActionID == notify.ActionTicketOpen {
		prio, err := h.defaultPriority(ctx, c.Node)
		if err != nil {
			return h.failure(err).Text, ""
		}
		kind, _, _ := store.ParseIncidentID(c.IncidentID)
		tk, created, err := h.desk.Open(ctx, app.OpenRequest{Node: c.Node, Priority: prio, Key: key, IncidentID: c.IncidentID,
			Thread: c.ThreadTs, By: who, Summary: "opened from the " + kind + " alert", Category: categoryFor(kind)})
		if err != nil {
			return h.failure(err).Text, ""
		}
		if !created {
			return h.replies(&tk).AlreadyOpened(facts(&tk)), tk.ID
		}
		return h.replies(&tk).OpenedFromButton(facts(&tk), h.timing(&tk, h.desk.Service().Now())), tk.ID
	}
	typ := "responded"
	if c.ActionID == notify.ActionTicketResolved {
		typ = "resolved"
	}
	id := app.TicketIDForKey(key)
	rec, err := h.desk.Record(ctx, id, app.EventRequest{Type: typ, By: who,
		Key: "slack-button:" + c.ChannelID + ":" + c.MessageTs + ":" + c.ActionID})
	if errors.Is(err, store.ErrNotFound) {
		return chantext.SlackNoTicketYet, ""
	}
	if err != nil {
		return h.failure(err).Text, id
	}
	return h.recordedLine(rec), id
}

// categoryFor: a lost GPU is a hardware ticket (the replacement promise
// applies); everything else is general.
func categoryFor(incidentKind string) string {
	if incidentKind == "gpu_lost" {
		return store.CategoryHardware
	}
	return store.CategoryGeneral
}

// defaultPriority is the contract's first (most urgent) priority: an
// incident alert is the urgent case.
func (h *Handler) defaultPriority(ctx context.Context, node string) (string, error) {
	n, err := h.desk.Service().Node(ctx, node)
	if err != nil {
		return "", fmt.Errorf("node %s: %w", node, err)
	}
	tm, ok := h.desk.Terms()[n.Contract]
	if !ok || len(tm.Support.Priorities) == 0 {
		return "", app.Errorf(app.EInvalid, "node", "contract %q of node %s is not loaded or has no priorities", n.Contract, node)
	}
	return tm.Support.Priorities[0], nil
}

// requestReplacement answers "Request replacement": the hardware ticket is
// opened in the alert's thread (once per incident, the key the "Ticket
// opened" button uses) and the clicker gets the text to paste into the
// provider's ticket system.
func (h *Handler) requestReplacement(ctx context.Context, c Click, who string) (string, string) {
	if h.replace == nil {
		return chantext.SlackReplacementNotSetUp(c.Node, c.IncidentID), ""
	}
	text, id, created, err := h.replace.RequestReplacement(ctx, c.Node, c.IncidentID, who, c.ThreadTs)
	if err != nil {
		return h.failure(err).Text, ""
	}
	if !created {
		// Requested before (another click, a robot's alert link, the CLI):
		// the ticket store's conditional create decided; nothing new opened.
		by := ""
		if tk, err := h.desk.Get(ctx, id); err == nil {
			by = tk.OpenedBy
		}
		return chantext.SlackReplacementRequested(id, text, false, by), id
	}
	return chantext.SlackReplacementRequested(id, text, true, ""), id
}
