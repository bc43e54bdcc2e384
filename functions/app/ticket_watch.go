package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/notify/chantext"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/sla/terms"
	"github.com/gpusla/gpusla/sla/ticket"
)

// noticeRetryAfter: a notice claimed by a sender this recently is left to
// it (a send in flight), not sent twice.
const noticeRetryAfter = 30 * time.Second

// TicketWatchResult says what one ticket watch did.
type TicketWatchResult struct {
	Tickets  int // open tickets looked at
	Warnings int // warnings queued
	Breaches int // breaches queued
	Sent     int // notices delivered
}

// Watch is the ticket part of the watchdog: for every open ticket it
// queues a warning when a running target has used WarnFraction of its
// allowance and a breach notice once its deadline has passed (at the very
// instant: elapsed ≥ target), then sends what is queued. Running it twice
// queues nothing twice: notices are keyed per target.
func (d *TicketDesk) Watch(ctx context.Context) (TicketWatchResult, error) {
	var res TicketWatchResult
	list, err := d.store.ListTickets(ctx, true)
	if err != nil {
		return res, fmt.Errorf("ticket watch: %w", err)
	}
	var errs []error
	for _, t := range list {
		res.Tickets++
		w, b, err := d.watchOne(ctx, t)
		res.Warnings += w
		res.Breaches += b
		if err != nil {
			errs = append(errs, fmt.Errorf("ticket %s: %w", t.ID, err))
			continue
		}
		if w+b == 0 && !t.Unsent() && stillOpenAt(d, &t, d.svc.Now()) {
			continue // nothing to send: no read, no write (the every-minute steady state)
		}
		n, err := d.Flush(ctx, t.ID)
		res.Sent += n
		if err != nil {
			errs = append(errs, fmt.Errorf("ticket %s: %w", t.ID, err))
		}
	}
	return res, errors.Join(errs...)
}

// watchOne queues what is due on t (as listed; re-read only after a lost
// race), so a tick over open tickets with nothing due reads nothing more.
func (d *TicketDesk) watchOne(ctx context.Context, listed store.Ticket) (warnings, breaches int, err error) {
	r := ticketRecord(d.store, listed.ID, "ticket watch "+listed.ID)
	read := r.read
	r.read = func(ctx context.Context, attempt int) (store.Ticket, error) {
		if attempt == 0 {
			return listed, nil
		}
		return read(ctx, attempt)
	}
	t, err := update(ctx, "ticket watch "+listed.ID, r, func(t *store.Ticket) error {
		var err error
		warnings, breaches, err = d.queueDue(t)
		return err
	})
	if err != nil {
		return 0, 0, err
	}
	for _, n := range t.Notices[len(t.Notices)-warnings-breaches:] {
		d.log.Warn("ticket "+n.Kind, "ticket", t.ID, "node", t.Node, "notice", n.Key)
	}
	return warnings, breaches, nil
}

// queueDue adds to t the warning or breach notice each running clock has
// come to, and whether the ticket stays listed; errUnchanged when nothing
// is due.
func (d *TicketDesk) queueDue(t *store.Ticket) (warnings, breaches int, err error) {
	now := d.svc.Now()
	tim, tm, err := d.Timing(t, now)
	if err != nil {
		return 0, 0, err
	}
	for _, c := range tim.Clocks() {
		if c.Clock == nil || !c.Clock.Done.IsZero() || c.Clock.Target <= 0 {
			continue
		}
		switch {
		case c.Clock.Status == ticket.Breached:
			if t.AddNotice(store.TicketNotice{Key: c.Name + "/breached", Kind: store.NoticeBreached, Text: breachText(t, c.Name, c.Clock, tim, tm), CreatedAt: now}) {
				breaches++
			}
		case float64(c.Clock.Elapsed) >= WarnFraction*float64(c.Clock.Target):
			if t.Notice(c.Name+"/breached") == nil &&
				t.AddNotice(store.TicketNotice{Key: c.Name + "/warning", Kind: store.NoticeWarning, Text: warnText(t, c.Name, c.Clock, tm), CreatedAt: now}) {
				warnings++
			}
		}
	}
	open := stillOpen(t, tim) || t.Unsent()
	if warnings+breaches == 0 && open == t.Open {
		return 0, 0, errUnchanged
	}
	t.Open, t.UpdatedAt = open, now
	return warnings, breaches, nil
}

// Flush sends a ticket's queued notices in order, the "opened" one first
// (its thread is where the others go). Each send is claimed with a versioned
// write first, so two flushes never send one notice twice; a failed send
// stays queued for the next watchdog run. It returns how many it sent.
func (d *TicketDesk) Flush(ctx context.Context, id string) (int, error) {
	for sent := 0; ; sent++ {
		t, key, err := d.claimNext(ctx, id)
		if err != nil || key == "" {
			return sent, err
		}
		thread, okTo, nerr := d.sendNotice(ctx, &t, key)
		if err := d.markSent(ctx, id, key, thread, okTo, nerr); err != nil {
			return sent, err
		}
		if nerr != nil {
			d.log.Warn("ticket notice not delivered; the watchdog retries it", "ticket", id, "notice", key, "err", nerr)
			return sent, nil
		}
	}
}

// claimNext claims the ticket's oldest unsent notice with a versioned
// write and returns its key; "" when none is left (the ticket closed if
// nothing runs any more) or another flush claimed it within
// noticeRetryAfter and may be sending it now.
func (d *TicketDesk) claimNext(ctx context.Context, id string) (store.Ticket, string, error) {
	var key string
	t, err := d.updateTicket(ctx, id, "claim a notice of ticket "+id, func(t *store.Ticket) error {
		key = ""
		now := d.svc.Now()
		i := slices.IndexFunc(t.Notices, func(n store.TicketNotice) bool { return n.SentAt.IsZero() })
		if i < 0 {
			if t.Open && !stillOpenAt(d, t, now) {
				// Last notice out and nothing running: close it.
				t.Open, t.UpdatedAt = false, now
				return nil
			}
			return errUnchanged
		}
		next := &t.Notices[i]
		if next.Attempts > 0 && now.Sub(next.LastAttemptAt) < noticeRetryAfter {
			return errUnchanged // someone is sending it right now
		}
		next.Attempts++
		next.LastAttemptAt = now
		key = next.Key
		return nil
	})
	return t, key, err
}

// sendNotice sends the claimed notice key of t to every channel of the
// ticket's contract that does not have it yet, each cut off before the
// claim may be taken again: the channels that took it, the thread the
// first one started, and the channels' errors.
func (d *TicketDesk) sendNotice(ctx context.Context, t *store.Ticket, key string) (thread string, okTo []string, err error) {
	next := t.Notice(key)
	m := notify.TicketMessage{Kind: notify.TicketKind(next.Kind), Ticket: t.ID, Node: t.Node, Provider: t.Provider,
		Opened: t.Opened, Text: next.Text, Thread: t.Thread}
	if _, tm, err := d.Timing(t, d.svc.Now()); err == nil {
		m.Lang, m.Zone = contractWords(tm) // the text's own, so the robot shows one clock
	}
	var (
		mu      sync.Mutex
		sendErr []error
	)
	channels := slices.DeleteFunc(d.svc.ticketChannels(t.Contract, m), func(ch string) bool { return slices.Contains(next.SentTo, ch) })
	eachChannel(ctx, channels, func(ctx context.Context, ch string) {
		var th string
		nt, err := d.svc.notifierOf(ch)
		if err == nil {
			// Cut off before the claim may be taken again: a hung
			// channel neither holds the request (or tick) for good nor
			// gets the notice twice at once.
			actx, cancel := context.WithTimeout(ctx, noticeRetryAfter*3/4)
			th, err = nt.NotifyTicket(actx, m)
			cancel()
		}
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			sendErr = append(sendErr, channelErr(ch, err))
			return
		}
		okTo = append(okTo, ch)
		if thread == "" {
			thread = th
		}
	})
	return thread, okTo, errors.Join(sendErr...)
}

// channelErr names the channel of a send's error, redacted a second time
// (the channels redact their own): it is logged and stored as the
// notice's last_error, which the tickets API answers.
func channelErr(ch string, err error) error {
	if ch == "" {
		return notify.Redact(err)
	}
	return notify.Redact(fmt.Errorf("channel %s: %w", ch, err))
}

func stillOpenAt(d *TicketDesk, t *store.Ticket, now time.Time) bool {
	tim, _, err := d.Timing(t, now)
	if err != nil {
		return true
	}
	return stillOpen(t, tim)
}

// markSent records a send: the named channels in okTo have the notice; with
// no error left it is sent.
func (d *TicketDesk) markSent(ctx context.Context, id, key, thread string, okTo []string, sendErr error) error {
	_, err := d.updateTicket(ctx, id, "mark notice sent on "+id, func(t *store.Ticket) error {
		n := t.Notice(key)
		if n == nil {
			return fmt.Errorf("notice %s vanished from ticket %s", key, id)
		}
		for _, ch := range okTo {
			if ch != "" && !slices.Contains(n.SentTo, ch) {
				n.SentTo = append(n.SentTo, ch)
			}
		}
		if t.Thread == "" && thread != "" {
			t.Thread = thread
		}
		if sendErr != nil {
			n.LastErr = sendErr.Error()
			n.LastAttemptAt = time.Time{} // free for the next try
		} else {
			// Once sent, the text has done its job; the key stays (so the
			// notice is never queued again) and the item stays small, which
			// DynamoDB bills per KB on every later write of the ticket.
			n.SentAt, n.LastErr, n.Text, n.SentTo = d.svc.Now(), "", "", nil
		}
		return nil
	})
	return err
}

// ---- message texts (what people read in the ticket's thread): written
// in infra/notify/chantext, in the contract's language and on its clock.

// contractWords are the language and zone a contract's messages are
// written in (report.lang, timezone).
func contractWords(tm *terms.Terms) (lang, zone string) {
	lang, zone = tm.Paperwork.Lang, "UTC"
	if tm.Calendar != nil && tm.Calendar.Loc != nil {
		zone = tm.Calendar.Loc.String()
	}
	return lang, zone
}

func ticketFacts(t *store.Ticket, tm *terms.Terms) chantext.TicketFacts {
	return chantext.TicketFacts{ID: t.ID, Node: t.Node, Priority: t.Priority, ProviderRef: t.ProviderRef, Summary: t.Summary,
		Contract: tm.Contract, Opened: t.Opened, Recorded: t.CreatedAt, By: t.OpenedBy}
}

func openedText(t *store.Ticket, tim ticket.Timing, tm *terms.Terms) string {
	lang, zone := contractWords(tm)
	return chantext.TicketOpenedText(lang, zone, ticketFacts(t, tm), tim)
}

func recordedText(t *store.Ticket, e store.TicketEvent, tim ticket.Timing, tm *terms.Terms) string {
	lang, zone := contractWords(tm)
	return chantext.TicketRecordedText(lang, zone, ticketFacts(t, tm), chantext.TicketEvent{Type: e.Type, At: e.At, RecordedAt: e.RecordedAt,
		By: e.By, AwaitingCustomer: e.AwaitingCustomer, Paused: tm.Support.PauseAwaitingCustomer, Target: e.Target, Late: e.Late}, tim)
}

func warnText(t *store.Ticket, name string, c *ticket.Clock, tm *terms.Terms) string {
	lang, zone := contractWords(tm)
	return chantext.TicketWarningText(lang, zone, ticketFacts(t, tm), name, c)
}

func breachText(t *store.Ticket, name string, c *ticket.Clock, tim ticket.Timing, tm *terms.Terms) string {
	lang, zone := contractWords(tm)
	return chantext.TicketBreachedText(lang, zone, ticketFacts(t, tm), name, c, tim)
}
