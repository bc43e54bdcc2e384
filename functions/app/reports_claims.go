package app

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"time"

	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/notify/chantext"
	"github.com/gpusla/gpusla/sla/claims"
	"github.com/gpusla/gpusla/sla/i18n"
	"github.com/gpusla/gpusla/sla/scorecard"
	"github.com/gpusla/gpusla/sla/terms"
)

// ReportJobBy is who the report job records the claims it drafts as.
const ReportJobBy = "report-job"

// followClaims drafts the claim of each of a contract's last few stored
// months that asks for a credit and has none in the ledger yet (the month's
// report is sealed and finished: the job generates a month only once it is
// over), so a claim is drafted even when the run that stored the report
// failed before drafting it.
func (j *ReportJob) followClaims(ctx context.Context, first time.Time, contract string) ([]string, error) {
	l, err := j.Desk.Ledger()
	if err != nil {
		return nil, nil // a store without a ledger: nothing to follow
	}
	var out []string
	for back := 1; back <= 4; back++ {
		month := first.AddDate(0, -back, 0).Format("2006-01")
		id := claims.ID(contract, month)
		if _, err := l.store.GetClaim(ctx, id); err == nil {
			continue
		} else if !IsNotFound(err) {
			return out, fmt.Errorf("claim %s: %w", id, err)
		}
		r, err := j.load(ctx, month, contract)
		if IsNotFound(err) {
			continue
		}
		if err != nil {
			return out, err
		}
		ds, err := l.Draft(ctx, ContractReport(r, contract), ReportJobBy)
		if err != nil {
			return out, fmt.Errorf("claim %s: %w", id, err)
		}
		for _, d := range ds {
			if d.Outcome == "drafted" {
				out = append(out, d.Claim)
			}
		}
	}
	return out, nil
}

// watchClaims alerts on the providers' deadlines passed on the ledger's
// claims and on the drafts never sent by their deadline, through the job's
// poster, leaving out the contracts in over (the ended demo's).
func (j *ReportJob) watchClaims(ctx context.Context, over map[string]bool, now time.Time) ([]string, error) {
	if j.Notices == nil {
		return nil, nil
	}
	l, err := j.Desk.Ledger()
	if err != nil {
		return nil, nil
	}
	var letter FollowUpFile
	if fw, ok := j.Renderer.(FollowUpWriter); ok {
		letter = j.followUpFile(l, fw)
	}
	return l.Watch(ctx, j.announcer().Announce, letter, func(c string) bool { return over[c] }, now)
}

// FollowUpPath is where the follow-up letter of a claim's alert of kind
// is kept, beside its month's report.
func FollowUpPath(claim, kind string) (string, error) {
	contract, month, err := claims.ParseID(claim)
	if err != nil {
		return "", err
	}
	return ReportPrefix(month, contract) + "/follow-up-" + kind + ".txt", nil
}

// followUpFile writes the letter of an alert with fw, keeps it beside the
// claim's month's report (written again on a retry: the same letter, the
// date of its alert), and attaches it.
func (j *ReportJob) followUpFile(l *Ledger, fw FollowUpWriter) FollowUpFile {
	return func(ctx context.Context, c claims.Claim, st claims.Status, d claims.Deadlines, kind string, lang i18n.Lang, now time.Time) (*notify.File, string, error) {
		renter, number := l.Paperwork(c.Contract)
		var b bytes.Buffer
		if err := fw.FollowUp(&b, c, st, d, renter, number, now, lang); err != nil {
			return nil, "", err
		}
		where, err := FollowUpPath(c.ID, kind)
		if err != nil {
			return nil, "", err
		}
		if err := j.Blobs.Put(ctx, where, b.Bytes()); err != nil {
			return nil, "", err
		}
		name := fmt.Sprintf("follow-up-%s-%s.txt", c.Contract, c.Month)
		return &notify.File{Name: name, Title: name, Data: b.Bytes()}, where, nil
	}
}

// scorecardClaims adds to sc (when one is kept) what each provider's
// claims of its months recovered, from the ledger as of asOf.
func (j *ReportJob) scorecardClaims(ctx context.Context, sc *scorecard.Scorecard, asOf time.Time) error {
	if sc == nil {
		return nil
	}
	l, err := j.Desk.Ledger()
	if err != nil {
		return nil // a store without a ledger: no claims to show
	}
	cs, ds, err := l.Ledger(ctx)
	if err != nil {
		return err
	}
	sc.AddClaims(cs, ds, asOf)
	return nil
}

// recoveryLines are the month's notice's lines of what a contract's
// provider's claims recovered, in the contract's language (none with no
// claims).
func (j *ReportJob) recoveryLines(ctx context.Context, provider, contract string) ([]notify.Line, error) {
	l, err := j.Desk.Ledger()
	if err != nil {
		return nil, nil
	}
	rec, err := l.Recovery(ctx)
	if err != nil {
		return nil, err
	}
	var rows []claims.RecoveryRow
	for _, r := range rec.Rows {
		if r.Provider == provider {
			rows = append(rows, r)
		}
	}
	return chantext.RecoveryLines(j.summaryLang(contract), rows), nil
}

// remindBeforeReport sends the reminders of a claim due before its month's
// report is written. A window counted from the incident ("within 30 days of
// the incident": Alibaba ECS, hosted·ai) closes 30 days after the month's
// first counted outage began: an outage on 1 March 10:00 is claimed before
// 31 March 10:00, before the month ends, and one on 5 March has its 7-day
// reminder due on 28 March. The stored report comes six hours after the
// month, too late for those, so the month is built as of now (provisional:
// the claim so far) and its due reminders sent under the same marks the
// stored report's use, so that none goes twice. Only a contract with such
// a window, and only from the day its earliest reminder can be due (the
// window less 7 days after the month's start), pays for the build. Where no
// ledger claim exists yet, the channels' marks alone keep each reminder to
// one post, as for a stored month whose claim is not drafted yet. An outage
// begun the month before counts from its start and may make the claim due
// before that first day: its reminder then comes on the first day, late.
func (j *ReportJob) remindBeforeReport(ctx context.Context, tm *terms.Terms, first, now time.Time, left *nodesLeftOut) ([]string, error) {
	if tm == nil || !tm.Claim.FromIncident || tm.Claim.WindowDays <= 0 || j.announcer() == nil {
		return nil, nil
	}
	if _, err := j.Desk.Ledger(); err == nil {
		// The ledger holds each incident's own claim and reminds of it
		// (followIncidents, Ledger.RemindIncidents), without a figure the
		// rest of the month may still change.
		return nil, nil
	}
	var sent []string
	// This month, and the last one while its report is not written yet.
	for _, start := range []time.Time{first, first.AddDate(0, -1, 0)} {
		month := start.Format("2006-01")
		if now.Before(start.AddDate(0, 0, tm.Claim.WindowDays-ReminderDays[0])) {
			continue
		}
		if done, err := j.generated(ctx, month, tm.Contract); err != nil || done {
			if err != nil {
				return sent, err
			}
			continue
		}
		if left == nil {
			var err error
			if left, err = j.leftOut(ctx); err != nil {
				return sent, err
			}
		}
		// Only this contract's nodes are built: the hourly cost is its own
		// fleet's, whatever else the store holds.
		skip := maps.Clone(j.skip(left, start.Year(), start.Month(), tm.Contract, now))
		if skip == nil {
			skip = map[string]string{}
		}
		for _, n := range left.nodes {
			if _, ok := skip[n.ID]; !ok && n.Contract != tm.Contract {
				skip[n.ID] = "another contract's node: not needed for " + tm.Contract + "'s reminders"
			}
		}
		bk, ok := j.books(skip)
		if !ok {
			return sent, nil // a store that cannot build a month: the stored report's reminders only
		}
		full, err := bk.Month(ctx, start.Year(), start.Month(), now)
		if err != nil {
			return sent, fmt.Errorf("month so far %s for %s: %w", month, tm.Contract, err)
		}
		s, err := j.remindOf(ctx, ContractReport(full, tm.Contract), month, tm.Contract, now)
		sent = append(sent, s...)
		if err != nil {
			return sent, err
		}
	}
	return sent, nil
}

// followIncidents drafts the incident claims of contract tm's month so far
// and of the last month (its stored report once written, else the month so
// far), where the window runs from the incident in days: each incident
// over and counted gets its own claim as soon as the job runs after it
// ends, due at its own deadline (Ledger.DraftIncidents).
func (j *ReportJob) followIncidents(ctx context.Context, tm *terms.Terms, first, now time.Time, left *nodesLeftOut) ([]string, error) {
	if tm == nil || !tm.Claim.FromIncident || tm.Claim.BillingCycles > 0 || tm.Claim.WindowDays <= 0 {
		return nil, nil
	}
	l, err := j.Desk.Ledger()
	if err != nil {
		return nil, nil // a store without a ledger: nothing to follow
	}
	var out []string
	for _, start := range []time.Time{first, first.AddDate(0, -1, 0)} {
		month := start.Format("2006-01")
		r, err := j.load(ctx, month, tm.Contract)
		switch {
		case err == nil:
		case !IsNotFound(err):
			return out, err
		default:
			if left == nil {
				if left, err = j.leftOut(ctx); err != nil {
					return out, err
				}
			}
			bk, ok := j.books(j.skip(left, start.Year(), start.Month(), tm.Contract, now))
			if !ok {
				return out, nil // a store that cannot build a month: the stored reports only
			}
			if r, err = bk.Month(ctx, start.Year(), start.Month(), now); err != nil {
				return out, fmt.Errorf("month so far %s for %s: %w", month, tm.Contract, err)
			}
		}
		ds, err := l.DraftIncidents(ctx, ContractReport(r, tm.Contract), ReportJobBy)
		for _, d := range ds {
			if d.Outcome == "drafted" {
				out = append(out, d.Claim)
			}
		}
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// remindIncidents sends the reminders due on the ledger's unsent incident
// claims (Ledger.RemindIncidents), leaving out the contracts in over.
func (j *ReportJob) remindIncidents(ctx context.Context, over map[string]bool, now time.Time) ([]string, error) {
	if j.announcer() == nil {
		return nil, nil
	}
	l, err := j.Desk.Ledger()
	if err != nil {
		return nil, nil
	}
	return l.RemindIncidents(ctx, j.announcer().Announce, func(c string) bool { return over[c] }, now)
}
