package lambdatest

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/fleetsim"
	"github.com/gpusla/gpusla/functions/wiring"
	"github.com/gpusla/gpusla/infra/blob"
	"github.com/gpusla/gpusla/infra/blob/blobtest"
	"github.com/gpusla/gpusla/infra/sqsqueue/sqstest"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/sla/report"
	"github.com/gpusla/gpusla/sla/scorecard"
	"github.com/gpusla/gpusla/sla/terms"
)

// TestMonthApartUnderEmulator: last month, built apart on the real
// services' local implementations — DynamoDB (dynalite), S3 (s3rver), SQS
// (goaws) — by the reports and parts bootstraps under the Lambda emulator.
// The reports function's first run sends one node-month a node to the
// queue; the test does what Lambda's event source mapping does (receive a
// batch, invoke the parts function with it, delete what it did not hand
// back, let the rest come back after the visibility timeout); a node whose
// stored batch cannot be read fails every try and, on its third, is
// recorded as failed; the reports function's next run assembles the month:
// every other node's row is the one the month built in one process has,
// and the failed node is named in left_out.
func TestMonthApartUnderEmulator(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs two Lambda bootstraps")
	}
	be := newBackend(t)
	ctx := context.Background()
	sh, _ := time.LoadLocation("Asia/Shanghai")
	now := time.Now().In(sh)
	month := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, sh).AddDate(0, -1, 0)
	if _, err := fleetsim.Write(ctx, be.store, fleetsim.Config{Nodes: 3, Prefix: "gz-", Contract: "cn-example", Loc: sh, From: month, Months: 1, QuietEvery: 3}); err != nil {
		t.Fatal(err)
	}
	// A node whose stored batch is not a batch: its part cannot be built.
	if err := be.store.CreateNode(ctx, store.Node{ID: "gz-bad", Contract: "cn-example", GPUCount: 8, GPUModel: fleetsim.Model, OrderedAt: month.AddDate(0, 0, -10).UTC(),
		HeartbeatInterval: 30 * time.Second, PushInterval: time.Minute}); err != nil {
		t.Fatal(err)
	}
	if err := be.store.PutBatch(ctx, store.BatchRecord{Node: "gz-bad", Seq: 1, ID: "gz-bad-b1", Hash: "00", ReceivedAt: month.Add(time.Hour).UTC(),
		Why: []string{"measurements"}, Body: []byte(`{"schema":"gpuprobe.batch/v1","node":`)}); err != nil {
		t.Fatal(err)
	}

	s3ep := blobtest.Start(t)
	s3c := blobtest.Client(s3ep)
	if _, err := s3c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("gpusla-reports")}); err != nil {
		t.Fatal(err)
	}
	sqsep := sqstest.Start(t)
	sqc := sqstest.Client(sqsep)
	queue, _ := sqstest.Queue(t, sqc, 4, 10*time.Second)
	env := append(slices.Clone(be.env), wiring.EnvReportBucket+"=gpusla-reports", "AWS_ENDPOINT_URL_S3="+s3ep, "AWS_ENDPOINT_URL_SQS="+sqsep,
		"AWS_ACCESS_KEY_ID="+blobtest.AccessKey, "AWS_SECRET_ACCESS_KEY="+blobtest.SecretKey)
	reports := startFunction(t, "build-ReportsFunction", append(slices.Clone(env), wiring.EnvPartsQueue+"="+queue, wiring.EnvReportDelay+"=0s",
		wiring.EnvScorecardMonths+"=2")...)
	parts := startFunction(t, "build-PartsFunction", append(slices.Clone(env), wiring.EnvPartAttempts+"=3")...)

	tick := map[string]string{"source": "gpusla.scheduler", "schedule": "reports", "scheduled_time": now.UTC().Format(time.RFC3339)}
	var run app.ReportRun
	reports.invoke(t, tick, &run)
	key := month.Format("2006-01") + "/cn-example"
	if !slices.Contains(run.Pending, key) {
		t.Fatalf("first run: %+v, want %s pending", run, key)
	}

	tries := pollParts(t, sqc, queue, parts)
	// A busy machine can keep a batch past its visibility timeout, and the
	// queue hands it out again, as SQS does: a node may be tried again.
	if tries["gz-bad"] < 3 || tries["gz-00000"] < 1 || tries["gz-00001"] < 1 || tries["gz-00002"] < 1 {
		t.Fatalf("tries per node %v: want gz-bad three times, every other node at least once", tries)
	}

	reports.invoke(t, tick, &run)
	if !slices.Contains(run.Generated, key) {
		t.Fatalf("second run: %+v, want %s generated", run, key)
	}
	blobs, err := blob.NewS3(s3c, "gpusla-reports", "")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := blobs.Get(ctx, key+"/report.json")
	if err != nil {
		t.Fatal(err)
	}
	var got report.Report
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.LeftOut) != 1 || got.LeftOut[0].Node != "gz-bad" || !strings.Contains(got.LeftOut[0].Reason, "failed after 3 attempts") {
		t.Fatalf("left_out %+v, want gz-bad after 3 attempts", got.LeftOut)
	}
	// Every other node's row is the month built in one process.
	plan, err := blobs.Get(ctx, app.PlanPointer(month.Year(), month.Month()))
	if err != nil {
		t.Fatal(err)
	}
	p, err := (&app.FanOut{Blobs: blobs}).LoadPlan(ctx, strings.TrimSpace(string(plan)))
	if err != nil {
		t.Fatal(err)
	}
	tm, err := wiring.LoadTerms(repoRoot() + "/testdata/terms")
	if err != nil {
		t.Fatal(err)
	}
	var all []*terms.Terms
	for _, c := range tm.Contracts() {
		all = append(all, tm[c])
	}
	want, err := app.Books{Store: be.store, Terms: all, Skip: map[string]string{"gz-bad": "cn-example"}}.Month(ctx, month.Year(), month.Month(), p.AsOf)
	if err != nil {
		t.Fatal(err)
	}
	w, _ := json.Marshal(app.ContractReport(want, "cn-example").Nodes)
	g, _ := json.Marshal(got.Nodes)
	if string(w) != string(g) || len(got.Nodes) != 3 {
		t.Fatalf("rows built apart differ from the month built here:\n--- here\n%.2000s\n--- apart\n%.2000s", w, g)
	}
	scorecardBesideMonth(t, blobs, key, month, all, p.AsOf, be.store)
}

// scorecardBesideMonth: the month built apart stores its trailing months'
// scorecard, read from the store (the node that failed left out, as the
// report beside it leaves it out), not why it has none: the one the store
// gives on its own.
func scorecardBesideMonth(t *testing.T, blobs *blob.S3, key string, month time.Time, all []*terms.Terms, asOf time.Time, st app.BooksStore) {
	t.Helper()
	ctx := context.Background()
	if _, err := blobs.Get(ctx, key+"/scorecard-error.txt"); !app.IsNotFound(err) {
		raw, _ := blobs.Get(ctx, key+"/scorecard-error.txt")
		t.Fatalf("scorecard-error.txt stored beside the month built apart: %s %v", raw, err)
	}
	raw, err := blobs.Get(ctx, key+"/scorecard.json")
	if err != nil {
		t.Fatal(err)
	}
	var sc scorecard.Scorecard
	if err := json.Unmarshal(raw, &sc); err != nil {
		t.Fatal(err)
	}
	last := scorecard.Month{Year: month.Year(), Month: month.Month()}
	prev := month.AddDate(0, -1, 0)
	o := scorecard.Options{From: scorecard.Month{Year: prev.Year(), Month: prev.Month()}, To: last, AsOf: asOf}
	// The job leaves out the node that failed and the nodes no loaded terms
	// define.
	skip := map[string]string{"gz-bad": "cn-example"}
	nodes, err := st.ListNodes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		if !slices.ContainsFunc(all, func(tm *terms.Terms) bool { return tm.Contract == n.Contract }) {
			skip[n.ID] = n.Contract
		}
	}
	want, _, err := app.Books{Store: st, Terms: all, Skip: skip}.Scorecard(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if sc.From != o.From.String() || sc.To != last.String() || len(sc.Providers) != 1 || sc.Providers[0].Nodes != 3 || sc.Events != want.Events {
		t.Fatalf("scorecard %s..%s: %d providers, events %d (want %d)", sc.From, sc.To, len(sc.Providers), sc.Events, want.Events)
	}
}

// pollParts feeds the queue's messages to the parts function as Lambda's
// event source mapping does until the queue is empty, and returns how many
// times each node was tried.
func pollParts(t *testing.T, c *sqs.Client, queue string, parts *emulator) map[string]int {
	t.Helper()
	ctx := context.Background()
	tries := map[string]int{}
	// goaws reports every receive as the first (ApproximateReceiveCount 1,
	// v0.5.4 counts none), which SQS does not: the receives are counted
	// here, per message, and handed on as SQS hands them to Lambda.
	receives := map[string]int{}
	// Empty for longer than the visibility timeout: nothing is out.
	for idle := 0; idle < 8; {
		out, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(queue), MaxNumberOfMessages: 10, WaitTimeSeconds: 2,
			MessageSystemAttributeNames: []sqstypes.MessageSystemAttributeName{sqstypes.MessageSystemAttributeNameAll}})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Messages) == 0 {
			idle++
			continue
		}
		idle = 0
		ev := events.SQSEvent{}
		for _, m := range out.Messages {
			it, err := app.ParseWorkItem(aws.ToString(m.Body))
			if err != nil {
				t.Fatal(err)
			}
			tries[it.Node]++
			receives[aws.ToString(m.MessageId)]++
			attrs := maps.Clone(m.Attributes)
			attrs["ApproximateReceiveCount"] = strconv.Itoa(receives[aws.ToString(m.MessageId)])
			ev.Records = append(ev.Records, events.SQSMessage{MessageId: aws.ToString(m.MessageId), ReceiptHandle: aws.ToString(m.ReceiptHandle),
				Body: aws.ToString(m.Body), Attributes: attrs, EventSource: "aws:sqs", AWSRegion: sqstest.Region})
		}
		var res events.SQSEventResponse
		parts.invoke(t, ev, &res)
		again := map[string]bool{}
		for _, f := range res.BatchItemFailures {
			again[f.ItemIdentifier] = true
		}
		for _, m := range out.Messages {
			if !again[aws.ToString(m.MessageId)] {
				// Past its visibility timeout the message is out again and
				// the delete fails, as on SQS: it will be built again.
				if _, err := c.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(queue), ReceiptHandle: m.ReceiptHandle}); err != nil {
					t.Logf("delete %s: %v", aws.ToString(m.MessageId), err)
				}
			}
		}
	}
	return tries
}
