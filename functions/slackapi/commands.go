package slackapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/gpusla/gpusla/functions/app"
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
		writeMessage(w, Message{Text: ":x: " + err.Error() + "\n" + Usage})
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
			writeMessage(w, Message{Text: ":x: could not start the report: " + err.Error()})
			return
		}
		writeMessage(w, Message{Text: fmt.Sprintf(":hourglass_flowing_sand: Building the report for %s; it will appear here.", month)})
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
			writeMessage(w, Message{Text: ":x: could not start the scorecard: " + err.Error()})
			return
		}
		writeMessage(w, Message{Text: fmt.Sprintf(":hourglass_flowing_sand: Building the provider scorecard %s to %s; it will appear here.", from, to)})
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
		writeMessage(w, Message{ResponseType: "in_channel", Text: fmt.Sprintf("Ticket *%s* (%s): provider ref %s.", tk.ID, tk.Node, tk.ProviderRef)})
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
		return Message{Text: ":x: " + app.ErrorMessage(err)}
	case app.ENotFound:
		return Message{Text: ":x: " + err.Error() + " — ticket ids look like T-abcd2345; `/gpusla status` lists open ones"}
	default:
		h.log.Error("slack command failed", "err", err)
		return Message{Text: ":x: internal error; nothing was recorded if this message is all you got — try again"}
	}
}

func (h *Handler) loc(t *store.Ticket) *time.Location {
	if tm, ok := h.desk.Terms()[t.Contract]; ok {
		return tm.Calendar.Loc
	}
	return time.UTC
}

func (h *Handler) openedLine(t *store.Ticket) string {
	tim, _, err := h.desk.Timing(t, h.desk.Service().Now())
	if err != nil {
		return fmt.Sprintf("Ticket *%s* opened for %s (%s).", t.ID, t.Node, t.Priority)
	}
	s := fmt.Sprintf("Ticket *%s* opened for *%s* (%s, %s)", t.ID, t.Node, t.Priority, offHours(tim))
	if tim.Response != nil && !tim.Response.Deadline.IsZero() {
		s += ": first response due " + tim.Response.Deadline.In(h.loc(t)).Format("Mon 2006-01-02 15:04 MST")
	}
	return s + "."
}

func offHours(tim ticket.Timing) string {
	if tim.OffHours {
		return "off-hours, " + strings.ReplaceAll(string(tim.DayKind), "_", " ")
	}
	return "business hours"
}

func (h *Handler) recordedLine(rec app.Recorded) string {
	e := rec.Event
	when := e.At.In(h.loc(&rec.Ticket)).Format("2006-01-02 15:04 MST")
	what := map[string]string{store.EventProviderResponded: "provider responded", store.EventCustomerReplied: "customer replied",
		store.EventResolved: "resolved", store.EventHardwareReplaced: "hardware replaced"}[e.Type]
	if rec.Repeat {
		return fmt.Sprintf("Already recorded: %s on *%s* at %s.", what, rec.Ticket.ID, when)
	}
	s := fmt.Sprintf("Recorded: %s on *%s* at %s", what, rec.Ticket.ID, when)
	if e.Late > 0 {
		s += fmt.Sprintf(" — %s target breached, *%s late*", e.Target, e.Late.Round(time.Second))
	} else if e.Target != "" {
		s += fmt.Sprintf(" — %s target met", e.Target)
	}
	return s + "."
}

// status lists nodes (or one), their open incidents and open tickets.
func (h *Handler) status(ctx context.Context, only string) Message {
	svc := h.desk.Service()
	st := svc.Store()
	var nodes []store.Node
	if only != "" {
		n, err := st.GetNode(ctx, only)
		if errors.Is(err, store.ErrNotFound) {
			return Message{Text: fmt.Sprintf(":x: no node %q is registered", only)}
		}
		if err != nil {
			return h.failure(err)
		}
		nodes = []store.Node{n}
	} else {
		var err error
		if nodes, err = st.ListNodes(ctx); err != nil {
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
	var b strings.Builder
	if len(nodes) == 0 {
		b.WriteString("No node is registered.")
	}
	for _, n := range nodes {
		state := ":white_circle: never heard from"
		var open []string
		if s, err := st.GetState(ctx, n.ID); err == nil {
			state = ":large_green_circle: up, last heard " + now.Sub(s.LastReceivedAt).Round(time.Second).String() + " ago"
			if g := s.Eval.Unreachable; g != nil {
				state = ":red_circle: *unreachable* since " + g.Since.UTC().Format("2006-01-02 15:04 UTC")
			}
			for k, hs := range s.Eval.Checks {
				if hs != nil && hs.Open {
					open = append(open, string(k)+" since "+hs.Since.UTC().Format("2006-01-02 15:04 UTC"))
				}
			}
			sort.Strings(open)
		}
		fmt.Fprintf(&b, "*%s* (%s, %s) %s\n", n.ID, n.Provider, n.Contract, state)
		for _, o := range open {
			fmt.Fprintf(&b, "   • incident: %s\n", o)
		}
		for _, t := range byNode[n.ID] {
			fmt.Fprintf(&b, "   • ticket %s\n", h.ticketLine(&t, now))
		}
	}
	return Message{Text: strings.TrimSpace(b.String())}
}

func (h *Handler) ticketLine(t *store.Ticket, now time.Time) string {
	s := fmt.Sprintf("*%s* %s", t.ID, t.Priority)
	if t.ProviderRef != "" {
		s += " (" + t.ProviderRef + ")"
	}
	tim, _, err := h.desk.Timing(t, now)
	if err != nil {
		return s
	}
	for _, c := range []struct {
		name string
		c    *ticket.Clock
	}{{"response", tim.Response}, {"resolution", tim.Resolution}, {"replacement", tim.Replacement}} {
		if c.c == nil || !c.c.Done.IsZero() {
			continue
		}
		due := c.c.Deadline.In(h.loc(t)).Format("01-02 15:04 MST")
		switch c.c.Status {
		case ticket.Breached:
			s += fmt.Sprintf(" — :rotating_light: %s BREACHED (due %s, %s ago)", c.name, due, c.c.Late.Round(time.Minute))
		default:
			s += fmt.Sprintf(" — %s due %s (in %s)", c.name, due, (c.c.Target - c.c.Elapsed).Round(time.Minute))
		}
		break
	}
	return s
}
