package events

import (
	"io"
	"time"
)

// KnownAt is the latest instant the event says the backend knew it: when it
// received an observation or a run's last heartbeat, recorded an
// administrative fact or a ticket event, heard of a maintenance notice,
// came back from its own outage. An event without any of them (a log
// written before recording times were kept) is known from when it says it
// happened.
func (e *Event) KnownAt() time.Time {
	var last time.Time
	for _, t := range []time.Time{e.ReceivedAt, e.LastReceivedAt, e.RecordedAt, e.AnnouncedAt} {
		if t.After(last) {
			last = t
		}
	}
	if !last.IsZero() {
		return last
	}
	switch e.Type {
	case TypeBackendOutage:
		return e.End
	case TypeNodeRegistered:
		return e.OrderedAt
	}
	return e.At
}

// LastKnown is the latest KnownAt of a log's events (zero for an empty
// log): the instant the log was complete as of, so that a report judged
// as of it is the same whenever, and in whichever format, it is written.
func LastKnown(name string, r io.Reader) (time.Time, error) {
	var last time.Time
	_, err := ReadLog(name, r, func(e *Event) error {
		if k := e.KnownAt(); k.After(last) {
			last = k
		}
		return nil
	})
	return last, err
}
