package app

import (
	"context"
	"fmt"
	"time"

	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/notify/chantext"
	"github.com/gpusla/gpusla/sla/claims"
	"github.com/gpusla/gpusla/sla/scorecard"
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
// claims, through the job's poster.
func (j *ReportJob) watchClaims(ctx context.Context, now time.Time) ([]string, error) {
	if j.Notices == nil {
		return nil, nil
	}
	l, err := j.Desk.Ledger()
	if err != nil {
		return nil, nil
	}
	return l.Watch(ctx, j.announcer().Announce, now)
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
