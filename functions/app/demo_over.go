package app

import (
	"time"

	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/sla/report"
	"github.com/gpusla/gpusla/sla/terms"
)

// DemoOver is the nodes of serve's built-in demo (store.Node.Demo) whose
// demo was over in year-month: released (serve releases it once a node of
// the renter's own is registered) before the month ended in its contract's
// time zone (UTC where no terms define it), and as of asOf. Node id → why.
//
// Such a node is left out of the month's report, its claims and letters,
// as an unknown contract's node is (Books.Skip): its contract is the demo's
// made-up provider, and a renter's books must hold no credit against it. A
// month that ended before the release (the demo alone) keeps it: showing
// its report and letter is the demo's point.
func DemoOver(nodes []store.Node, all []*terms.Terms, year int, month time.Month, asOf time.Time) map[string]string {
	out := map[string]string{}
	for _, n := range nodes {
		if n.ReleasedAt.After(asOf) {
			continue
		}
		loc := time.UTC
		for _, tm := range all {
			if tm.Contract == n.Contract && tm.Calendar != nil {
				loc = tm.Calendar.Loc
			}
		}
		if report.DemoOver(n.Demo, n.ReleasedAt, time.Date(year, month+1, 1, 0, 0, 0, 0, loc)) {
			out[n.ID] = report.DemoOverReason(n.ReleasedAt, n.ReleaseRecordedBy, n.Contract, n.Provider)
		}
	}
	return out
}
