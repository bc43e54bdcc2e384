// Package lambdafn holds the Lambda functions of template.yaml, each as a
// value built from a wired backend (functions/wiring) with one method that
// takes the function's raw event: the watchdog's minute tick, the ticket
// API with its Slack endpoints, the monthly reports and the status page.
// Every main in functions/<name> only opens the backend, builds its
// function and starts the Lambda runtime with it.
package lambdafn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/gpusla/gpusla/functions/app"
)

// Watchdog is the watchdog function: it checks that the event is a
// schedule tick, then runs tick (app.MinuteTick).
func Watchdog(tick func(context.Context) (app.WatchdogResult, error), log *slog.Logger) func(context.Context, json.RawMessage) (app.WatchdogResult, error) {
	return func(ctx context.Context, raw json.RawMessage) (app.WatchdogResult, error) {
		scheduled, err := parseTick(raw)
		if err != nil {
			return app.WatchdogResult{}, err
		}
		res, err := tick(ctx)
		if err != nil {
			// The run did what it could; the error goes to the log and to
			// Lambda's error metric. The next tick tries again.
			log.Error("watchdog", "scheduled", scheduled, "nodes", res.Nodes, "err", err)
			return res, err
		}
		log.Info("watchdog", "scheduled", scheduled, "nodes", res.Nodes, "transitions", res.Transitions)
		return res, nil
	}
}

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
