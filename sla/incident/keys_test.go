package incident

import (
	"testing"

	"github.com/gpusla/gpusla/sla/events"
)

// Keys gives CheckKey's string for every check, the first time and every
// time after, and a nil Keys does too.
func TestKeysAreCheckKeys(t *testing.T) {
	g := func(i int) *int { return &i }
	checks := []events.Check{{Name: "gpu.burn.fp32", GPU: g(3)}, {Name: "gpu.burn.fp32", GPU: g(4)}, {Name: "gpu.burn.bf16", GPU: g(3)},
		{Name: "net.gateway.rtt"}, {Name: "gpu.burn.fp32", GPU: g(-1)}, {Name: "", GPU: g(0)}}
	var k Keys
	for round := range 3 {
		for i := range checks {
			if got, want := k.CheckKey(&checks[i]), CheckKey(&checks[i]); got != want {
				t.Fatalf("round %d: Keys.CheckKey(%+v) = %q, want %q", round, checks[i], got, want)
			}
			if got, want := (*Keys)(nil).CheckKey(&checks[i]), CheckKey(&checks[i]); got != want {
				t.Fatalf("nil Keys: %q, want %q", got, want)
			}
		}
	}
}
