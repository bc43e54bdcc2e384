package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/notify/chantext"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/sla/claims"
	"github.com/gpusla/gpusla/sla/i18n"
)

// Announce posts a notice to every channel that takes it, once per channel
// under marker (Announcer.Announce), and names the channels it reached.
type Announce func(ctx context.Context, marker string, n notify.Notice, now time.Time) ([]string, error)

// Watch alerts on each provider deadline that passed on a claim (its
// terms' claim.answer_within with no answer, claim.credit_within with
// something still outstanding), on every channel once, in the contract's
// language, with the follow-up letter's command; a channel that failed is
// tried again on the next run. The claim records when the alert first
// reached a channel. It returns the alerts sent ("<claim> <kind>"). now is
// the watcher's clock (the report job's).
func (l *Ledger) Watch(ctx context.Context, announce Announce, now time.Time) ([]string, error) {
	cs, err := l.store.ListClaims(ctx)
	if err != nil {
		return nil, fmt.Errorf("claims: %w", err)
	}
	var sent []string
	var errs []error
	for _, c := range cs {
		d := l.Deadlines(c.Contract)
		st := c.StatusAt(d, now)
		for _, kind := range overdueKinds(st) {
			lang, perr := i18n.Parse(c.Lang)
			if perr != nil {
				lang = i18n.EN
			}
			chans, err := announce(ctx, ClaimMarker(c.ID, kind), chantext.ClaimOverdue(lang, c.Claim, st, d, kind), now)
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
