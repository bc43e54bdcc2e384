package app

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
)

// EnvTerms names the environment variable that lists contract terms files
// or folders (separated by the OS path-list separator, ':' on Linux) for
// the functions that time tickets.
const EnvTerms = "GPUSLA_TERMS"

// WatchdogWithTickets is the watchdog run followed by the ticket watch, so
// ticket deadlines are checked on the same minute tick as heartbeats (the
// watchdog Lambda starts it). termsPaths (the value of GPUSLA_TERMS) are
// loaded once; if they cannot be, every run still runs the node watchdog
// and returns the terms error with its result, so the misconfiguration is
// in every log line and in Lambda's error metric instead of silently
// leaving tickets untimed.
func WatchdogWithTickets(s *Service, termsPaths string) func(context.Context) (WatchdogResult, error) {
	var desk *TicketDesk
	var paths []string
	if termsPaths != "" {
		paths = filepath.SplitList(termsPaths)
	}
	book, err := LoadTerms(paths...)
	if err == nil {
		desk, err = s.Tickets(book)
	}
	return func(ctx context.Context) (WatchdogResult, error) {
		res, werr := s.Watchdog(ctx)
		if err != nil {
			return res, errors.Join(werr, fmt.Errorf("ticket watch: %w", err))
		}
		tr, terr := desk.Watch(ctx)
		if terr != nil {
			werr = errors.Join(werr, terr)
		}
		if tr.Warnings+tr.Breaches > 0 {
			s.log.Info("ticket watch", "tickets", tr.Tickets, "warnings", tr.Warnings, "breaches", tr.Breaches, "sent", tr.Sent)
		}
		return res, werr
	}
}
