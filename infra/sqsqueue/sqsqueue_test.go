package sqsqueue_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/gpusla/gpusla/infra/sqsqueue"
	"github.com/gpusla/gpusla/infra/sqsqueue/sqstest"
)

// Send puts every body on a real SQS implementation (goaws), in batches of
// ten, and each comes back as sent; a body over SQS's limit is refused
// before anything is sent.
func TestSendReachesTheQueue(t *testing.T) {
	c := sqstest.Client(sqstest.Start(t))
	url, _ := sqstest.Queue(t, c, 3, 30*time.Second)
	q, err := sqsqueue.New(c, url)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for i := range 23 {
		want = append(want, fmt.Sprintf(`{"plan":"fanout/2026-03/x","node":"gz-%05d"}`, i))
	}
	if err := q.Send(t.Context(), want); err != nil {
		t.Fatal(err)
	}
	var got []string
	// An empty receive is no proof the rest is lost: goaws on a busy
	// machine may answer a one-second poll with nothing while messages
	// wait. Only a minute with nothing at all is.
	for last := time.Now(); len(got) < len(want); {
		out, err := c.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{QueueUrl: aws.String(url), MaxNumberOfMessages: 10, WaitTimeSeconds: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Messages) == 0 {
			if time.Since(last) > time.Minute {
				t.Fatalf("%d of %d messages came back", len(got), len(want))
			}
			continue
		}
		last = time.Now()
		for _, m := range out.Messages {
			got = append(got, aws.ToString(m.Body))
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("received %v, want %v", got, want)
	}
	err = q.Send(t.Context(), []string{"{}", strings.Repeat("x", sqsqueue.MaxBody+1)})
	if err == nil || !strings.Contains(err.Error(), "message 1 is 262145 bytes") {
		t.Fatalf("an oversized body: err = %v", err)
	}
	if _, err := sqsqueue.New(c, ""); err == nil {
		t.Fatal("a queue without a URL was made")
	}
}
