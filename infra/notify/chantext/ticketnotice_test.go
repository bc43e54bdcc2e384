package chantext

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/calendar"
	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/terms"
	"github.com/gpusla/gpusla/sla/ticket"
)

// TestTicketNoticeTexts: the ticket notices: opened, a late response recorded, a deadline near, a deadline
// breached, for a P1 opened off-hours at 23:50 Beijing time, in English
// and Chinese on the contract's clock; golden texts (-update). None carries
// Slack syntax, a Go duration or a second clock.
func TestTicketNoticeTexts(t *testing.T) {
	opened := time.Date(2026, 3, 12, 15, 50, 0, 0, time.UTC) // 23:50 in Shanghai
	resp := &ticket.Clock{Target: 30 * time.Minute, Clock: terms.Wall, Deadline: opened.Add(30 * time.Minute), Elapsed: 24 * time.Minute}
	tim := ticket.Timing{OffHours: true, DayKind: calendar.Workday, Response: resp,
		Resolution: &ticket.Clock{Target: 4 * time.Hour, Clock: terms.Wall, Deadline: opened.Add(4 * time.Hour)}}
	f := TicketFacts{ID: "T-0042", Node: "gz-01", Priority: "P1", ProviderRef: "ACME-7", Contract: "cn-example", Opened: opened, Recorded: opened}
	late := TicketEvent{Type: events.TypeProviderResponded, At: opened.Add(37 * time.Minute), RecordedAt: opened.Add(37 * time.Minute), Target: "response", Late: 7 * time.Minute}
	var b strings.Builder
	for _, lang := range []string{"en", "zh"} {
		for _, s := range []string{
			TicketOpenedText(lang, "Asia/Shanghai", f, tim),
			TicketRecordedText(lang, "Asia/Shanghai", f, late, tim),
			TicketWarningText(lang, "Asia/Shanghai", f, "response", resp),
			TicketBreachedText(lang, "Asia/Shanghai", f, "response", resp, tim),
		} {
			b.WriteString(s + "\n")
			if goDuration.MatchString(s) || strings.Contains(s, ":rotating_light:") || strings.Contains(s, ":warning:") || strings.Contains(s, "UTC") {
				t.Errorf("%s: Slack syntax, a Go duration or UTC in %q", lang, s)
			}
			if !strings.Contains(s, map[string]string{"en": "(China Standard Time)", "zh": "（北京时间）"}[lang]) {
				t.Errorf("%s: the contract's zone is not named in %q", lang, s)
			}
		}
	}
	golden(t, filepath.Join("testdata", "ticket-notices.golden"), b.String())
}
