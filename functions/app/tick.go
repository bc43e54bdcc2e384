package app

import (
	"context"
	"errors"
	"fmt"
)

// MinuteTick is the backend's every-minute run, one and the same for the
// watchdog Lambda and `gpusla serve`: the node watchdog (the backend's own
// liveness, overdue heartbeats, repairs, alert retries), then the ticket
// watch (deadline warnings, breaches, notice retries), so ticket deadlines
// are checked on the same tick as heartbeats, then the providers' status
// pages that are due (PollStatusPages, each on its terms' schedule).
//
// desk is nil when there are no tickets to watch; deskErr, when set, says
// why the desk could not be made (terms that cannot be read). Then every
// run still runs the node watchdog and returns deskErr with its result, so
// the misconfiguration is in every log line (and in Lambda's error metric)
// instead of silently leaving tickets untimed.
func MinuteTick(s *Service, desk *TicketDesk, deskErr error) func(context.Context) (WatchdogResult, error) {
	return func(ctx context.Context) (WatchdogResult, error) {
		res, werr := s.Watchdog(ctx)
		if deskErr != nil {
			return res, errors.Join(werr, fmt.Errorf("ticket watch: %w", deskErr))
		}
		if desk == nil {
			return res, werr
		}
		tr, terr := desk.Watch(ctx)
		if terr != nil {
			werr = errors.Join(werr, fmt.Errorf("ticket watch: %w", terr))
		}
		if tr.Warnings+tr.Breaches > 0 {
			s.log.Info("ticket watch", "tickets", tr.Tickets, "warnings", tr.Warnings, "breaches", tr.Breaches, "sent", tr.Sent)
		}
		// Last, so a slow provider page never delays the node watchdog or
		// the ticket clocks: the providers' status pages that are due.
		if _, perr := desk.PollStatusPages(ctx, s.Now()); perr != nil {
			werr = errors.Join(werr, fmt.Errorf("status pages: %w", perr))
		}
		return res, werr
	}
}
