package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gpusla/gpusla/infra/notify"
)

// NoticeChannels is where notices to the team go (a month's report, claim
// reminders): every configured channel the routes give a notice
// (infra/notify/route implements it from the config), or the one notifier
// of a backend without named channels (OneChannel).
type NoticeChannels interface {
	NoticeChannels(contract string, n notify.Notice) []string
	NoticePoster(name string) (notify.NoticePoster, bool)
}

// OneChannel is the NoticeChannels of a backend with one notifier (Slack
// alone, or the console): every notice goes to it, under the name "".
type OneChannel struct{ Poster notify.NoticePoster }

// NoticeChannels names the one channel.
func (o OneChannel) NoticeChannels(string, notify.Notice) []string { return []string{""} }

// NoticePoster returns the one poster.
func (o OneChannel) NoticePoster(name string) (notify.NoticePoster, bool) {
	return o.Poster, name == "" && o.Poster != nil
}

// Marks is where an Announcer keeps what it delivered (the report store:
// a small file per mark).
type Marks interface {
	Put(ctx context.Context, name string, data []byte) error
	Get(ctx context.Context, name string) ([]byte, error)
}

// Announcer posts notices to every channel that takes them, each once per
// channel: a mark per channel says it was delivered, so a failing channel
// is retried alone on the next run and the others never get it twice.
// The report job posts the month's report and the claim reminders through
// it; any other notice about a contract can use it the same way.
type Announcer struct {
	Channels NoticeChannels
	Marks    Marks
}

// markName is the mark of marker on channel: marker.txt for the one
// channel of OneChannel (the name every mark had before channels were
// named), marker.<channel>.txt for a named channel.
func markName(marker, channel string) string {
	if channel == "" {
		return marker + ".txt"
	}
	return marker + "." + channel + ".txt"
}

// Pending names the channels n goes to that have no mark under marker
// yet. A mark marker.txt covers every channel: a notice posted before the
// channels were named is never posted again. n needs only its Kind,
// Contract and Provider here (what routes match).
func (a *Announcer) Pending(ctx context.Context, marker string, n notify.Notice) ([]string, error) {
	if a == nil || a.Channels == nil {
		return nil, nil
	}
	if done, err := a.marked(ctx, marker+".txt"); err != nil || done {
		return nil, err
	}
	var out []string
	for _, ch := range a.Channels.NoticeChannels(n.Contract, n) {
		done, err := a.marked(ctx, markName(marker, ch))
		if err != nil {
			return nil, err
		}
		if !done {
			out = append(out, ch)
		}
	}
	return out, nil
}

// Announce posts n to each channel Pending names and marks each one that
// took it; it returns those. A channel that failed is named in the error
// and left unmarked.
func (a *Announcer) Announce(ctx context.Context, marker string, n notify.Notice, now time.Time) ([]string, error) {
	pending, err := a.Pending(ctx, marker, n)
	if err != nil {
		return nil, err
	}
	var (
		sent []string
		errs []error
	)
	for _, ch := range pending {
		p, ok := a.Channels.NoticePoster(ch)
		if !ok {
			errs = append(errs, fmt.Errorf("channel %q cannot post notices", ch))
			continue
		}
		if err := p.PostNotice(ctx, n); err != nil {
			errs = append(errs, fmt.Errorf("channel %q: %w", ch, err))
			continue
		}
		if err := a.Mark(ctx, marker, ch, now); err != nil {
			errs = append(errs, err)
			continue
		}
		sent = append(sent, ch)
	}
	return sent, errors.Join(errs...)
}

// Mark records that the notice of marker reached channel (or that it is
// moot there: an earlier reminder a later one made needless).
func (a *Announcer) Mark(ctx context.Context, marker, channel string, now time.Time) error {
	return a.Marks.Put(ctx, markName(marker, channel), []byte(now.UTC().Format(time.RFC3339)+"\n"))
}

func (a *Announcer) marked(ctx context.Context, name string) (bool, error) {
	_, err := a.Marks.Get(ctx, name)
	if err == nil {
		return true, nil
	}
	if IsNotFound(err) {
		return false, nil
	}
	return false, err
}
