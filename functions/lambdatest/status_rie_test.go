package lambdatest

import (
	"bytes"
	"context"
	"encoding/base64"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/app/apptest"
	"github.com/gpusla/gpusla/functions/wiring"
	"github.com/gpusla/gpusla/infra/blob/blobtest"
	"github.com/gpusla/gpusla/infra/slack"
	"github.com/gpusla/gpusla/infra/store"
)

// getEvent is the event a Lambda Function URL delivers for a GET with a
// query string (no body).
func getEvent(path, query string, headers map[string]string) events.APIGatewayV2HTTPRequest {
	ev := functionURLEvent(path, headers, nil)
	delete(ev.Headers, "content-type")
	ev.RawQueryString = query
	ev.RequestContext.HTTP.Method = http.MethodGet
	ev.RequestContext.HTTP.UserAgent = "Mozilla/5.0"
	return ev
}

// TestStatusUnderEmulator: the status bootstrap, built by its make target
// (terms copied beside it) and run by the Lambda emulator on DynamoDB and
// an S3 bucket (s3rver), refuses the page without its token or with a
// wrong one, serves it with the token (the node, its open ticket, the
// stored report), sets the cookie after a ?token= visit and returns a
// stored PDF byte for byte.
func TestStatusUnderEmulator(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a Lambda bootstrap")
	}
	be := newBackend(t)
	ctx := context.Background()
	if err := be.store.CreateNode(ctx, store.Node{ID: "gz-01", Provider: "acme", Contract: "cn-example", GPUCount: 8,
		OrderedAt: time.Now().Add(-time.Hour), HeartbeatInterval: 30 * time.Second}); err != nil {
		t.Fatal(err)
	}
	// The ticket is opened through the desk, as the tickets function does.
	svc, err := app.New(app.Config{Store: be.store, Notifier: &slack.Console{W: io.Discard}, Box: apptest.Box(t)})
	if err != nil {
		t.Fatal(err)
	}
	book, err := wiring.LoadTerms(filepath.Join(repoRoot(), "testdata", "terms"))
	if err != nil {
		t.Fatal(err)
	}
	desk, err := svc.Tickets(book)
	if err != nil {
		t.Fatal(err)
	}
	tk, _, err := desk.Open(ctx, app.OpenRequest{Node: "gz-01", Priority: "P1", At: time.Now().Add(-time.Hour)})
	if err != nil {
		t.Fatal(err)
	}

	endpoint := blobtest.Start(t)
	s3c := blobtest.Client(endpoint)
	if _, err := s3c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("gpusla-reports")}); err != nil {
		t.Fatal(err)
	}
	pdf := append([]byte("%PDF-1.7\n"), 0x00, 0xff, 0xfe, 0x80, '\n') // not UTF-8: must come back base64, unmangled
	const report = "2026-03/cn-example/report.pdf"
	// report.json, written last by the report job, says the month is
	// complete and had a node in service: the page offers it.
	for key, body := range map[string][]byte{report: pdf,
		"2026-03/cn-example/report.json": []byte(`{"nodes":[{"node":"gz-01","period":{"in_service":true,"seconds":3600}}]}`)} {
		if _, err := s3c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("gpusla-reports"), Key: aws.String(key), Body: bytes.NewReader(body)}); err != nil {
			t.Fatal(err)
		}
	}

	const token = "rie-status-token-0123456789"
	emu := startFunction(t, "build-StatusFunction", append(be.env,
		wiring.EnvStatusTokenFile+"="+secretFile(t, token),
		wiring.EnvReportBucket+"=gpusla-reports",
		"AWS_ENDPOINT_URL_S3="+endpoint,
		// s3rver checks signatures against its own fixed key; dynalite takes any.
		"AWS_ACCESS_KEY_ID="+blobtest.AccessKey, "AWS_SECRET_ACCESS_KEY="+blobtest.SecretKey)...)

	var res events.APIGatewayV2HTTPResponse
	emu.invoke(t, getEvent("/status", "", nil), &res)
	if res.StatusCode != http.StatusUnauthorized || !strings.Contains(res.Body, "unauthorized") {
		t.Fatalf("no token: %d %s, want 401", res.StatusCode, res.Body)
	}
	emu.invoke(t, getEvent("/status", "", map[string]string{"Authorization": "Bearer " + strings.Repeat("x", len(token))}), &res)
	if res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("wrong token: %d %s, want 401", res.StatusCode, res.Body)
	}

	emu.invoke(t, getEvent("/status", "", map[string]string{"Authorization": "Bearer " + token}), &res)
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Headers["Content-Type"], "text/html") {
		t.Fatalf("page: %d %v %.300s", res.StatusCode, res.Headers, res.Body)
	}
	for _, want := range []string{"gz-01", tk.ID, report} {
		if !strings.Contains(res.Body, want) {
			t.Errorf("page lacks %q", want)
		}
	}

	emu.invoke(t, getEvent("/status", "token="+token, nil), &res)
	cookie := strings.Join(res.Cookies, "; ") + res.Headers["Set-Cookie"]
	if res.StatusCode != http.StatusOK || !strings.Contains(cookie, "gpusla_status="+token) || !strings.Contains(cookie, "HttpOnly") {
		t.Fatalf("?token= visit: %d, cookies %q", res.StatusCode, cookie)
	}

	emu.invoke(t, getEvent("/status/reports/"+report, "", map[string]string{"Authorization": "Bearer " + token}), &res)
	if res.StatusCode != http.StatusOK || !res.IsBase64Encoded || res.Headers["Content-Type"] != "application/pdf" {
		t.Fatalf("report download: %d base64=%v %v", res.StatusCode, res.IsBase64Encoded, res.Headers)
	}
	got, err := base64.StdEncoding.DecodeString(res.Body)
	if err != nil || !bytes.Equal(got, pdf) {
		t.Fatalf("report bytes %q (%v), want %q", got, err, pdf)
	}
	emu.invoke(t, getEvent("/status/reports/2026-03/cn-example/none.pdf", "", map[string]string{"Authorization": "Bearer " + token}), &res)
	if res.StatusCode != http.StatusNotFound {
		t.Fatalf("missing report: %d, want 404", res.StatusCode)
	}
}
