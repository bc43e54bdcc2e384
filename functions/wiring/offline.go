package wiring

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/infra/notify"
)

// Offline is the local backend as an offline command (node, ticket, apikey)
// opens it: the store of the data folder or $GPUSLA_TABLE, the secret box,
// and a service that sends no messages.
type Offline struct {
	Env     Env
	Dir     string
	Store   LocalStore
	Box     app.SecretBox
	Service *app.Service
}

// OpenOffline opens the data folder dir for an offline command: create
// makes the store when it does not exist yet (registering the first node,
// the first API key); without it the store must exist already (OpenExisting).
func (e Env) OpenOffline(ctx context.Context, dir string, create bool) (*Offline, error) {
	var (
		st  LocalStore
		box app.SecretBox
		err error
	)
	if create {
		st, box, _, err = e.OpenStore(ctx, dir)
	} else {
		st, box, err = e.OpenExisting(ctx, dir)
	}
	if err != nil {
		return nil, err
	}
	svc, err := app.New(app.Config{Store: st, Notifier: NoNotifier{}, Box: box, Log: QuietLogger()})
	if err != nil {
		st.Close()
		return nil, err
	}
	return &Offline{Env: e, Dir: dir, Store: st, Box: box, Service: svc}, nil
}

// Close closes the store (the embedded one is locked while it is open).
func (o *Offline) Close() error { return o.Store.Close() }

// Terms is the contract terms serve would load for this data folder
// ($GPUSLA_TERMS, else its terms/); nil when none are configured at all.
func (o *Offline) Terms() (app.TermsBook, error) {
	book, paths, err := o.Env.LoadTermsFrom(filepath.Join(o.Dir, TermsDir))
	if err != nil || len(paths) == 0 {
		return nil, err
	}
	return book, nil
}

// Tickets is the ticket desk on the contract terms of $GPUSLA_TERMS, else
// of the data folder's terms/.
func (o *Offline) Tickets() (*app.TicketDesk, error) {
	book, _, err := o.Env.LoadTermsFrom(filepath.Join(o.Dir, TermsDir))
	if err != nil {
		return nil, err
	}
	return o.Service.Tickets(book)
}

// NoNotifier is for offline commands that change no incident; it refuses,
// so a code path that did try to alert would fail loudly, not silently.
type NoNotifier struct{}

// ErrOffline is what NoNotifier answers.
var ErrOffline = errors.New("this command sends no messages")

// Notify refuses.
func (NoNotifier) Notify(context.Context, notify.Alert) (string, error) { return "", ErrOffline }

// NotifyTicket refuses.
func (NoNotifier) NotifyTicket(context.Context, notify.TicketMessage) (string, error) {
	return "", ErrOffline
}

// QuietLogger logs warnings and errors only, to standard error: an offline
// command's output is its table or report, not the service's log.
func QuietLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}
