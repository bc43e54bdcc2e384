package lambdatest

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/infra/store"
)

// TestTicketsUnderEmulator: the tickets bootstrap, built by its make target
// (terms copied beside it) and run by the Lambda emulator on DynamoDB,
// opens a ticket for an API key and refuses a request without one, refuses
// a badly signed Slack command and answers a signed one, and runs a Slack
// job handed to it as an event.
func TestTicketsUnderEmulator(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a Lambda bootstrap")
	}
	be := newBackend(t)
	ctx := context.Background()
	if err := be.store.CreateNode(ctx, store.Node{ID: "gz-01", Provider: "acme", Contract: "cn-example", GPUCount: 8,
		OrderedAt: time.Now().Add(-time.Hour), HeartbeatInterval: 30 * time.Second}); err != nil {
		t.Fatal(err)
	}
	_, token, err := app.CreateAPIKey(ctx, be.store, "rie", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	const secret = "rie-signing-secret"
	emu := startFunction(t, "build-TicketsFunction", append(be.env,
		"GPUSLA_SLACK_SIGNING_SECRET_FILE="+secretFile(t, secret),
		"GPUSLA_INLINE_JOBS=1")...)

	var res events.APIGatewayV2HTTPResponse
	body := []byte(`{"node":"gz-01","priority":"P1","provider_ref":"ACME-1"}`)
	emu.invoke(t, functionURLEvent("/v1/tickets", nil, body), &res)
	if res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("no API key: %d %s, want 401", res.StatusCode, res.Body)
	}
	emu.invoke(t, functionURLEvent("/v1/tickets", map[string]string{"Authorization": "Bearer " + token}, body), &res)
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("open: %d %s", res.StatusCode, res.Body)
	}
	var tk struct {
		ID     string `json:"id"`
		Timing struct {
			TimeZone string `json:"timezone"`
		} `json:"timing"`
	}
	if err := json.Unmarshal([]byte(res.Body), &tk); err != nil || tk.Timing.TimeZone != "Asia/Shanghai" {
		t.Fatalf("ticket %s: %v", res.Body, err)
	}

	form := url.Values{"command": {"/gpusla"}, "text": {"status gz-01"}, "trigger_id": {"t1"}, "user_id": {"U1"}}.Encode()
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	mac := hmac.New(sha256.New, []byte(secret))
	fmt.Fprintf(mac, "v0:%s:%s", ts, form)
	sig := "v0=" + hex.EncodeToString(mac.Sum(nil))
	hdr := map[string]string{"content-type": "application/x-www-form-urlencoded", "X-Slack-Request-Timestamp": ts, "X-Slack-Signature": sig}
	bad := map[string]string{"content-type": "application/x-www-form-urlencoded", "X-Slack-Request-Timestamp": ts, "X-Slack-Signature": "v0=" + strings.Repeat("0", 64)}
	emu.invoke(t, functionURLEvent("/slack/commands", bad, []byte(form)), &res)
	if res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("badly signed command: %d %s", res.StatusCode, res.Body)
	}
	emu.invoke(t, functionURLEvent("/slack/commands", hdr, []byte(form)), &res)
	if res.StatusCode != http.StatusOK || !strings.Contains(res.Body, tk.ID) {
		t.Fatalf("status command: %d %s", res.StatusCode, res.Body)
	}

	// A Slack job event (what the function hands itself in AWS): send the
	// ticket's queued messages (to the console here: no Slack configured).
	raw := invokeRaw(t, emu, map[string]any{"gpusla_job": map[string]string{"kind": "flush", "ticket": tk.ID}})
	if strings.Contains(string(raw), "errorMessage") {
		t.Fatalf("job: %s", raw)
	}
	got, err := be.store.GetTicket(ctx, tk.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range got.Notices {
		if n.SentAt.IsZero() {
			t.Fatalf("notice %s not sent after the job: %+v", n.Key, n)
		}
	}
}
