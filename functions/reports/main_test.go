package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
)

// A Function URL request goes to the status page handler; anything that is
// neither that nor the reports schedule is refused with what it was.
func TestHandleDispatch(t *testing.T) {
	var got string
	f := &function{log: slog.New(slog.DiscardHandler),
		http: func(_ context.Context, r events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
			got = r.RawPath
			return events.APIGatewayV2HTTPResponse{StatusCode: 401}, nil
		}}
	req := `{"version":"2.0","rawPath":"/status","requestContext":{"http":{"method":"GET","path":"/status"}}}`
	out, err := f.handle(context.Background(), json.RawMessage(req))
	if err != nil || got != "/status" || out.(events.APIGatewayV2HTTPResponse).StatusCode != 401 {
		t.Fatalf("url request: %v %v %q", out, err, got)
	}
	for _, ev := range []string{`{"source":"gpusla.scheduler","schedule":"watchdog"}`, `{"hello":1}`, `not json`} {
		if _, err := f.handle(context.Background(), json.RawMessage(ev)); err == nil {
			t.Errorf("event %s accepted", ev)
		} else if !strings.Contains(err.Error(), "unexpected event") && !strings.Contains(err.Error(), "not JSON") {
			t.Errorf("event %s: %v", ev, err)
		}
	}
}
