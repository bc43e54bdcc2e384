package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// schedulerSource is what template.yaml's schedule Input says it is.
const schedulerSource = "gpusla.scheduler"

// tickEvent covers the two shapes a schedule delivers: the Input that
// template.yaml gives EventBridge Scheduler, and EventBridge's own
// "Scheduled Event" (if the function is wired to a rule instead).
type tickEvent struct {
	Source        string `json:"source"`
	Schedule      string `json:"schedule"`
	ScheduledTime string `json:"scheduled_time"` // Scheduler: <aws.scheduler.scheduled-time>
	DetailType    string `json:"detail-type"`    // EventBridge rule
	Time          string `json:"time"`           // EventBridge rule
}

// parseTick accepts a schedule event and returns its scheduled time (zero
// if it carries none). Anything else is refused with what was wrong: the
// watchdog is harmless to run, but an unexpected caller is a misconfiguration
// worth seeing.
func parseTick(raw []byte) (time.Time, error) {
	var ev tickEvent
	if err := json.Unmarshal(raw, &ev); err != nil {
		return time.Time{}, fmt.Errorf("watchdog event: not a JSON object: %w", err)
	}
	var ts string
	switch {
	case ev.Source == schedulerSource:
		ts = ev.ScheduledTime
	case ev.Source == "aws.events" && ev.DetailType == "Scheduled Event":
		ts = ev.Time
	case ev.Source == "":
		return time.Time{}, errors.New(`watchdog event: no "source" (want a schedule event from EventBridge Scheduler)`)
	default:
		return time.Time{}, fmt.Errorf("watchdog event: source %q is not a schedule", ev.Source)
	}
	if ts == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339, ts)
	if err != nil {
		return time.Time{}, fmt.Errorf("watchdog event: scheduled time %q: %w", ts, err)
	}
	return t.UTC(), nil
}
