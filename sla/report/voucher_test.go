package report

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/terms"
)

// TestGPUhubVoucherAboveTheCharge: GPUhub's network voucher is "downtime
// minutes × 1.5, rounded up to the hour, × the unit price", with no cap
// for network failures (the pack's uptime.credit_cap: none). A 1-GPU node at
// 0.50 USD/h delivered 2 March 00:00 and released 3 March 00:00 is billed
// 24 h = 12.00 USD; it is unreachable 02:00-22:00, 20 h = 1,200 min ×
// 1.5 = 1,800 min = 30 h × 0.50 = 15.00 USD. The credit stays 15.00, above
// the charge; the claim page says the contract sets no cap.
func TestGPUhubVoucherAboveTheCharge(t *testing.T) {
	tm, err := terms.ReadFile(filepath.Join(packDir, "gpuhub-network.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	log := `{"type":"node_registered","id":"r","node":"g1","contract":"gpuhub-network","ordered_at":"2026-03-01T12:00:00Z","hardware":{"gpu_model":"RTX 4090","gpu_count":1},"heartbeat_interval_s":60}
{"type":"heartbeat_run","id":"a","node":"g1","at":"2026-03-02T00:00:00Z","last_at":"2026-03-02T01:59:00Z","received_at":"2026-03-02T00:00:01Z","last_received_at":"2026-03-02T01:59:01Z","count":120,"heartbeat_interval_s":60,"max_gap_ms":60000,"max_delay_ms":1000}
{"type":"heartbeat_run","id":"b","node":"g1","at":"2026-03-02T22:00:00Z","last_at":"2026-03-02T23:59:00Z","received_at":"2026-03-02T22:00:01Z","last_received_at":"2026-03-02T23:59:01Z","count":120,"heartbeat_interval_s":60,"max_gap_ms":60000,"max_delay_ms":1000}
{"type":"node_released","id":"rel","node":"g1","at":"2026-03-03T00:00:00Z"}
`
	b, err := NewBuilder(tm, Options{Year: 2026, Month: time.March, AsOf: time.Date(2026, 4, 2, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.ReadLog("g1.jsonl", strings.NewReader(log)); err != nil {
		t.Fatal(err)
	}
	r, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	n := node(t, r, "g1")
	eq(t, "charge", n.Billing.Charge, 12.00)
	eq(t, "downtime credit", n.Credit.DowntimeAmount, 15.00)
	eq(t, "credit", n.Credit.Amount, 15.00)
	if n.Credit.Capped || !n.Credit.NoCap || len(n.Credit.DowntimeCredits) != 1 || n.Credit.DowntimeCredits[0].CreditHours != 30 {
		t.Fatalf("credit %+v", n.Credit)
	}
	// The same day under a 100 % cap is cut to the charge.
	capped := *tm[0]
	capped.Uptime.CreditCap = 100
	b, _ = NewBuilder([]*terms.Terms{&capped}, Options{Year: 2026, Month: time.March, AsOf: time.Date(2026, 4, 2, 0, 0, 0, 0, time.UTC)})
	if err := b.ReadLog("g1.jsonl", strings.NewReader(log)); err != nil {
		t.Fatal(err)
	}
	if r, err = b.Build(); err != nil {
		t.Fatal(err)
	}
	if c := node(t, r, "g1").Credit; c.Amount != 12 || !c.Capped || c.CapPercent != 100 {
		t.Fatalf("capped: %+v", c)
	}
}
