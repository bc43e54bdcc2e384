package report

import (
	"fmt"
	"math/big"
	"math/rand"
	"testing"
	"time"
)

// CoreWeave's months again, at any second this time: deliveries, releases,
// outages and maintenance windows off the minute (TestCoreWeaveHandRule
// RandomMonths draws whole minutes only). By hand: "Partial minutes …
// will not be counted", so a clock minute counts when it was down from its
// first second to its last and no second of it lay inside a window
// "in-advance communicated" (announced before it began); the month's
// 44,640 minutes whatever part of it the instance ran; billed "on a
// per-minute basis", its time in service to the whole minute above
// (delivered 10:00:30 and in service to the month's end: from 10:00); the
// tier's percent of that bill truncated to the cent, at most 50 %.
func TestCoreWeaveHandRuleRandomSeconds(t *testing.T) {
	tm := packTerms(t, "coreweave-single-instance")
	const layout = "2006-01-02 15:04:05"
	rng := rand.New(rand.NewSource(3811))
	for i := range 300 {
		m := randomIntlMonth(rng, time.UTC, false)
		var w [2]time.Time
		var announced time.Time
		if len(m.outs) > 0 && rng.Intn(3) > 0 {
			o := m.outs[rng.Intn(len(m.outs))]
			span := int(o[1].Sub(o[0]) / time.Second)
			w[0] = o[0].Add(time.Duration(rng.Intn(span+240)-120) * time.Second)
			w[1] = w[0].Add(time.Duration(1+rng.Intn(span+240)) * time.Second)
			announced = [...]time.Time{w[0].Add(-48 * time.Hour), w[0], w[0].Add(time.Second)}[rng.Intn(3)]
			m.c.maint = append(m.c.maint, maintSpec{w[0].Format(layout), w[1].Format(layout), announced.Format(layout)})
		}
		excused := !announced.IsZero() && !announced.After(w[0])
		var u int64
		for _, o := range m.outs {
			for _, mk := range marchMinutes(o, time.UTC) {
				if !excused || !mk.Add(time.Minute).After(w[0]) || !mk.Before(w[1]) {
					u++
				}
			}
		}
		from, to := m.service(time.UTC)
		billed := (int64(to.Sub(from)/time.Second) + 59) / 60 // whole minutes, the last one begun
		m.judge(44640*60, u*60, [][2]string{{"90", "50"}, {"95", "25"}, {"99", "10"}}, big.NewRat(billed*425, 60), 50)
		if m.c.uptime == 95 && m.c.tier == 25 {
			m.c.tier, m.c.amount = 10, -1 // exactly 95.0000 %: the first row (approximations[2])
		}
		m.c.deadline = "2026-04-11T00:00:00Z"
		checkEdge(t, tm, fmt.Sprintf("month %d %v maint %v delivered %q released %q", i, m.c.down, m.c.maint, m.c.delivered, m.c.released), m.c)
	}
}
