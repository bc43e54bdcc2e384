package lambdafn

import (
	"net/http"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/httpapi"
	"github.com/gpusla/gpusla/functions/wiring"
)

// The ingest function answers its Function URL for ingest and health
// alone: the read views and the ticket API are 404 there, with an admin
// key too.
func TestIngestFunctionServesIngestAndHealthAlone(t *testing.T) {
	st, svc, log := newService(t)
	_, admin, err := app.CreateAPIKey(t.Context(), st, "ops", []string{"admin"}, svc.Now())
	if err != nil {
		t.Fatal(err)
	}
	h := Ingest(&wiring.Backend{Service: svc, Log: log})
	call := func(method, path, token string) events.APIGatewayV2HTTPResponse {
		ev := events.APIGatewayV2HTTPRequest{RawPath: path, Headers: map[string]string{},
			RequestContext: events.APIGatewayV2HTTPRequestContext{HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{Method: method, Path: path}}}
		if token != "" {
			ev.Headers["authorization"] = "Bearer " + token
		}
		resp, err := h(t.Context(), ev)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	for _, path := range []string{httpapi.PathNodes, httpapi.PathIncidents, httpapi.PathTickets, "/metrics"} {
		for _, tok := range []string{"", admin} {
			if resp := call("GET", path, tok); resp.StatusCode != http.StatusNotFound {
				t.Errorf("GET %s (key %v): %d %s, want 404", path, tok != "", resp.StatusCode, resp.Body)
			}
		}
	}
	if resp := call("GET", httpapi.PathHealth, ""); resp.StatusCode != http.StatusOK {
		t.Errorf("health: %d %s", resp.StatusCode, resp.Body)
	}
	// Ingest is served: an unsigned batch reaches the signature check.
	if resp := call("POST", httpapi.PathBatches, ""); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("POST %s unsigned: %d %s, want 401", httpapi.PathBatches, resp.StatusCode, resp.Body)
	}
}
