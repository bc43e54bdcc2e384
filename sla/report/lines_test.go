package report

import "testing"

// The credit lines a node's credit sums, each truncated to the cent: the
// ledger allows a cent of rounding for each.
func TestCreditLines(t *testing.T) {
	jd := []DowntimeCredit{{Amount: 1333.33}, {Amount: 1866.66}}
	cases := []struct {
		why  string
		c    Credit
		want int
	}{
		{"no credit", Credit{}, 0},
		{"a tier's percent (hosted·ai's 1,482.04)", Credit{Amount: 1482.04, Percent: 10}, 1},
		{"JD's two coupons", Credit{Amount: 3199.99, DowntimeAmount: 3199.99, DowntimeCredits: jd}, 2},
		{"a percent and two downtime credits", Credit{Amount: 3299.99, DowntimeAmount: 3199.99, DowntimeCredits: jd}, 3},
		{"a downtime credit the month cap left at 0", Credit{Amount: 1333.33, DowntimeAmount: 1333.33, DowntimeCredits: []DowntimeCredit{{Amount: 1333.33}, {Amount: 0}}}, 1},
		{"capped: the cap is the one line", Credit{Amount: 115200, DowntimeAmount: 115466.66, Capped: true, DowntimeCredits: jd}, 1},
	}
	for _, c := range cases {
		if got := c.c.Lines(); got != c.want {
			t.Errorf("%s: %d lines, want %d", c.why, got, c.want)
		}
	}
}
