package chantext

import (
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/incident"
)

// TestEvidenceTextPerLanguage: the engine's evidence line, as a
// real transition carries it, rendered for a zh contract on Beijing time
// and an en one on UTC: times on the contract's clock with the zone named
// once, durations in words, the probe's own check line untouched; the
// English record (Evidence) keeps its RFC 3339 form.
func TestEvidenceTextPerLanguage(t *testing.T) {
	th := incident.Thresholds{FailureThreshold: 2, SuccessThreshold: 2, Grace: 90 * time.Second}
	var h incident.Hysteresis
	v := incident.Verdict{Kind: incident.NetworkDegraded, Check: "net.loss", Name: "net.loss", Fail: true, Evidence: "net.loss fail: 3% (want <1%)"}
	h.Step(th, g0, v)
	open, ok := h.Step(th, g0.Add(time.Minute), v)
	if !ok || open.Op != incident.Open {
		t.Fatalf("two failures did not open: %+v", open)
	}
	if want := "net.loss fail: 3% (want <1%); 2 failing results of this check in a row from 2026-11-30T10:00:30Z"; open.Evidence != want {
		t.Errorf("record evidence = %q, want %q", open.Evidence, want)
	}
	v.Fail = false
	h.Step(th, g0.Add(2*time.Minute), v)
	closed, _ := h.Step(th, g0.Add(3*time.Minute), v)

	var st incident.State
	tr := st.Tick(g0.Add(3*time.Minute), g0, 30*time.Second, th)
	if len(tr) != 1 {
		t.Fatalf("no unreachable opening: %+v", tr)
	}
	for _, c := range []struct {
		lang, zone string
		text       incident.Transition
		full       bool
		want       string
	}{
		{"zh", "Asia/Shanghai", open, false, "自2026年11月30日 18:00:30（北京时间）起该检查连续2次失败"},
		{"en", "", open, false, "2 failing results of this check in a row from 2026-11-30 10:00:30 UTC"},
		{"zh", "Asia/Shanghai", open, true, "net.loss fail: 3% (want <1%)；自2026年11月30日 18:00:30（北京时间）起该检查连续2次失败"},
		{"zh", "Asia/Shanghai", closed, true, "自2026年11月30日 18:02:30（北京时间）起该检查连续2次通过"},
		{"en", "Asia/Shanghai", closed, true, "2 passing results of this check in a row from 2026-11-30 18:02:30 (China Standard Time)"},
		{"zh", "Asia/Shanghai", tr[0], true, "自2026年11月30日 18:00:30（北京时间）起未收到节点的任何数据（心跳间隔30秒，宽限1分30秒）"},
		{"en", "", tr[0], true, "no data from the node since 2026-11-30 10:00:30 UTC (heartbeat every 30 seconds, grace 1 minute 30 seconds)"},
	} {
		why := c.text.Confirmed()
		if c.full {
			why = c.text.Why
		}
		w := wordsOf(c.lang, c.zone)
		if got := w.text(why); got != c.want || EvidenceText(c.lang, c.zone, why) != got {
			t.Errorf("%s %s: %q\nwant %q", c.lang, c.zone, got, c.want)
		}
		if len(w.p.Missing()) > 0 {
			t.Errorf("not in the catalog: %q", w.p.Missing())
		}
	}
}
