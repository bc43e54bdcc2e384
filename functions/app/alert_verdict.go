package app

import (
	"context"
	"time"

	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/sla/account"
	"github.com/gpusla/gpusla/sla/i18n"
	"github.com/gpusla/gpusla/sla/incident"
	"github.com/gpusla/gpusla/sla/msg"
	"github.com/gpusla/gpusla/sla/terms"
)

// belowMinimum is account.Judge's reason for an outage shorter than the
// contract's minimum: at an incident's opening it means "not yet".
const belowMinimum = "part of an outage run shorter than the contract's minimum of %s"

// strictMinimum is its reason under downtime_period.more_than.
const strictMinimum = "part of an outage run of at most %s, which the contract does not count"

// inContractWords gives an alert its contract's language and zone (every
// channel writes it in them, infra/notify/chantext) and the contract's
// reason, when it does not count, in that language; the first alert of an
// outage gets the verdict the report would give it so far (openingVerdict).
func (s *Service) inContractWords(ctx context.Context, n store.Node, inc store.Incident, op incident.Op, a *notify.Alert) {
	tm := s.termsOf(n)
	a.Lang, a.Zone = s.chatLanguage(n)
	p := i18n.New(i18n.Lang(a.Lang))
	why := msg.Text{}
	if ok, w := account.Counts(tm, incident.Kind(inc.Kind), a.Cause); !ok {
		why = w
	}
	if op == incident.Open && !notify.IsDelivery(*a) {
		a.Counted, a.NotYet, why = s.openingVerdict(ctx, n, inc, tm, p)
	}
	a.Reason = p.Text(why)
}

// chatLanguage is the language (the contract's report.lang, English if
// none) and the clock (its calendar's zone, UTC if none) of n's chat
// messages.
func (s *Service) chatLanguage(n store.Node) (lang, zone string) {
	tm := s.termsOf(n)
	l, err := i18n.Parse(tm.Paperwork.Lang)
	if err != nil {
		l = i18n.EN
	}
	zone = "UTC"
	if tm.Calendar != nil && tm.Calendar.Loc != nil {
		zone = tm.Calendar.Loc.String()
	}
	return string(l), zone
}

// openingVerdict judges an incident as it opens the way the monthly report
// will (JudgeIncidents over its span so far): counted; not yet, only for
// being shorter than the contract's minimum outage (and from when it
// will); or not, with the report's reason (announced maintenance, the
// backend down, a kind the contract does not count). A store error leaves
// the verdict of the kind and cause alone.
func (s *Service) openingVerdict(ctx context.Context, n store.Node, inc store.Incident, tm *terms.Terms, p *i18n.Printer) (counted, notYet bool, why msg.Text) {
	if ok, w := account.Counts(tm, incident.Kind(inc.Kind), inc.Cause); !ok {
		return false, false, w
	}
	from, to := inc.Start, s.Now().Add(time.Second)
	j := Judging{Node: n, From: from, To: to}
	maint, err := s.store.ListMaintenance(ctx, from, to)
	if err != nil {
		return inc.Counted, false, msg.Text{}
	}
	j.Maintenance = maint
	if st, err := s.store.GetState(ctx, n.ID); err == nil {
		j.FirstHeartbeat = st.FirstHeartbeatAt
	}
	if j.Backend, err = s.backendDown(ctx, from, to); err != nil {
		return inc.Counted, false, msg.Text{}
	}
	if ts, ok := s.store.(store.TicketStore); ok {
		if tickets, err := ts.ListTickets(ctx, false); err == nil {
			for _, t := range tickets {
				if t.Node == n.ID {
					j.Notices = append(j.Notices, t.Opened)
				}
			}
		}
	}
	_, parts := s.Verdicts(j, []store.Incident{inc})
	for _, part := range parts {
		if part.Verdict.Counted {
			return true, false, msg.Text{}
		}
	}
	if len(parts) == 0 {
		return inc.Counted, false, msg.Text{}
	}
	why = parts[0].Reason
	if dp := tm.Uptime.DowntimePeriod; dp.Minimum > 0 {
		switch why.Format {
		case strictMinimum:
			return false, true, msg.New("counts once it lasts more than %s, the contract's minimum outage", p.Words(dp.Minimum))
		case belowMinimum:
			return false, true, msg.New("counts once it lasts %s, the contract's minimum outage", p.Words(dp.Minimum))
		}
	}
	return false, false, why
}
