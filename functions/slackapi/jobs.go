package slackapi

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/gpusla/gpusla/infra/notify/chantext"
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
			text = chantext.SlackReportFailed(j.Month, err)
		}
		if err := h.respond(ctx, j.ResponseURL, Message{ResponseType: "in_channel", Text: text}); err != nil {
			errs = append(errs, fmt.Errorf("post report: %w", err))
		}
	case JobScorecard:
		text, err := h.scorecardSummary(ctx, j.Month, j.To)
		if err != nil {
			h.log.Error("slack scorecard", "from", j.Month, "to", j.To, "err", err)
			text = chantext.SlackScorecardFailed(j.Month, j.To, err)
		}
		if err := h.respond(ctx, j.ResponseURL, Message{ResponseType: "in_channel", Text: text}); err != nil {
			errs = append(errs, fmt.Errorf("post scorecard: %w", err))
		}
	default:
		return fmt.Errorf("unknown job kind %q", j.Kind)
	}
	return errors.Join(errs...)
}

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
	return chantext.SlackReportSummary(rep, skipped), nil
}
