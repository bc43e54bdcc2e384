package app_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/sla/claims"
)

// TestCreditLineImportedAtOnceIsKeptOnce: the same bill's credit line
// imported by eight requests at once (no claim to match) is stored once;
// every request succeeds, one finds it new ("unmatched") and the others
// find it there ("still_unmatched"), and the line keeps who imported it
// first. The import is the application's versioned update: a request that
// lost the race reads the line again instead of overwriting it.
func TestCreditLineImportedAtOnceIsKeptOnce(t *testing.T) {
	_, desk, clock := reportDeskClock(t)
	clock.Set(ny(t, "2027-03-04 09:00:00"))
	l, err := desk.Ledger()
	if err != nil {
		t.Fatal(err)
	}
	b := claims.BillCredit{Bill: "bill-2027-02.csv", Lines: []int{7}, Period: "2027-02", Amount: 1234, Currency: "USD", Contracts: []string{"us-example"}}
	b.Key = claims.CreditKey(b.Period, b.Currency, b.Amount, "", "", b.Lines)
	const n = 8
	outs := make([]app.CreditOutcome, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			var o []app.CreditOutcome
			o, errs[i] = l.ImportCredits(t.Context(), []claims.BillCredit{b}, fmt.Sprintf("cli:importer-%d", i))
			if len(o) == 1 {
				outs[i] = o[0]
			}
		})
	}
	wg.Wait()
	first := ""
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("import %d: %v", i, errs[i])
		}
		switch outs[i].Outcome {
		case "unmatched":
			if first != "" {
				t.Fatalf("two imports found the line new: %s and cli:importer-%d", first, i)
			}
			first = fmt.Sprintf("cli:importer-%d", i)
		case "still_unmatched":
		default:
			t.Fatalf("import %d: outcome %q", i, outs[i].Outcome)
		}
	}
	got, err := l.Credits(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Key != b.Key || got[0].Version != n || got[0].RecordedBy != first || got[0].Claim != "" {
		t.Fatalf("stored %+v, want the one line, written %d times, recorded by %s", got, n, first)
	}
}
