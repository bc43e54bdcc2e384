package lambdatest

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/app/apptest"
	"github.com/gpusla/gpusla/functions/httpapi"
	"github.com/gpusla/gpusla/probe/wire"
)

// TestEnrolUnderEmulator: enrolment works the same on the Lambdas as on
// serve. The tickets bootstrap makes a token for an admin API key (and
// refuses a read key); the ingest bootstrap, on the probes' URL, enrols a
// node with it on DynamoDB, answers the same secret to a retry with the
// same key, refuses a use past the limit, and then stores a batch the
// enrolled node signs.
func TestEnrolUnderEmulator(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs two Lambda bootstraps")
	}
	be := newBackend(t)
	ctx := context.Background()
	_, admin, err := app.CreateAPIKey(ctx, be.store, "rie admin", []string{"admin"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	_, read, err := app.CreateAPIKey(ctx, be.store, "rie read", []string{"read"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	tickets := startFunction(t, "build-TicketsFunction", append(be.env, "GPUSLA_SLACK_SIGNING_SECRET_FILE="+secretFile(t, "rie-signing"))...)
	order := []byte(`{"provider":"acme","contract":"cn-example","gpu_model":"H200","gpus":8,"gpu_memory_gb":141,"uses":1}`)
	var res events.APIGatewayV2HTTPResponse
	tickets.invoke(t, functionURLEvent(httpapi.PathEnrolTokens, map[string]string{"Authorization": "Bearer " + read}, order), &res)
	if res.StatusCode != http.StatusForbidden {
		t.Fatalf("a read key made a token: %d %s", res.StatusCode, res.Body)
	}
	tickets.invoke(t, functionURLEvent(httpapi.PathEnrolTokens, map[string]string{"Authorization": "Bearer " + admin}, order), &res)
	var tok httpapi.TokenView
	if res.StatusCode != http.StatusOK || json.Unmarshal([]byte(res.Body), &tok) != nil || tok.Token == "" {
		t.Fatalf("create token: %d %s", res.StatusCode, res.Body)
	}

	ingest := startFunction(t, "build-IngestFunction", be.env...)
	body := []byte(`{"node":"lambda-gpu-1","key":"` + "0123456789abcdef0123456789abcdef" + `","hostname":"lambda-gpu-1"}`)
	auth := map[string]string{"Authorization": "Bearer " + tok.Token}
	var ans [2]wire.EnrolResponse
	for i := range ans {
		ingest.invoke(t, functionURLEvent(wire.PathEnrol, auth, body), &res)
		if res.StatusCode != http.StatusOK || json.Unmarshal([]byte(res.Body), &ans[i]) != nil {
			t.Fatalf("enrol %d: %d %s", i, res.StatusCode, res.Body)
		}
	}
	if ans[0].Node != "lambda-gpu-1" || ans[0].GPUModel != "H200" || ans[0].Secret == "" || ans[1].Secret != ans[0].Secret {
		t.Fatalf("enrolled %+v, retried %+v", ans[0], ans[1])
	}
	ingest.invoke(t, functionURLEvent(wire.PathEnrol, auth, []byte(`{"node":"lambda-gpu-2","key":"`+"fedcba9876543210fedcba9876543210"+`"}`)), &res)
	if res.StatusCode != http.StatusForbidden {
		t.Fatalf("a second node on a one-use token: %d %s", res.StatusCode, res.Body)
	}
	p := &apptest.Probe{Node: ans[0].Node, Secret: []byte(ans[0].Secret)}
	now := time.Now().UTC()
	_, batch := p.Batch(now, apptest.Heartbeats(now, 30*time.Second, 1)...)
	req := p.Request(now, batch)
	ingest.invoke(t, functionURLEvent(httpapi.PathBatches, map[string]string{
		wire.HeaderNode: req.Node, wire.HeaderTimestamp: req.Timestamp, wire.HeaderSignature: req.Signature}, batch), &res)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("a batch of the enrolled node: %d %s", res.StatusCode, res.Body)
	}
	recs, err := be.store.ListEnrolments(ctx, "")
	if err != nil || len(recs) != 1 || recs[0].Token != tok.ID || recs[0].Hostname != "lambda-gpu-1" {
		t.Fatalf("enrolment records %+v, %v", recs, err)
	}
}
