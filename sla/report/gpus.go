package report

import (
	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/incident"
)

// failingGPUs counts the distinct GPUs the failing checks of kind k name in
// one observation, so a contract that credits per affected GPU knows how
// many; 0 when they name none (the incident then counts as node-wide).
func failingGPUs(checks []events.Check, k incident.Kind) uint8 {
	seen := map[int]bool{}
	for i := range checks {
		c := &checks[i]
		if c.Verdict != events.Fail || c.GPU == nil {
			continue
		}
		if ck, ok := incident.KindOfCategory(c.Category); ok && ck == k {
			seen[*c.GPU] = true
		}
	}
	if len(seen) > 255 {
		return 255
	}
	return uint8(len(seen))
}
