package slackapi

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gpusla/gpusla/sla/report"
)

// Job kinds.
const (
	JobFlush  = "flush"  // send a ticket's queued notices (its thread)
	JobReply  = "reply"  // post Text to ResponseURL (and flush Ticket, if set)
	JobReport = "report" // build Month's report and post its summary to ResponseURL
	// JobScorecard builds the scorecard of Month..To and posts its
	// comparison to ResponseURL.
	JobScorecard = "scorecard"
)

// Job is work done after Slack has had its answer. It is plain data so a
// Lambda can hand it to another invocation of itself.
type Job struct {
	Kind        string `json:"kind"`
	ResponseURL string `json:"response_url,omitempty"`
	Text        string `json:"text,omitempty"`
	Ticket      string `json:"ticket,omitempty"`
	Month       string `json:"month,omitempty"` // YYYY-MM
	To          string `json:"to,omitempty"`    // YYYY-MM, the scorecard's last month
}

// Runner runs jobs after the answer. Run must return quickly: it queues.
type Runner interface {
	Run(ctx context.Context, j Job) error
}

// GoRunner runs each job in its own goroutine, bounded by a timeout (for
// `gpusla serve`, where the process outlives the request).
type GoRunner struct {
	h       *Handler
	timeout time.Duration
	wg      sync.WaitGroup
}

// NewGoRunner returns a runner that runs jobs on h.
func NewGoRunner(h *Handler, timeout time.Duration) *GoRunner {
	return &GoRunner{h: h, timeout: timeout}
}

// Run starts j; the request's context is not inherited (it ends with the answer).
func (g *GoRunner) Run(_ context.Context, j Job) error {
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), g.timeout)
		defer cancel()
		if err := g.h.Do(ctx, j); err != nil {
			g.h.log.Error("slack job failed", "job", j.Kind, "ticket", j.Ticket, "err", err)
		}
	}()
	return nil
}

// Wait waits for the jobs started so far (shutdown, tests).
func (g *GoRunner) Wait() { g.wg.Wait() }

// Do runs one job.
func (h *Handler) Do(ctx context.Context, j Job) error {
	var errs []error
	switch j.Kind {
	case JobFlush, JobReply:
		if j.Text != "" {
			if err := h.respond(ctx, j.ResponseURL, Message{Text: j.Text}); err != nil {
				errs = append(errs, fmt.Errorf("reply: %w", err))
			}
		}
		if j.Ticket != "" {
			if _, err := h.desk.Flush(ctx, j.Ticket); err != nil {
				errs = append(errs, fmt.Errorf("flush ticket %s: %w", j.Ticket, err))
			}
		}
	case JobReport:
		text, err := h.reportSummary(ctx, j.Month)
		if err != nil {
			h.log.Error("slack report", "month", j.Month, "err", err)
			text = ":x: the report for " + j.Month + " could not be built: " + err.Error()
		}
		if err := h.respond(ctx, j.ResponseURL, Message{ResponseType: "in_channel", Text: text}); err != nil {
			errs = append(errs, fmt.Errorf("post report: %w", err))
		}
	case JobScorecard:
		text, err := h.scorecardSummary(ctx, j.Month, j.To)
		if err != nil {
			h.log.Error("slack scorecard", "from", j.Month, "to", j.To, "err", err)
			text = ":x: the scorecard for " + j.Month + " to " + j.To + " could not be built: " + err.Error()
		}
		if err := h.respond(ctx, j.ResponseURL, Message{ResponseType: "in_channel", Text: text}); err != nil {
			errs = append(errs, fmt.Errorf("post scorecard: %w", err))
		}
	default:
		return fmt.Errorf("unknown job kind %q", j.Kind)
	}
	return errors.Join(errs...)
}

// slackMax keeps a message inside Slack's 40 000-character text limit.
const slackMax = 38000

// reportSummary builds the month with the SLA engine from the backend's
// export and renders the part a channel wants to read: each node's uptime
// and claim, and every ticket against its targets with the penalties the
// contract attaches to late ones.
func (h *Handler) reportSummary(ctx context.Context, month string) (string, error) {
	m, err := time.Parse("2006-01", month)
	if err != nil {
		return "", fmt.Errorf("month %q: want YYYY-MM", month)
	}
	// As of a whole second, rounded up so everything received so far is
	// in: the summary prints as-of to the second, and `gpusla report
	// --as-of` with that stamp must reproduce every figure.
	now := h.desk.Service().Now()
	asOf := now.Truncate(time.Second)
	if asOf.Before(now) {
		asOf = asOf.Add(time.Second)
	}
	rep, skipped, err := h.desk.MonthReport(ctx, m.Year(), m.Month(), asOf, h.export)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "*SLA report %s* (as of %s)\n", rep.Month, rep.AsOf)
	for _, s := range skipped {
		fmt.Fprintf(&b, ":warning: node *%s* left out of the report: %s\n", s.Node, s.Reason)
	}
	tickets, breached := 0, 0
	for _, n := range rep.Nodes {
		fmt.Fprintf(&b, "*%s* (%s): uptime %.3f %% claimable, %.3f %% observed (target %.2f %%); claim %.2f %s\n",
			n.Node, n.Contract, n.Uptime.ClaimablePercent, n.Uptime.ObservedPercent, n.Uptime.TargetPercent, n.Credit.Amount, n.Currency)
		pen := map[string][]string{}
		for _, p := range n.Credit.Penalties {
			pen[p.Ref] = append(pen[p.Ref], fmt.Sprintf("%s +%.1f %%", p.Kind, p.Percent))
		}
		sort.Slice(n.Tickets, func(i, j int) bool { return n.Tickets[i].OpenedAt < n.Tickets[j].OpenedAt })
		for _, t := range n.Tickets {
			tickets++
			if t.Breached {
				breached++
			}
			mark := ":white_check_mark:"
			if t.Breached {
				mark = ":rotating_light:"
			}
			hours := "business hours"
			if t.OffHours {
				hours = "off-hours (" + t.OpenedOn + ")"
			}
			fmt.Fprintf(&b, "%s *%s* %s %s, opened %s %s", mark, t.Ticket, n.Node, t.Priority, t.OpenedAt, hours)
			for _, tg := range []struct {
				name string
				t    *report.Target
			}{{"response", t.Response}, {"resolution", t.Resolution}, {"replacement", t.Replacement}} {
				if tg.t == nil {
					continue
				}
				fmt.Fprintf(&b, "; %s %s", tg.name, tg.t.Status)
				if tg.t.LateSeconds > 0 {
					fmt.Fprintf(&b, " %s late", (time.Duration(tg.t.LateSeconds) * time.Second).String())
				}
			}
			if ps := pen[t.Ticket]; len(ps) > 0 {
				fmt.Fprintf(&b, " — penalty %s", strings.Join(ps, ", "))
			}
			b.WriteString("\n")
		}
	}
	fmt.Fprintf(&b, "%d tickets, %d breached.", tickets, breached)
	s := b.String()
	if len(s) > slackMax {
		s = strings.ToValidUTF8(s[:slackMax], "") + "\n… (truncated; the full report has every line)"
	}
	return s, nil
}
