package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/notify/chantext"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/sla/claims"
	"github.com/gpusla/gpusla/sla/i18n"
)

// FollowUpWriter writes the follow-up letter on a claim whose provider let
// its own deadline pass (functions/document's, through the report job's
// Renderer), dated date, naming the renter and the contract number.
type FollowUpWriter interface {
	FollowUp(w io.Writer, c claims.Claim, st claims.Status, d claims.Deadlines, renter, contractNumber string, date time.Time, lang i18n.Lang) error
}

// FollowUpFile makes the follow-up letter of a claim's alert ready: the
// letter as a file a channel can attach, and where it is kept ("" when it
// is not). nil: the alert names the command that writes it.
type FollowUpFile func(ctx context.Context, c claims.Claim, st claims.Status, d claims.Deadlines, kind string, lang i18n.Lang, now time.Time) (*notify.File, string, error)

// Announce posts a notice to every channel that takes it, once per channel
// under marker (Announcer.Announce), and names the channels it reached.
type Announce func(ctx context.Context, marker string, n notify.Notice, now time.Time) ([]string, error)

// Watch alerts on each provider deadline that passed on a claim (its
// terms' claim.answer_within with no answer, claim.credit_within with
// something still outstanding), on every channel once, in the contract's
// language, with the follow-up letter's command; a channel that failed is
// tried again on the next run. The claim records when the alert first
// reached a channel. With letter, each alert carries its follow-up letter
// (attached where a channel takes files, and named where it is kept). It
// returns the alerts sent ("<claim> <kind>"). now is the watcher's clock
// (the report job's). A draft never sent by its claim deadline is alerted
// once, from that instant (Ledger.expired). skip names contracts whose
// claims are nobody's to chase (the ended demo's); nil skips none.
func (l *Ledger) Watch(ctx context.Context, announce Announce, letter FollowUpFile, skip func(contract string) bool, now time.Time) ([]string, error) {
	cs, err := l.listed(ctx)
	if err != nil {
		return nil, err
	}
	var sent []string
	var errs []error
	for _, c := range cs {
		if skip != nil && skip(c.Contract) {
			continue
		}
		d := l.Deadlines(c.Contract)
		st := c.StatusAt(d, now)
		if st.Expired && (c.Incident == nil || !coveredByMonth(cs, c.Claim)) {
			ok, err := l.expired(ctx, announce, c.Claim, now)
			if err != nil {
				errs = append(errs, fmt.Errorf("claim %s %s: %w", c.ID, chantext.ExpiredUnsent, err))
			}
			if ok {
				sent = append(sent, c.ID+" "+chantext.ExpiredUnsent)
			}
		}
		for _, kind := range overdueKinds(st) {
			lang, perr := i18n.Parse(c.Lang)
			if perr != nil {
				lang = i18n.EN
			}
			n := chantext.ClaimOverdue(lang, c.Claim, st, d, kind)
			if letter != nil {
				file, where, err := letter(ctx, c.Claim, st, d, kind, lang, now)
				if err != nil {
					errs = append(errs, fmt.Errorf("claim %s %s: follow-up letter: %w", c.ID, kind, err))
					continue
				}
				n.File = file
				if where != "" {
					n.Lines = append(n.Lines, chantext.FollowUpKept(lang, where))
				}
			}
			chans, err := announce(ctx, ClaimMarker(c.ID, kind), n, now)
			if err != nil {
				errs = append(errs, fmt.Errorf("claim %s %s: %w", c.ID, kind, err))
			}
			if len(chans) == 0 {
				continue
			}
			sent = append(sent, c.ID+" "+kind)
			if err := l.noted(ctx, c.ID, kind, now); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if len(sent) > 0 {
		l.log.Info("claims: provider deadlines passed", "alerts", sent)
	}
	return sent, errors.Join(errs...)
}

// expired alerts once that draft c was never sent by its claim deadline.
// The run that records the alert on the claim (a conditional write, so of
// two runs at once only one) posts it; a run that finds it recorded posts
// nothing. Where a channel failed the record is taken back, and the next
// run posts to the channels that lack it (their marks say which).
func (l *Ledger) expired(ctx context.Context, announce Announce, c claims.Claim, now time.Time) (bool, error) {
	kind := chantext.ExpiredUnsent
	held, err := l.Hold(ctx, c.ID, kind, now)
	if err != nil || !held {
		return false, err
	}
	lang, perr := i18n.Parse(c.Lang)
	if perr != nil {
		lang = i18n.EN
	}
	chans, err := announce(ctx, ClaimMarker(c.ID, kind), chantext.ClaimExpired(lang, c), now)
	if err != nil {
		return len(chans) > 0, errors.Join(err, l.Unhold(ctx, c.ID, kind, now))
	}
	return len(chans) > 0, nil
}

// Hold records on unsent claim id that its notice key is being sent at
// now, by a conditional write: true for the one caller that recorded it;
// false when it was recorded before or the claim was sent meanwhile (a
// sent claim is reminded of nothing).
func (l *Ledger) Hold(ctx context.Context, id, key string, now time.Time) (bool, error) {
	var held bool
	_, err := l.change(ctx, id, func(c *store.Claim) (bool, error) {
		held = c.Sent == nil && c.Notice(key) == nil
		if held {
			c.Notices = append(c.Notices, store.ClaimNotice{Key: key, SentAt: now})
		}
		return held, nil
	})
	if err != nil {
		return false, err
	}
	return held, nil
}

// Unhold takes back the notice key that Hold recorded at at, so the next
// run sends it again (to the channels that lack it).
func (l *Ledger) Unhold(ctx context.Context, id, key string, at time.Time) error {
	_, err := l.change(ctx, id, func(c *store.Claim) (bool, error) {
		n := c.Notice(key)
		if n == nil || !n.SentAt.Equal(at) {
			return false, nil
		}
		c.Notices = slices.DeleteFunc(c.Notices, func(x store.ClaimNotice) bool { return x.Key == key })
		return true, nil
	})
	return err
}

// ClaimMarker is where the report store marks a claim alert as delivered
// (one mark per channel).
func ClaimMarker(claim, kind string) string { return "claims/" + claim + "/" + kind }

func overdueKinds(st claims.Status) []string {
	var out []string
	if st.AnswerOverdue {
		out = append(out, chantext.AnswerOverdue)
	}
	if st.CreditOverdue {
		out = append(out, chantext.CreditOverdue)
	}
	return out
}

// noted records on the claim that its alert kind reached a channel at now
// (the first time only).
func (l *Ledger) noted(ctx context.Context, id, kind string, now time.Time) error {
	_, err := l.change(ctx, id, func(c *store.Claim) (bool, error) {
		if c.Notice(kind) != nil {
			return false, nil
		}
		c.Notices = append(c.Notices, store.ClaimNotice{Key: kind, SentAt: now})
		return true, nil
	})
	return err
}
