package storetest

import (
	"errors"
	"fmt"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/sla/claims"
)

// testLedgerStore is the contract of store.LedgerStore: claims created
// once and versioned like tickets, bill credit lines put with a version
// like provider incidents, both listed in their order.
func testLedgerStore(t *testing.T, s store.Store) {
	ls, ok := s.(store.LedgerStore)
	if !ok {
		t.Fatalf("%T does not implement store.LedgerStore", s)
	}
	t.Run("Claims", func(t *testing.T) { testLedgerClaims(t, ls) })
	t.Run("ClaimConcurrentCredits", func(t *testing.T) { testLedgerConcurrent(t, ls) })
	t.Run("BillCredits", func(t *testing.T) { testBillCredits(t, ls) })
	t.Run("IncidentClaims", func(t *testing.T) { testIncidentClaims(t, ls) })
}

// testIncidentClaims: an incident's own claim (a window counted from the
// incident) is created once under its id, keeps the incident and its
// deadline to the second, takes the once-only notice of a reminder by a
// versioned write, and is listed after its month's claim.
func testIncidentClaims(t *testing.T, s store.LedgerStore) {
	start := time.Date(2026, 2, 28, 16, 10, 0, 0, time.UTC) // 1 March 00:10 Beijing
	c, err := claims.NewIncident(claims.IncidentDraft{Contract: "ali", Provider: "Alibaba Cloud", Month: "2026-03", Currency: "CNY",
		Incident: claims.Incident{Node: "hz-01", Start: start, End: start.Add(12 * time.Minute), Counted: 720},
		Deadline: start.AddDate(0, 0, 30), TimeZone: "Asia/Shanghai", Lang: "zh", AsOf: start.Add(time.Hour),
		Record: claims.Record{RecordedAt: start.Add(time.Hour), RecordedBy: "report-job"}})
	must(t, err, "NewIncident")
	if c.ID != "ali/2026-03/hz-01_20260228T161000Z" {
		t.Fatalf("id %s", c.ID)
	}
	in := store.Claim{Claim: c, UpdatedAt: start.Add(time.Hour)}
	must(t, s.CreateClaim(ctx(), in), "CreateClaim incident")
	mustIs(t, s.CreateClaim(ctx(), in), store.ErrExists, "CreateClaim incident twice (an incident is claimed once)")
	must(t, s.CreateClaim(ctx(), sampleClaim("ali", "2026-03")), "CreateClaim month")
	got, err := s.GetClaim(ctx(), c.ID)
	must(t, err, "GetClaim incident")
	if in.Version = 1; !reflect.DeepEqual(got, in) {
		t.Fatalf("incident claim round trip:\n got %+v\nwant %+v", got, in)
	}
	if got.Incident == nil || !got.Incident.Start.Equal(start) || got.Incident.Counted != 720 || !got.Deadline.Equal(time.Date(2026, 3, 30, 16, 10, 0, 0, time.UTC)) {
		t.Fatalf("incident %+v, deadline %v", got.Incident, got.Deadline)
	}
	got.Notices = []store.ClaimNotice{{Key: "reminder-7d", SentAt: start.AddDate(0, 0, 23)}}
	must(t, s.UpdateClaim(ctx(), got, 1), "UpdateClaim incident")
	mustIs(t, s.UpdateClaim(ctx(), got, 1), store.ErrConflict, "UpdateClaim incident with a stale version (two runs reminding at once)")
	list, err := s.ListClaims(ctx())
	must(t, err, "ListClaims")
	var ids []string
	for _, c := range list {
		if c.Contract == "ali" {
			ids = append(ids, c.ID)
		}
	}
	if fmt.Sprint(ids) != "[ali/2026-03 ali/2026-03/hz-01_20260228T161000Z]" {
		t.Fatalf("listed %v", ids)
	}
}

func sampleClaim(contract, month string) store.Claim {
	return store.Claim{Claim: claims.Claim{ID: claims.ID(contract, month), Contract: contract, Provider: "示例算力云 Example Cloud", Month: month,
		Amount: 236160, Currency: "USD", Deadline: t0.AddDate(0, 2, 0), Opens: t0.AddDate(0, 0, 8), OpensHolidaysMissing: 2027, TimeZone: "Asia/Shanghai", Lang: "zh", Nodes: []string{"gz-01", "gz-02"},
		Seal:    claims.Seal{ObservationsSHA256: "9f2c", ChainHead: "a1b2", Batches: 4210, RecordsSHA256: "77e0"},
		Drafted: claims.Record{RecordedAt: t0, RecordedBy: "report-job"}, Credits: []claims.Credit{}}}
}

func testLedgerClaims(t *testing.T, s store.LedgerStore) {
	_, err := s.GetClaim(ctx(), "cn/2026-10")
	mustIs(t, err, store.ErrNotFound, "GetClaim before create")
	c := sampleClaim("cn", "2026-10")
	must(t, s.CreateClaim(ctx(), c), "CreateClaim")
	mustIs(t, s.CreateClaim(ctx(), c), store.ErrExists, "CreateClaim twice (a month's claim is drafted once)")
	got, err := s.GetClaim(ctx(), "cn/2026-10")
	must(t, err, "GetClaim")
	want := c
	want.Version = 1
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, want)
	}

	// Everything recorded on it, in one versioned write: sent, answered,
	// a credit, a notice.
	got.Sent = &claims.Sent{At: t0.Add(24 * time.Hour), Via: "ticket", Reference: "TK-88", Record: claims.Record{RecordedAt: t0.Add(25 * time.Hour), RecordedBy: "api:k7q2m4xa (finance)"}}
	got.Answer = &claims.Answer{At: t0.Add(72 * time.Hour), Outcome: claims.Partial, Granted: 118080, Reason: "部分接受：维护窗口内的停机不计", Reference: "R-1",
		Record: claims.Record{RecordedAt: t0.Add(73 * time.Hour), RecordedBy: "cli:ana"}}
	got.Credits = []claims.Credit{{Key: "bill:2026-12:00aa", Period: "2026-12", At: t0.AddDate(0, 1, 1), Amount: 118080, MatchedBy: claims.ByAmountPeriod, Form: claims.FormCoupon,
		Record: claims.Record{RecordedAt: t0.AddDate(0, 2, 0), RecordedBy: "cli:ana"}}}
	got.Notices = []store.ClaimNotice{{Key: "credit_overdue", SentAt: t0.AddDate(0, 2, 0)}}
	got.UpdatedAt = t0.AddDate(0, 2, 0)
	must(t, s.UpdateClaim(ctx(), got, 1), "UpdateClaim")
	mustIs(t, s.UpdateClaim(ctx(), got, 1), store.ErrConflict, "UpdateClaim with a stale version")
	mustIs(t, s.UpdateClaim(ctx(), sampleClaim("cn", "1999-01"), 1), store.ErrNotFound, "UpdateClaim of an absent claim")
	back, err := s.GetClaim(ctx(), "cn/2026-10")
	must(t, err, "GetClaim after update")
	want = got
	want.Version = 2
	if !reflect.DeepEqual(back, want) {
		t.Fatalf("after update:\n got %+v\nwant %+v", back, want)
	}
	if back.Notice("credit_overdue") == nil || back.Notice("answer_overdue") != nil {
		t.Fatal("Notice lookup")
	}

	// Listed by month, then id, whatever the order of creation.
	for _, id := range [][2]string{{"us", "2026-11"}, {"cn", "2026-11"}, {"aa", "2026-09"}} {
		must(t, s.CreateClaim(ctx(), sampleClaim(id[0], id[1])), "CreateClaim "+id[0])
	}
	list, err := s.ListClaims(ctx())
	must(t, err, "ListClaims")
	var ids []string
	for _, c := range list {
		ids = append(ids, c.ID)
	}
	if fmt.Sprint(ids) != "[aa/2026-09 cn/2026-10 cn/2026-11 us/2026-11]" || list[1].Version != 2 || list[1].Answer == nil {
		t.Fatalf("ListClaims = %v", ids)
	}
}

// testLedgerConcurrent: writers racing to apply credits to one claim with
// read-modify-versioned-write all get theirs in exactly once.
func testLedgerConcurrent(t *testing.T, s store.LedgerStore) {
	must(t, s.CreateClaim(ctx(), sampleClaim("race", "2026-10")), "CreateClaim")
	const writers = 8
	var conflicts atomic.Int64
	Parallel(t, writers, func(i int) error {
		for {
			c, err := s.GetClaim(ctx(), "race/2026-10")
			if err != nil {
				return err
			}
			prev := c.Version
			c.Credits = append(c.Credits, claims.Credit{Key: fmt.Sprint("k", i), Period: "2026-12", Amount: claims.Cents(100 + i)})
			err = s.UpdateClaim(ctx(), c, prev)
			if errors.Is(err, store.ErrConflict) {
				conflicts.Add(1)
				continue
			}
			return err
		}
	})
	c, err := s.GetClaim(ctx(), "race/2026-10")
	must(t, err, "GetClaim")
	seen := map[string]int{}
	var sum claims.Cents
	for _, cr := range c.Credits {
		seen[cr.Key]++
		sum += cr.Amount
	}
	if len(c.Credits) != writers || len(seen) != writers || c.Version != writers+1 || sum != 100*writers+28 {
		t.Fatalf("after %d racing credits: %v, sum %v, version %d", writers, seen, sum, c.Version)
	}
	t.Logf("%d conflicts resolved by re-reading", conflicts.Load())
}

func testBillCredits(t *testing.T, s store.LedgerStore) {
	_, err := s.GetBillCredit(ctx(), "bill:2026-12:00aa")
	mustIs(t, err, store.ErrNotFound, "GetBillCredit before a put")
	b := store.BillCredit{BillCredit: claims.BillCredit{Key: "bill:2026-12:00aa", Bill: "cur-2026-12.csv", Lines: []int{17, 18}, Period: "2026-12",
		Amount: 118080, Currency: "USD", Reference: "case-170001", Description: "AWS SLA credit", Form: claims.FormCash, Contracts: []string{"us", "us-east"},
		Unmatched: "no open claim of us, us-east has 1180.80 USD outstanding for a month before 2026-12",
		Record:    claims.Record{RecordedAt: t0, RecordedBy: "cli:ana"}}}
	v, err := s.PutBillCredit(ctx(), b, 0)
	must(t, err, "PutBillCredit new")
	if v != 1 {
		t.Fatalf("version %d, want 1", v)
	}
	_, err = s.PutBillCredit(ctx(), b, 0)
	mustIs(t, err, store.ErrConflict, "PutBillCredit new again (a bill imported twice applies each line once)")
	got, err := s.GetBillCredit(ctx(), b.Key)
	must(t, err, "GetBillCredit")
	want := b
	want.Version = 1
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, want)
	}
	// Applied by hand later: one versioned write; a stale one loses.
	got.Claim, got.MatchedBy, got.Unmatched, got.At = "us/2026-10", claims.ByHand, "", t0.Add(time.Hour)
	v, err = s.PutBillCredit(ctx(), got, 1)
	must(t, err, "PutBillCredit applied")
	if v != 2 {
		t.Fatalf("version %d, want 2", v)
	}
	_, err = s.PutBillCredit(ctx(), got, 1)
	mustIs(t, err, store.ErrConflict, "PutBillCredit with a stale version")
	_, err = s.PutBillCredit(ctx(), store.BillCredit{BillCredit: claims.BillCredit{Key: "never-stored", Period: "2026-12"}}, 3)
	mustIs(t, err, store.ErrConflict, "PutBillCredit of an absent line with a version")
	back, _ := s.GetBillCredit(ctx(), b.Key)
	if back.Version != 2 || back.Claim != "us/2026-10" || !back.At.Equal(t0.Add(time.Hour)) || back.Unmatched != "" {
		t.Fatalf("after apply: %+v", back)
	}
	for _, k := range [][2]string{{"bill:2027-01:zz", "2027-01"}, {"bill:2026-11:bb", "2026-11"}, {"bill:2026-12:0000", "2026-12"}} {
		_, err := s.PutBillCredit(ctx(), store.BillCredit{BillCredit: claims.BillCredit{Key: k[0], Period: k[1], Amount: 1, Currency: "USD", Contracts: []string{"us"}}}, 0)
		must(t, err, "PutBillCredit "+k[0])
	}
	list, err := s.ListBillCredits(ctx())
	must(t, err, "ListBillCredits")
	var keys []string
	for _, l := range list {
		keys = append(keys, l.Key)
	}
	if fmt.Sprint(keys) != "[bill:2026-11:bb bill:2026-12:0000 bill:2026-12:00aa bill:2027-01:zz]" {
		t.Fatalf("ListBillCredits = %v", keys)
	}
}
