package lambdafn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/wiring"
)

// Parts is the function that builds a month's node-months (template.yaml:
// PartsFunction, fed by PartsQueue through an event source mapping with
// ReportBatchItemFailures): each record is one node's part of a month the
// reports function planned (app.FanOut.Work), written to the report
// bucket. A record that fails is handed back to the queue, which tries it
// again after its visibility timeout; on its last attempt
// ($GPUSLA_PART_ATTEMPTS) the failure is recorded instead, and the month
// is assembled without the node, naming it. A try that dies (out of time
// or memory) records nothing: the queue's next receive is the retry, and
// after the last one the message goes to the dead-letter queue and the
// month names the node once GPUSLA_PARTS_WAIT has passed.
type Parts struct {
	fan      *app.FanOut
	attempts int
	log      *slog.Logger
}

// NewParts builds the parts function on b.
func NewParts(ctx context.Context, b *wiring.Backend) (*Parts, error) {
	desk, blobs, err := deskAndBlobs(ctx, b)
	if err != nil {
		return nil, err
	}
	attempts, err := b.Env.PartAttemptsOrDefault()
	if err != nil {
		return nil, err
	}
	book := desk.Terms()
	bk := app.Books{Store: b.Store, Workers: 1}.WithDigests(b.Store, time.Now)
	for _, c := range book.Contracts() {
		bk.Terms = append(bk.Terms, book[c])
	}
	return &Parts{fan: &app.FanOut{Books: bk, Blobs: blobs}, attempts: attempts, log: b.Log}, nil
}

// Handle builds each record's node-month and returns the records to try
// again.
func (f *Parts) Handle(ctx context.Context, raw json.RawMessage) (any, error) {
	var ev events.SQSEvent
	if err := json.Unmarshal(raw, &ev); err != nil {
		return nil, fmt.Errorf("event is not JSON: %w", err)
	}
	if len(ev.Records) == 0 {
		return nil, fmt.Errorf("unexpected event (want SQS records of the parts queue): %.200s", raw)
	}
	var res events.SQSEventResponse
	for _, r := range ev.Records {
		if r.EventSource != "aws:sqs" {
			return nil, fmt.Errorf("unexpected event source %q (want aws:sqs)", r.EventSource)
		}
		if err := f.one(ctx, r); err != nil {
			res.BatchItemFailures = append(res.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: r.MessageId})
		}
	}
	return res, nil
}

// one builds one record's part; an error hands the record back.
func (f *Parts) one(ctx context.Context, r events.SQSMessage) error {
	item, err := app.ParseWorkItem(r.Body)
	if err != nil {
		// Nothing names a node: the queue's retries end in the dead-letter
		// queue, and the month's wait names whatever node is missing.
		f.log.Error("parts: unreadable work item", "message", r.MessageId, "err", err)
		return err
	}
	err = f.fan.Work(ctx, item)
	if err == nil {
		return nil
	}
	n, _ := strconv.Atoi(r.Attributes["ApproximateReceiveCount"])
	f.log.Error("parts: node-month failed", "plan", item.Plan, "node", item.Node, "attempt", n, "of", f.attempts, "err", err)
	if n < f.attempts || errors.Is(err, context.Canceled) {
		return err
	}
	if ferr := f.fan.Failed(ctx, item, n, err); ferr != nil {
		f.log.Error("parts: failure not recorded", "plan", item.Plan, "node", item.Node, "err", ferr)
		return ferr
	}
	return nil
}
