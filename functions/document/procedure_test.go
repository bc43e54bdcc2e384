package document

import (
	"strings"
	"testing"

	"github.com/gpusla/gpusla/sla/i18n"
	"github.com/gpusla/gpusla/sla/report"
)

func pct(v float64) *float64 { return &v }

// procedureMonth is a March under an AWS-like procedure: a case in the
// support centre, "SLA Credit Request" in the subject line, the incidents'
// dates and times, the instance ids, the regions and the logs; a claim
// that may be filed only from 8 April (after five working days), while the
// report is as of 2 April; and one clause counted approximately (whole
// minutes rounded down: at most a minute per incident, under).
func procedureMonth() *report.Report {
	c := report.Contract{Contract: "aws", Provider: "Amazon Web Services", Currency: "USD", TimeZone: "UTC",
		MonthStart: "2026-03-01T00:00:00Z", MonthEnd: "2026-04-01T00:00:00Z", Claim: 2361.6, Charge: 23616,
		ClaimDeadline: "2026-06-01T00:00:00Z", ClaimOpens: "2026-04-08T00:00:00Z", Letter: report.LetterRequest, Lang: "en",
		Renter: "Galaxy AI Ltd.", Clauses: map[string]string{},
		Procedure: &report.ClaimProcedure{Channel: "support_case", Address: "https://console.aws.amazon.com/support", Subject: "SLA Credit Request",
			Include: []string{"incident_times", "instance_ids", "region", "logs", "ticket_ids"}, WithoutCredit: "notice"},
		Approximations: []report.Approximation{{Clause: "the time unit is minutes", Why: "whole minutes, rounded down", Direction: "under", PerRunSeconds: 60}}}
	n := report.Node{Node: "p5-01", Contract: "aws", Provider: c.Provider, Currency: "USD", TimeZone: "UTC", InstanceID: "i-0abc123def4567890",
		Region: "us-east-1", Period: report.Period{InService: true}, Breach: true,
		Uptime: report.Uptime{TargetPercent: 99.5, ClaimablePercent: pct(99.2921), ObservedPercent: pct(99.2921), ClaimableOutageSeconds: 3160},
		Outages: []report.Outage{{Kind: "unreachable", Cause: "network", Start: "2026-03-10T08:00:00Z", End: "2026-03-10T08:52:40Z",
			Seconds: 3160, CountedSeconds: 3160, Counted: true}},
		Credit:      report.Credit{Percent: 10, Amount: 2361.6, TierPercent: 10, Tier: &report.Tier{MinPercent: 99, MaxPercent: 99.5, CreditPercent: 10}},
		Billing:     report.Billing{Charge: 23616, GPUs: 8, PricePerGPUHour: 4, BilledSeconds: 744 * 3600},
		Approximate: &report.Approximate{MaxDowntimeSeconds: 60, UptimeLowPercent: 99.2787, UptimeHighPercent: 99.2921}}
	bare := n
	bare.Node, bare.InstanceID, bare.Region, bare.Approximate = "p5-02", "", "", nil
	return &report.Report{Schema: report.Schema, Month: "2026-03", AsOf: "2026-04-02T12:00:00Z", Contracts: []report.Contract{c},
		Nodes: []report.Node{n, bare}}
}

// The letter follows the provider's procedure: the subject its text asks
// for, the channel, the first day it may be filed (and is dated no
// earlier), the incidents with instance ids and regions, a line for each
// thing the text asks a claim to hold (saying what is missing), and where
// the figure is approximate and by at most how much.
func TestLetterFollowsTheProcedure(t *testing.T) {
	r := procedureMonth()
	d, err := newDoc(r, Extras{Lang: i18n.EN})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	mdClaim(&b, d.Claims[0])
	md := b.String()
	for _, want := range []string{
		"**Subject:** SLA Credit Request — aws — March 2026",
		"**File through:** a case in the provider's support centre: https\\://console.aws.amazon.com/support",
		"**May be filed from:** 8 April 2026\n",
		"**Date of application:** 8 April 2026",
		"| i-0abc123def4567890 (node p5-01) | us-east-1 | unreachable | 2026-03-10 08:00:00 +00:00 | 2026-03-10 08:52:40 +00:00 | 52m40s | 52m40s |",
		"the date and time of each incident: the incidents table above",
		"node p5-02 has no instance id registered",
		"node p5-02 has no region registered",
		"attach the evidence bundle (evidence.zip",
		"the support tickets about the incidents: none was opened this month",
		"Approximate: whole minutes, rounded down, where the provider's text says “the time unit is minutes”: off by at most 1m per incident, never more than the provider would count.",
		"p5-01: the provider's own count may differ by at most 1m this month: uptime between 99.2787 % and 99.2921 %, within the same tier.",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the letter lacks %q\n%s", want, md)
		}
	}
	// Every medium carries it.
	for _, format := range []string{"html", "pdf", "md"} {
		var out strings.Builder
		if err := Render(&out, r, format, Extras{Lang: i18n.ZH}); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
	}
}

// A claim opening that counts working days in a year whose public holidays
// the terms do not list (Tencent's "次月的第五（5）个工作日后" for December
// 2026, the terms listing 2026's holidays only): the letter gives the rule
// and the earliest day, 8 January 2027 (1 January a Friday counted as a
// weekday), never that day as the opening, and is dated no earlier. A known
// opening is a plain date (TestLetterFollowsTheProcedure).
func TestLetterOpeningInAYearWithoutHolidays(t *testing.T) {
	r := procedureMonth()
	r.Month, r.AsOf = "2026-12", "2027-01-02T12:00:00Z"
	c := &r.Contracts[0]
	c.MonthStart, c.MonthEnd, c.ClaimDeadline = "2026-12-01T00:00:00Z", "2027-01-01T00:00:00Z", "2027-03-02T00:00:00Z"
	c.ClaimOpens, c.ClaimOpensEarliest, c.ClaimOpensHolidaysMissing = "", "2027-01-08T00:00:00Z", 2027
	c.Procedure.OpensAfterWorkingDays = 5
	for _, tc := range []struct {
		lang  i18n.Lang
		wants []string
	}{
		{i18n.EN, []string{"**May be filed from:** after 5 working days of the next month, counted by its public holidays of 2027, which the terms do not list: not before 8 January 2027\n",
			"**Date of application:** 8 January 2027"}},
		{i18n.ZH, []string{"次月第5个工作日后（按条款未列出的2027年法定节假日计）：不早于2027年1月8日"}},
	} {
		d, err := newDoc(r, Extras{Lang: tc.lang})
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		mdClaim(&b, d.Claims[0])
		for _, want := range tc.wants {
			if !strings.Contains(b.String(), want) {
				t.Errorf("%s: the letter lacks %q\n%s", tc.lang, want, b.String())
			}
		}
	}
}
