package document

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/claims"
	"github.com/gpusla/gpusla/sla/i18n"
	"github.com/gpusla/gpusla/sla/scorecard/scorecardtest"
)

// TestScorecardShowsWhatClaimsRecovered: Alpha's March 2026 claim of
// 2,400.00 USD, sent 2 April, 1,800.00 granted 10 April, 900.00 on the
// April bill: Q1 claimed 2,400.00, granted 1,800.00, received 900.00,
// refused 600.00, outstanding 900.00, 37.5 % recovered. The scorecard
// (md, html, json) and the monthly report's scorecard section (md, zh)
// carry it; Beta, with no claim, has no such table.
func TestScorecardShowsWhatClaimsRecovered(t *testing.T) {
	sc := scorecardtest.Golden(t)
	at := func(s string) time.Time { v, _ := time.Parse(time.RFC3339, s); return v }
	c, err := claims.New(claims.Draft{Contract: "alpha", Provider: "Alpha", Month: "2026-03", Amount: 240000, Currency: "USD",
		Deadline: at("2026-06-01T00:00:00Z"), TimeZone: "UTC", Seal: claims.Seal{ObservationsSHA256: "aa", ChainHead: "bb"},
		MonthEnd: at("2026-04-01T00:00:00Z"), AsOf: at("2026-04-01T00:00:00Z")})
	if err != nil {
		t.Fatal(err)
	}
	c, _, _ = c.Send(claims.Sent{At: at("2026-04-02T00:00:00Z"), Via: "email"}, at("2026-04-02T00:00:00Z"))
	c, _, _ = c.Answered(claims.AnswerIn{Answer: claims.Answer{At: at("2026-04-10T00:00:00Z"), Outcome: claims.Partial, Granted: 180000}, HasGranted: true}, at("2026-04-10T00:00:00Z"))
	if c, err = c.Apply(claims.CreditIn{Credit: claims.Credit{Key: "k", Period: "2026-04", Amount: 90000, MatchedBy: claims.ByHand}, Currency: "USD"}); err != nil {
		t.Fatal(err)
	}
	sc.AddClaims([]claims.Claim{c}, nil, at("2026-04-20T00:00:00Z"))

	var md, html, js bytes.Buffer
	if err := RenderScorecard(&md, sc, "md"); err != nil {
		t.Fatal(err)
	}
	if err := RenderScorecard(&html, sc, "html"); err != nil {
		t.Fatal(err)
	}
	if err := RenderScorecard(&js, sc, "json"); err != nil {
		t.Fatal(err)
	}
	for _, x := range []struct{ name, doc, want string }{
		{"md", md.String(), "| 2026-Q1 | USD | 2400.00 | 1800.00 | 900.00 | 600.00 | 900.00 | 37.5 % | 0 of 1 |"},
		{"md", md.String(), "| **2026-03..2026-03** | USD | 2400.00 | 1800.00 | 900.00 | 600.00 | **900.00** | **37.5 %** | 0 of 1 |"},
		{"html", html.String(), "<td>2026-Q1</td><td>USD</td><td>2400.00</td><td>1800.00</td><td>900.00</td><td>600.00</td><td>900.00</td><td>37.5 %</td><td>0 of 1</td>"},
		{"json", js.String(), `"claims": {`},
		{"json", js.String(), `"share_recovered_percent": 37.5`},
	} {
		if !strings.Contains(x.doc, x.want) {
			t.Errorf("%s lacks %q", x.name, x.want)
		}
	}
	if n := strings.Count(md.String(), "What its claims recovered"); n != 1 {
		t.Errorf("md has %d recovery tables, want Alpha's only", n)
	}
	for _, x := range []struct {
		lang i18n.Lang
		want []string
	}{
		{i18n.EN, []string{"Alpha: what its claims recovered", "received on bills", "2,400.00 USD", "900.00 USD", "37.5 %", "0 of 1"}},
		{i18n.ZH, []string{"Alpha：索赔回收情况", "账单已到账", "服务商逾期", "37.5%", "0 / 1"}},
	} {
		var rep bytes.Buffer
		if err := Render(&rep, buildClaim(t), "md", Extras{Lang: x.lang, Scorecard: sc}); err != nil {
			t.Fatal(err)
		}
		for _, w := range x.want {
			if !strings.Contains(rep.String(), w) {
				t.Errorf("%s report lacks %q", x.lang, w)
			}
		}
	}
}
