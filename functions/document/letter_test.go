package document

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/internal/golden"
	"github.com/gpusla/gpusla/sla/i18n"
	"github.com/gpusla/gpusla/sla/report"
	"github.com/gpusla/gpusla/sla/terms"
)

// readmeMonth is the README's report: cn-example (Chinese, Asia/Shanghai)
// and us-example (English, America/New_York) in March 2026, as of
// 2026-04-05T00:00:00Z.
func readmeMonth(t *testing.T) *report.Report {
	t.Helper()
	var all []*terms.Terms
	for _, f := range []string{"../../testdata/terms/cn-example.yaml", "../../testdata/terms/us-example.yaml"} {
		ts, err := terms.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, ts...)
	}
	b, err := report.NewBuilder(all, report.Options{Year: 2026, Month: time.March, AsOf: time.Date(2026, 4, 5, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open("../../sla/report/testdata/example-events.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := b.ReadLog("example-events.jsonl", f); err != nil {
		t.Fatal(err)
	}
	r, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// The claim letters of the README's month, read as the provider's billing
// desk reads them: in each contract's own language (report.lang) when no
// --lang is given, and in Chinese and in English throughout.
func TestClaimLetterGolden(t *testing.T) {
	r := readmeMonth(t)
	for _, v := range []struct {
		name string
		lang i18n.Lang
	}{{"claim-letter.md", ""}, {"claim-letter.zh.md", i18n.ZH}, {"claim-letter.en.md", i18n.EN}} {
		d, err := newDoc(r, Extras{Lang: v.lang})
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, c := range d.Claims {
			mdClaim(&b, c)
			if m := c.P.Missing(); len(m) > 0 {
				t.Errorf("%s: %s lacks %s", v.name, c.P.Lang, strings.Join(m, "; "))
			}
		}
		golden.Check(t, v.name, []byte(b.String()))
	}
	// Without --lang, each letter is in its contract's language.
	d, _ := newDoc(r, Extras{})
	if d.Claims[0].P.Lang != i18n.ZH || d.Claims[1].P.Lang != i18n.EN {
		t.Errorf("claim pages in %s and %s, want zh (cn-example) and en (us-example)", d.Claims[0].P.Lang, d.Claims[1].P.Lang)
	}
	zh := d.Claims[0]
	for _, want := range []string{"致", "申请方（承租方）", "申请日期", "服务期间"} {
		found := false
		for _, f := range zh.Fields {
			found = found || f.Label == want
		}
		if !found {
			t.Errorf("the zh letter has no %s line", want)
		}
	}
	// The as-of instant 2026-04-05T00:00Z is 08:00 on 5 April in Shanghai
	// and 20:00 on 4 April in New York: each letter is dated in its zone.
	for i, want := range []string{"2026年4月5日", "4 April 2026"} {
		got := ""
		for _, f := range d.Claims[i].Fields {
			if f.Label == d.Claims[i].P.T("Date of application") {
				got = f.Value
			}
		}
		if got != want {
			t.Errorf("letter %d dated %q, want %q", i, got, want)
		}
	}
}

func TestSplitClause(t *testing.T) {
	for in, want := range map[string][2]string{
		"第8条 (cn-example.yaml:108)":         {"第8条", "cn-example.yaml:108"},
		"cn-example.yaml:70":                {"", "cn-example.yaml:70"},
		"Sec. 2.1 (a) (us-example.yaml:35)": {"Sec. 2.1 (a)", "us-example.yaml:35"},
		"§4.2":                              {"§4.2", ""},
		"us-example.yaml":                   {"", "us-example.yaml"},
	} {
		if id, where := splitClause(in); id != want[0] || where != want[1] {
			t.Errorf("splitClause(%q) = %q, %q; want %q, %q", in, id, where, want[0], want[1])
		}
	}
	if l, n := names("星河智能科技有限公司 Galaxy AI Ltd."); l != "星河智能科技有限公司" || n != "Galaxy AI Ltd." {
		t.Errorf("names = %q, %q", l, n)
	}
	if l, n := names("Galaxy AI Ltd."); l != "Galaxy AI Ltd." || n != "" {
		t.Errorf("names = %q, %q", l, n)
	}
}
