// Package sqsqueue sends work items to an Amazon SQS queue: the month's
// node-months that the parts function builds (template.yaml: PartsQueue).
package sqsqueue

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// API is the part of the SQS client this package calls (so the IAM policy
// of a function that sends is sqs:SendMessage alone).
type API interface {
	SendMessageBatch(ctx context.Context, in *sqs.SendMessageBatchInput, opts ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error)
}

// IAMActions are the IAM actions Send needs (SendMessageBatch is
// authorised as sqs:SendMessage).
var IAMActions = []string{"sqs:SendMessage"}

// PollerIAMActions are what Lambda's event source mapping needs of the
// role of the function it feeds from a queue.
var PollerIAMActions = []string{"sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueAttributes"}

// batch is SQS's most messages in one SendMessageBatch.
const batch = 10

// MaxBody is SQS's largest message body (256 KiB).
const MaxBody = 256 << 10

// Queue sends to one queue.
type Queue struct {
	client API
	url    string
}

// New sends to the queue at url.
func New(client API, url string) (*Queue, error) {
	if url == "" {
		return nil, errors.New("sqs queue: no queue URL given")
	}
	return &Queue{client: client, url: url}, nil
}

// Send sends every body, ten to a request. A body SQS refuses fails the
// send, naming it; the ones before it are sent (a work item sent twice is
// built twice, into the same part).
func (q *Queue) Send(ctx context.Context, bodies []string) error {
	for i, b := range bodies {
		if len(b) > MaxBody {
			return fmt.Errorf("sqs: message %d is %d bytes, over SQS's %d", i, len(b), MaxBody)
		}
	}
	for start := 0; start < len(bodies); start += batch {
		end := min(start+batch, len(bodies))
		in := &sqs.SendMessageBatchInput{QueueUrl: aws.String(q.url)}
		for i := start; i < end; i++ {
			in.Entries = append(in.Entries, types.SendMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), MessageBody: aws.String(bodies[i])})
		}
		out, err := q.client.SendMessageBatch(ctx, in)
		if err != nil {
			return fmt.Errorf("sqs: send messages %d to %d: %w", start, end-1, err)
		}
		if len(out.Failed) > 0 {
			f := out.Failed[0]
			return fmt.Errorf("sqs: %d of messages %d to %d refused; message %s: %s %s", len(out.Failed), start, end-1,
				aws.ToString(f.Id), aws.ToString(f.Code), aws.ToString(f.Message))
		}
	}
	return nil
}
