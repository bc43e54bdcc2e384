package slackapi

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/infra/notify/chantext"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/sla/ticket"
)

// commands serves `/gpusla …`.
func (h *Handler) commands(w http.ResponseWriter, r *http.Request) {
	body, ok := h.verified(w, r)
	if !ok {
		return
	}
	form, err := ParseSlashForm(body)
	if err != nil {
		h.log.Warn("slack command refused", "reason", err.Error())
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	cmd, err := ParseCommand(form.Text)
	if err != nil {
		writeMessage(w, Message{Text: chantext.SlackError(err.Error() + "\n" + Usage)})
		return
	}
	// Slack's 3 s: quick work gets the rest of that budget, no more.
	ctx, cancel := context.WithTimeout(r.Context(), 2500*time.Millisecond)
	defer cancel()
	switch cmd.Verb {
	case "help":
		writeMessage(w, Message{Text: Usage})
	case "status":
		writeMessage(w, h.status(ctx, cmd.Node))
	case "report":
		month := cmd.Month
		if month == "" {
			month = h.desk.Service().Now().Format("2006-01")
		}
		job := Job{Kind: JobReport, ResponseURL: form.ResponseURL, Month: month}
		if err := h.queue(ctx, job); err != nil {
			h.log.Error("slack: queue report", "err", err)
			writeMessage(w, Message{Text: chantext.SlackError("could not start the report: " + err.Error())})
			return
		}
		writeMessage(w, Message{Text: chantext.SlackBuildingReport(month)})
	case "scorecard":
		to := cmd.To
		if to == "" {
			to = cmd.Month
		}
		if to == "" {
			now := h.desk.Service().Now().UTC()
			to = time.Date(now.Year(), now.Month()-1, 1, 0, 0, 0, 0, time.UTC).Format("2006-01")
		}
		from := cmd.Month
		if from == "" {
			from = to
		}
		job := Job{Kind: JobScorecard, ResponseURL: form.ResponseURL, Month: from, To: to}
		if err := h.queue(ctx, job); err != nil {
			h.log.Error("slack: queue scorecard", "err", err)
			writeMessage(w, Message{Text: chantext.SlackError("could not start the scorecard: " + err.Error())})
			return
		}
		writeMessage(w, Message{Text: chantext.SlackBuildingScorecard(from, to)})
	case "open":
		tk, _, err := h.desk.Open(ctx, app.OpenRequest{Node: cmd.Node, Priority: cmd.Priority, Category: cmd.Category,
			ProviderRef: cmd.ProviderRef, Summary: cmd.Summary, By: by(form.UserID, form.UserName)})
		if err != nil {
			writeMessage(w, h.failure(err))
			return
		}
		h.after(ctx, Job{Kind: JobFlush, Ticket: tk.ID})
		writeMessage(w, Message{ResponseType: "in_channel", Text: h.openedLine(&tk)})
	case "ref":
		tk, err := h.desk.Describe(ctx, cmd.Ticket, cmd.ProviderRef, "")
		if err != nil {
			writeMessage(w, h.failure(err))
			return
		}
		writeMessage(w, Message{ResponseType: "in_channel", Text: h.replies(&tk).Ref(facts(&tk))})
	default: // responded, replied, resolved, replaced
		rec, err := h.desk.Record(ctx, cmd.Ticket, app.EventRequest{Type: cmd.Verb, AwaitingCustomer: cmd.Waiting,
			Key: "slack-cmd:" + form.TriggerID, By: by(form.UserID, form.UserName)})
		if err != nil {
			writeMessage(w, h.failure(err))
			return
		}
		h.after(ctx, Job{Kind: JobFlush, Ticket: rec.Ticket.ID})
		writeMessage(w, Message{ResponseType: "in_channel", Text: h.recordedLine(rec)})
	}
}

// after queues follow-up work; a failure to queue is logged only, because
// the watchdog sends queued ticket notices anyway.
func (h *Handler) after(ctx context.Context, j Job) {
	if err := h.queue(ctx, j); err != nil {
		h.log.Warn("slack: follow-up not queued; the watchdog will send it", "job", j.Kind, "ticket", j.Ticket, "err", err)
	}
}

// queue hands j to the runner. It gets its own second even when the quick
// work used up the request's budget: a reply that says what happened is
// worth a slightly late answer.
func (h *Handler) queue(ctx context.Context, j Job) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
	defer cancel()
	return h.runner.Run(ctx, j)
}

// failure turns an error into what the person sees: their mistake in
// their words, or a plain "try again" for ours (details go to the log).
func (h *Handler) failure(err error) Message {
	switch app.ErrorCode(err) {
	case app.EInvalid, app.EConflict, app.EUnauthorized:
		return Message{Text: chantext.SlackError(app.ErrorMessage(err))}
	case app.ENotFound:
		return Message{Text: chantext.SlackNotFound(err)}
	default:
		h.log.Error("slack command failed", "err", err)
		return Message{Text: chantext.SlackInternal}
	}
}

// replies are the chat texts about t, in its contract's words.
func (h *Handler) replies(t *store.Ticket) chantext.SlackReplies {
	return chantext.SlackFor(h.contractWords(t.Contract))
}

// contractWords are a contract's report.lang and time zone, the words its
// chat texts are written in; English on UTC for a contract not loaded.
func (h *Handler) contractWords(contract string) (lang, zone string) {
	tm, ok := h.desk.Terms()[contract]
	if !ok {
		return "en", "UTC"
	}
	zone = "UTC"
	if tm.Calendar != nil && tm.Calendar.Loc != nil {
		zone = tm.Calendar.Loc.String()
	}
	return tm.Paperwork.Lang, zone
}

func facts(t *store.Ticket) chantext.TicketFacts {
	return chantext.TicketFacts{ID: t.ID, Node: t.Node, Priority: t.Priority, ProviderRef: t.ProviderRef, Summary: t.Summary,
		Contract: t.Contract, Opened: t.Opened, Recorded: t.CreatedAt, By: t.OpenedBy}
}

// timing is t's timing now; nil when its contract is not loaded.
func (h *Handler) timing(t *store.Ticket, now time.Time) *ticket.Timing {
	tim, _, err := h.desk.Timing(t, now)
	if err != nil {
		return nil
	}
	return &tim
}

func (h *Handler) openedLine(t *store.Ticket) string {
	return h.replies(t).Opened(facts(t), h.timing(t, h.desk.Service().Now()))
}

func (h *Handler) recordedLine(rec app.Recorded) string {
	e := rec.Event
	return h.replies(&rec.Ticket).Recorded(facts(&rec.Ticket), chantext.TicketEvent{Type: e.Type, At: e.At, Target: e.Target, Late: e.Late}, rec.Repeat)
}

// status lists nodes (or one), their open incidents and open tickets.
func (h *Handler) status(ctx context.Context, only string) Message {
	svc := h.desk.Service()
	var nodes []store.Node
	if only != "" {
		n, err := svc.Node(ctx, only)
		if errors.Is(err, store.ErrNotFound) {
			return Message{Text: chantext.SlackNoNode(only)}
		}
		if err != nil {
			return h.failure(err)
		}
		nodes = []store.Node{n}
	} else {
		var err error
		if nodes, err = svc.Nodes(ctx); err != nil {
			return h.failure(err)
		}
	}
	tickets, err := h.desk.List(ctx, true)
	if err != nil {
		return h.failure(err)
	}
	byNode := map[string][]store.Ticket{}
	for _, t := range tickets {
		byNode[t.Node] = append(byNode[t.Node], t)
	}
	now := svc.Now()
	lines := make([]chantext.SlackNode, 0, len(nodes))
	for _, n := range nodes {
		line := chantext.SlackNode{ID: n.ID, Provider: n.Provider, Contract: n.Contract}
		line.Lang, line.Zone = h.contractWords(n.Contract)
		if s, err := svc.NodeState(ctx, n.ID); err == nil {
			line.Heard, line.Ago = true, now.Sub(s.LastReceivedAt).Round(time.Second)
			if g := s.Eval.Unreachable; g != nil {
				line.Unreachable = g.Since
			}
			for k, hs := range s.Eval.Checks {
				if hs != nil && hs.Open {
					line.Open = append(line.Open, chantext.SlackOpen{Kind: string(k), Since: hs.Since})
				}
			}
		}
		for _, t := range byNode[n.ID] {
			line.Tickets = append(line.Tickets, h.replies(&t).TicketLine(facts(&t), h.timing(&t, now)))
		}
		lines = append(lines, line)
	}
	return Message{Text: chantext.SlackStatus(lines)}
}
