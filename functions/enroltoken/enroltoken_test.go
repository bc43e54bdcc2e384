package enroltoken

import (
	"strings"
	"testing"
)

// The fleet's config is refused for the backend's bare address: its probes
// would enrol (at /v1/enrol beside it) and then be told 404 on every push.
func TestFleetConfigRefusesABareURL(t *testing.T) {
	for _, u := range []string{"https://sla.example.com:8443", "https://abc.lambda-url.us-east-1.on.aws/"} {
		if _, err := FleetConfig(u); err == nil || !strings.Contains(err.Error(), "give "+strings.TrimSuffix(u, "/")+"/v1/batches") {
			t.Errorf("%s: %v, want the ingest URL named", u, err)
		}
	}
	if y, err := FleetConfig("https://sla.example.com:8443/v1/batches"); err != nil || !strings.Contains(string(y), "/v1/batches") {
		t.Fatalf("the ingest URL: %v\n%s", err, y)
	}
}
