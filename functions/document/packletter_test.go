package document

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/report"
	"github.com/gpusla/gpusla/sla/terms"
)

// packMonth is a term pack's golden month (testdata/terms/packs).
func packMonth(t *testing.T, pack string) *report.Report {
	t.Helper()
	dir := filepath.Join("..", "..", "testdata", "terms", "packs")
	tm, err := terms.ReadFile(filepath.Join(dir, pack+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := report.NewBuilder(tm, report.Options{Year: 2026, Month: time.March, AsOf: time.Date(2026, 4, 2, 12, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, pack+".events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := b.ReadLog(pack+".events.jsonl", f); err != nil {
		t.Fatal(err)
	}
	r, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestClaimPageShowsTheFormula: the claim page a provider's desk reads says
// which cap the credit was held to and lists each downtime voucher with
// its arithmetic; the node section says what the uptime is a share of, what
// the terms say of maintenance and which clock hours were not charged.
func TestClaimPageShowsTheFormula(t *testing.T) {
	for _, c := range []struct {
		pack string
		want []string
	}{
		// GPUhub: two vouchers (0.50 and 1.50 USD), no cap.
		{"gpuhub-network", []string{"the contract sets no cap on the credit", "20m down", "→ 1 h of the node's hourly rate (1 GPUs, 0.50/h) = 0.50 USD", "→ 3 h of the node's hourly rate (1 GPUs, 0.50/h) = 1.50 USD",
			"The terms state no maintenance exclusion: none is excluded."}},
		// AWS: 10 % of the 738 h actually charged, within the 100 % cap;
		// six clock hours waived; the maintenance notice excludes nothing.
		{"aws-ec2-instance", []string{"738 h × 8 GPUs", "6 clock hours with more than 6m unavailable not charged",
			"within the contract's cap of 100 % of the charge", "The contract excludes no maintenance.",
			"the contract excludes no maintenance (maintenance: none): downtime counts"}},
		// UCloud: the month's minutes are the denominator.
		{"ucloud-sdu", []string{"Uptime is a share of the whole calendar month (30d23h)"}},
	} {
		d, err := newDoc(packMonth(t, c.pack), Extras{})
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		if err := writeMarkdown(&b, d); err != nil {
			t.Fatal(err)
		}
		for _, w := range c.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s: the document lacks %q", c.pack, w)
			}
		}
	}
}
