package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/httpapi"
	"github.com/gpusla/gpusla/functions/slackapi"
	"github.com/gpusla/gpusla/sla/ticket"
)

func init() {
	commands = append(commands, newTicketCmd)
}

// Environment of the ticket desk in `gpusla serve` (docs/tickets.md).
const (
	// EnvTerms lists contract terms files or folders (os.PathListSeparator
	// between them); default: the data folder's terms/ folder.
	envTerms = "GPUSLA_TERMS"
	// EnvSlackSigningSecret is the Slack app's signing secret; without it
	// the Slack endpoints are not served.
	envSlackSigningSecret = "GPUSLA_SLACK_SIGNING_SECRET"
)

// loadTermsFor reads the terms the ticket desk times tickets against:
// $GPUSLA_TERMS, else <data>/terms if it exists (else none, and opening a
// ticket says which contract is missing).
func loadTermsFor(data string) (app.TermsBook, []string, error) {
	var paths []string
	if v := os.Getenv(envTerms); v != "" {
		paths = filepath.SplitList(v)
	} else if st, err := os.Stat(filepath.Join(data, "terms")); err == nil && st.IsDir() {
		paths = []string{filepath.Join(data, "terms")}
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, nil, err
	}
	book, err := app.LoadTerms(paths...)
	return book, paths, err
}

// ticketDesk is the ticket part of `gpusla serve`: the ticket API and the
// Slack endpoints on the same mux, and the ticket watch beside the watchdog.
type ticketDesk struct {
	desk   *app.TicketDesk
	runner *slackapi.GoRunner
	log    *slog.Logger
}

// setupTickets registers the ticket API (and the Slack endpoints when a
// signing secret is set) on api's mux.
func setupTickets(svc *app.Service, api *httpapi.API, data string, log *slog.Logger) (*ticketDesk, error) {
	book, paths, err := loadTermsFor(data)
	if err != nil {
		return nil, err
	}
	desk, err := svc.Tickets(book)
	if err != nil {
		return nil, err
	}
	httpapi.RegisterTickets(api.Mux(), desk, log)
	td := &ticketDesk{desk: desk, log: log}
	log.Info("ticket API on "+httpapi.PathTickets, "terms", strings.Join(paths, string(os.PathListSeparator)), "contracts", strings.Join(book.Contracts(), ","))
	if len(book) == 0 {
		log.Warn("no contract terms loaded: tickets cannot be timed; put terms files in " + filepath.Join(data, "terms") + " or set " + envTerms)
	}
	if secret := os.Getenv(envSlackSigningSecret); secret != "" {
		h, err := slackapi.New(slackapi.Config{Desk: desk, SigningSecret: secret, Log: log})
		if err != nil {
			return nil, err
		}
		td.runner = slackapi.NewGoRunner(h, 2*time.Minute)
		h.SetRunner(td.runner)
		h.Register(api.Mux())
		log.Info("Slack endpoints on " + slackapi.PathCommands + " and " + slackapi.PathInteractions)
	} else {
		log.Info("Slack commands and buttons off: set " + envSlackSigningSecret + " to the Slack app's signing secret")
	}
	return td, nil
}

// watch runs the ticket watch (called with every watchdog run).
func (t *ticketDesk) watch(ctx context.Context) {
	res, err := t.desk.Watch(ctx)
	if err != nil {
		t.log.Error("ticket watch", "err", err)
	}
	if res.Warnings+res.Breaches > 0 {
		t.log.Info("ticket watch", "tickets", res.Tickets, "warnings", res.Warnings, "breaches", res.Breaches, "sent", res.Sent)
	}
}

// close waits for Slack follow-up work still running.
func (t *ticketDesk) close() {
	if t.runner != nil {
		t.runner.Wait()
	}
}

func newTicketCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "ticket", Short: "List provider tickets and their clocks (local store)"}
	var data string
	var open bool
	list := &cobra.Command{
		Use:   "list [--open]",
		Short: "List tickets with their targets, deadlines and lateness",
		Long: `Lists the tickets in the local store (stop ` + "`gpusla serve`" + ` first: the store is
locked while it runs), each timed against its node's contract terms
($` + envTerms + ` or <data>/terms) as of now. Tickets are opened and updated
through the API (docs/tickets.md) or Slack (/gpusla ticket …).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			store, box, err := openExisting(cmd.Context(), data)
			if err != nil {
				return err
			}
			defer store.Close()
			book, _, err := loadTermsFor(data)
			if err != nil {
				return err
			}
			svc, err := app.New(app.Config{Store: store, Notifier: noNotifier{}, Box: box})
			if err != nil {
				return err
			}
			desk, err := svc.Tickets(book)
			if err != nil {
				return err
			}
			list, err := desk.List(cmd.Context(), open)
			if err != nil {
				return err
			}
			now := svc.Now()
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "TICKET\tNODE\tPRIO\tOPENED (UTC)\tHOURS\tRESPONSE\tRESOLUTION\tREPLACEMENT")
			for i := range list {
				t := &list[i]
				tim, _, err := desk.Timing(t, now)
				if err != nil {
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t?\t%v\t\t\n", t.ID, t.Node, t.Priority, t.Opened.Format("2006-01-02 15:04"), err)
					continue
				}
				hours := "business"
				if tim.OffHours {
					hours = "off (" + string(tim.DayKind) + ")"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", t.ID, t.Node, t.Priority, t.Opened.Format("2006-01-02 15:04"), hours,
					clockCell(tim.Response), clockCell(tim.Resolution), clockCell(tim.Replacement))
			}
			return tw.Flush()
		},
	}
	list.Flags().BoolVar(&open, "open", false, "only tickets still open")
	cmd.PersistentFlags().StringVar(&data, "data", "./data", "data folder of the local backend")
	cmd.AddCommand(list)
	return cmd
}

// clockCell renders one target: "met 12m0s", "BREACHED 7m0s late (due …)",
// "pending, due … (in 5m0s)", or "-" when the contract sets none.
func clockCell(c *ticket.Clock) string {
	if c == nil {
		return "-"
	}
	due := c.Deadline.UTC().Format("01-02 15:04")
	switch c.Status {
	case ticket.Met:
		return "met in " + c.Elapsed.Round(time.Second).String()
	case ticket.Breached:
		return fmt.Sprintf("BREACHED %s late (due %s)", c.Late.Round(time.Second), due)
	default:
		return fmt.Sprintf("pending, due %s (in %s)", due, (c.Target - c.Elapsed).Round(time.Second))
	}
}
