package document

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/i18n"
	"github.com/gpusla/gpusla/sla/report"
	"github.com/gpusla/gpusla/sla/terms"
)

// packMonth is a term pack's golden month (testdata/terms/packs).
func packMonth(t *testing.T, pack string) *report.Report {
	t.Helper()
	return packMonthOf(t, pack, time.March)
}

// packApril is a term pack's golden April (testdata/terms/packs).
func packApril(t *testing.T, pack string) *report.Report {
	t.Helper()
	return packMonthOf(t, pack, time.April)
}

// packMonthOf is a pack's month m of 2026 as of noon UTC on the 2nd of the
// next, as its golden files are.
func packMonthOf(t *testing.T, pack string, m time.Month) *report.Report {
	t.Helper()
	dir := filepath.Join("..", "..", "testdata", "terms", "packs")
	tm, err := terms.ReadFile(filepath.Join(dir, pack+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := report.NewBuilder(tm, report.Options{Year: 2026, Month: m, AsOf: time.Date(2026, m+1, 2, 12, 0, 0, 0, time.UTC)})
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

// TestPackLettersFollowTheirProcedure: each pack's golden month writes the
// claim its provider's text asks for: the subject line, the channel and
// its address, a line for each item the text asks a claim to hold, and the
// deadline the text sets — from the incident where it runs from one (the
// letter is due with the node's claim, not at the month's).
func TestPackLettersFollowTheirProcedure(t *testing.T) {
	for _, c := range []struct {
		pack string
		want []string
	}{
		{"aws-ec2-instance", []string{"**Subject:** SLA Credit Request — aws-ec2-instance — March 2026",
			"**File through:** a case in the provider's support centre: https\\://console.aws.amazon.com/support/",
			"**Claim deadline:** by 31 May 2026 24:00 (UTC)", "- the date and time of each incident: the incidents table above",
			"- the region of each: in the incidents table", "- logs that document the errors: attach the evidence bundle"}},
		{"gce-single-instance", []string{"**File through:** the provider's web form: https\\://support.google.com/cloud/contact/cloud_platform_sla",
			"**Claim deadline:** by 30 April 2026 24:00 (US Pacific Time, UTC−07:00)", "- the instance ids: in the incidents table",
			"- logs that document the errors: attach the evidence bundle"}},
		{"alibaba-ecs", []string{"**File through:** the ticket system of your account with the provider: https\\://ticket.console.aliyun.com/",
			"**Claim deadline:** by 4 April 2026 14:00 (China Standard Time)", "- the date and time of each incident: the incidents table above",
			"- the instance ids: in the incidents table"}},
		{"hostedai-gpu", []string{"**File through:** the terms name no channel: ask the provider how claims are filed",
			"**Claim deadline:** by 9 April 2026 10:00 (UTC)", "- the date and time of each incident: the incidents table above"}},
		{"gpuhub-network", []string{"- the instance ids: in the incidents table", "- logs that document the errors: attach the evidence bundle"}},
		// Yandex: the subject its universal terms' 1.3 asks for, the date and
		// time of each incident and the failure's evidence; counted to the
		// second, a minute a run from Yandex's possible full minutes.
		{"yandex-compute-vm", []string{"**Subject:** Compute Cloud \\_service unavailability _ — yandex-compute-vm — March 2026",
			"- the date and time of each incident: the incidents table above", "- logs that document the errors: attach the evidence bundle",
			"y-gpu-01: the provider's own count may differ by at most 1m this month: uptime between 99.9485 % and 99.9507 %"}},
	} {
		d, err := newDoc(packMonth(t, c.pack), Extras{Lang: i18n.EN})
		if err != nil {
			t.Fatal(err)
		}
		if len(d.Claims) != 1 {
			t.Fatalf("%s: %d letters, want 1", c.pack, len(d.Claims))
		}
		var b strings.Builder
		mdClaim(&b, d.Claims[0])
		for _, w := range c.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s: the letter lacks %q\n%s", c.pack, w, b.String())
			}
		}
	}
}

// TestClaimLetterSaysEachLineIsCut: where a credit line lost a part of a
// cent to truncation (hosted·ai: 10 % of 14,820.48 is 1,482.048; JD's
// 7-minute coupon 1,866.666…), the letter's credit line says each line is
// cut to the cent, never rounded up, and how much more a reviewer who
// rounds may find, in English and in Chinese; where nothing was cut (AWS:
// 10 % of 23,616.00; JD's April, capped at exactly 115,200.00) it says
// nothing of it.
func TestClaimLetterSaysEachLineIsCut(t *testing.T) {
	const (
		en = "Each credit line is truncated to the cent, never rounded up: a line reckoned with rounding to the nearest cent may come to up to CNY 0.01 more."
		zh = "。各项赔偿金额均计算至分，分以下尾数直接舍去，不作四舍五入；如按四舍五入复核，每项金额至多高出0.01元。"
	)
	for _, c := range []struct {
		pack string
		r    *report.Report
		cur  string
		cut  bool
	}{
		{pack: "hostedai-gpu", r: packMonth(t, "hostedai-gpu"), cur: "USD", cut: true},
		{pack: "jdcloud-vm", r: packMonth(t, "jdcloud-vm"), cur: "CNY", cut: true},
		{pack: "aws-ec2-instance", r: packMonth(t, "aws-ec2-instance"), cur: "USD"},
		{pack: "jdcloud-vm April", r: packApril(t, "jdcloud-vm"), cur: "CNY"},
	} {
		for _, lang := range []i18n.Lang{i18n.EN, i18n.ZH} {
			d, err := newDoc(c.r, Extras{Lang: lang})
			if err != nil {
				t.Fatal(err)
			}
			want := strings.ReplaceAll(en, "CNY", c.cur)
			if lang == i18n.ZH {
				want = zh
				if c.cur == "USD" {
					want = strings.ReplaceAll(zh, "元", "美元")
				}
			}
			var rows []string
			for _, cl := range d.Claims {
				for _, row := range cl.Breaches.Rows {
					rows = append(rows, strings.Join(row, " | "))
				}
			}
			all := strings.Join(rows, "\n")
			if strings.Contains(all, want) != c.cut {
				t.Errorf("%s (%s): says each line is cut %v, want %v; rows:\n%s", c.pack, lang, !c.cut, c.cut, all)
			}
			// Said once, on the node's credit line, never on a breach.
			if c.cut && strings.Count(all, want) != 1 {
				t.Errorf("%s (%s): said %d times", c.pack, lang, strings.Count(all, want))
			}
		}
	}
}
