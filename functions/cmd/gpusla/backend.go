package main

import (
	"context"
	"errors"
	"log/slog"
	"os"

	"github.com/gpusla/gpusla/infra/notify"
)

// noNotifier is for offline commands that change no incident; it refuses,
// so a code path that did try to alert would fail loudly, not silently.
type noNotifier struct{}

var errOffline = errors.New("this command sends no messages")

func (noNotifier) Notify(context.Context, notify.Alert) (string, error) { return "", errOffline }

func (noNotifier) NotifyTicket(context.Context, notify.TicketMessage) (string, error) {
	return "", errOffline
}

// quietLogger logs warnings and errors only, for offline commands.
func quietLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}
