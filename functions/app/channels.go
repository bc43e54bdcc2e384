package app

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/gpusla/gpusla/infra/notify"
)

// Channels is where messages go when the backend has more than one alert
// channel (infra/notify/route implements it from the config): which
// channels take a message, and each channel's notifier. The service keeps
// one alert record per channel, and one delivery mark per channel on a
// ticket notice, so a failing channel is retried alone and the others never
// send twice.
type Channels interface {
	AlertChannels(contract string, a notify.Alert) []string
	TicketChannels(contract string, m notify.TicketMessage) []string
	Notifier(name string) (notify.Notifier, bool)
}

// alertChannels names the channels of an alert: "" (the one notifier)
// without Channels.
func (s *Service) alertChannels(contract string, a notify.Alert) []string {
	if s.channels == nil {
		return []string{""}
	}
	return s.channels.AlertChannels(contract, a)
}

func (s *Service) ticketChannels(contract string, m notify.TicketMessage) []string {
	if s.channels == nil {
		return []string{""}
	}
	return s.channels.TicketChannels(contract, m)
}

// notifierOf returns a channel's notifier; a record of a channel that is no
// longer configured gets an error, so it stays pending where an operator
// sees it rather than going somewhere else.
func (s *Service) notifierOf(channel string) (notify.Notifier, error) {
	if s.channels == nil {
		if channel != "" {
			return nil, fmt.Errorf("channel %q: this backend has no alert channels configured", channel)
		}
		return s.notifier, nil
	}
	if n, ok := s.channels.Notifier(channel); ok {
		return n, nil
	}
	return nil, fmt.Errorf("channel %q is not configured", channel)
}

// eachChannel runs send once per channel, all at once: a channel that waits
// out a rate limit must not hold back the others' alerts.
func eachChannel(ctx context.Context, channels []string, send func(ctx context.Context, channel string)) {
	channels = slices.Compact(slices.Sorted(slices.Values(channels)))
	if len(channels) == 1 {
		send(ctx, channels[0])
		return
	}
	var wg sync.WaitGroup
	for _, ch := range channels {
		wg.Go(func() { send(ctx, ch) })
	}
	wg.Wait()
}
