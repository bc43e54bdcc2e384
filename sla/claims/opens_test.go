package claims

import (
	"strings"
	"testing"
)

// tencentMarch is tencent-cvm's March 2026 (testdata/terms/packs/
// tencent-cvm.md): 12 minutes down, 10 % of 148,800.00 CNY, 14,880.00.
// "在没有达标的相应服务月度结束后的次月的第五（5）个工作日后，仅通过您相应账户的工单系统
// 提出赔偿申请": April 2026's working days are the 1st, 2nd, 3rd (4–6 清明),
// 7th and 8th, so the window opens on 9 April 00:00 Beijing (8 April
// 16:00 UTC); "不应超过…结束后六十（60）个自然日": it closes before 31 May 00:00.
func tencentMarch(t *testing.T) Claim {
	t.Helper()
	c, err := New(Draft{Contract: "tencent-cvm", Provider: "腾讯云 Tencent Cloud (CVM)", Month: "2026-03", Amount: cents("14880.00"),
		Currency: "CNY", Deadline: at("2026-05-31T00:00:00+08:00"), Opens: at("2026-04-09T00:00:00+08:00"), TimeZone: "Asia/Shanghai", Lang: "zh",
		Nodes: []string{"gt4-01"}, Lines: 1, Seal: Seal{ObservationsSHA256: "9f2c", ChainHead: "a1b2"},
		MonthEnd: at("2026-04-01T00:00:00+08:00"), AsOf: at("2026-04-01T06:00:00+08:00"),
		Record: Record{RecordedAt: at("2026-04-01T06:00:05+08:00"), RecordedBy: "report-job"}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestSentBeforeTheWindowOpens: the claim waits for its window (not_open)
// until 8 April 15:59:59 UTC and not from 16:00:00; sent a second before
// the opening it is sent_early — outside the window the text gives, as a
// claim sent at the deadline is sent_late — and sent at the opening
// instant it is in time. A claim whose text sets no opening is never
// early, and a window that would open at or after its deadline is refused.
func TestSentBeforeTheWindowOpens(t *testing.T) {
	c := tencentMarch(t)
	if !c.Opens.Equal(at("2026-04-08T16:00:00Z")) || c.Opens.Location().String() != "UTC" {
		t.Fatalf("opens %v", c.Opens)
	}
	if st := c.StatusAt(Deadlines{}, at("2026-04-08T15:59:59Z")); !st.NotOpen || st.Expired || st.State != StateDrafted {
		t.Fatalf("a second before the window opens: %+v", st)
	}
	if st := c.StatusAt(Deadlines{}, at("2026-04-08T16:00:00Z")); st.NotOpen {
		t.Fatalf("at the opening: %+v", st)
	}
	early := send(t, c, "2026-04-08T15:59:59Z", "TK-1")
	if st := early.StatusAt(Deadlines{}, at("2026-04-20T00:00:00Z")); !st.SentEarly || st.SentLate || st.NotOpen || st.State != StateSent || st.Outstanding != cents("14880.00") {
		t.Fatalf("sent a second before the opening: %+v", st)
	}
	inTime := send(t, c, "2026-04-08T16:00:00Z", "TK-1")
	if st := inTime.StatusAt(Deadlines{}, at("2026-04-20T00:00:00Z")); st.SentEarly || st.SentLate {
		t.Fatalf("sent at the opening: %+v", st)
	}
	last := send(t, c, "2026-05-30T15:59:59Z", "TK-1")
	if st := last.StatusAt(Deadlines{}, at("2026-06-01T00:00:00Z")); st.SentEarly || st.SentLate {
		t.Fatalf("sent a second before the deadline: %+v", st)
	}
	if st := send(t, c, "2026-05-30T16:00:00Z", "TK-1").StatusAt(Deadlines{}, at("2026-06-01T00:00:00Z")); st.SentEarly || !st.SentLate {
		t.Fatalf("sent at the deadline: %+v", st)
	}
	if st := send(t, awsMarch(t), "2026-04-01T00:00:00Z", "").StatusAt(Deadlines{}, at("2026-04-02T00:00:00Z")); st.SentEarly || st.NotOpen {
		t.Fatalf("no opening in the text, sent as the month ends: %+v", st)
	}
	_, err := New(Draft{Contract: "tencent-cvm", Month: "2026-03", Amount: 1, Currency: "CNY", Deadline: at("2026-05-31T00:00:00+08:00"),
		Opens: at("2026-05-31T00:00:00+08:00"), TimeZone: "Asia/Shanghai", Seal: Seal{ObservationsSHA256: "a", ChainHead: "b"},
		MonthEnd: at("2026-04-01T00:00:00+08:00"), AsOf: at("2026-04-01T06:00:00+08:00")})
	if err == nil || !strings.HasPrefix(err.Error(), `opens: "2026-05-30T16:00:00Z" is not before the claim deadline`) {
		t.Fatalf("a window opening at its deadline: %v", err)
	}
}
