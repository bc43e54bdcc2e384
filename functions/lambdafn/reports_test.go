package lambdafn

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
)

// A Function URL request goes to the status page handler; the status
// function refuses every schedule, the reports function every Function URL
// request, and both refuse anything else, saying what it was.
func TestHandleDispatch(t *testing.T) {
	var got string
	f := &Status{http: func(_ context.Context, r events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
		got = r.RawPath
		return events.APIGatewayV2HTTPResponse{StatusCode: 401}, nil
	}}
	req := `{"version":"2.0","rawPath":"/status","requestContext":{"http":{"method":"GET","path":"/status"}}}`
	out, err := f.Handle(context.Background(), json.RawMessage(req))
	if err != nil || got != "/status" || out.(events.APIGatewayV2HTTPResponse).StatusCode != 401 {
		t.Fatalf("url request: %v %v %q", out, err, got)
	}
	refused := func(name string, h func(context.Context, json.RawMessage) (any, error), evs ...string) {
		for _, ev := range evs {
			if _, err := h(context.Background(), json.RawMessage(ev)); err == nil {
				t.Errorf("%s: event %s accepted", name, ev)
			} else if !strings.Contains(err.Error(), "unexpected event") && !strings.Contains(err.Error(), "not JSON") {
				t.Errorf("%s: event %s: %v", name, ev, err)
			}
		}
	}
	others := []string{`{"source":"gpusla.scheduler","schedule":"watchdog"}`, `{"hello":1}`, `not json`}
	refused("status", f.Handle, append(others, `{"source":"gpusla.scheduler","schedule":"reports"}`)...)
	r := &Reports{log: slog.New(slog.DiscardHandler)}
	refused("reports", r.Handle, append(others, req)...)
}
