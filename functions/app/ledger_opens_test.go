package app_test

import (
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/sla/claims"
	"github.com/gpusla/gpusla/sla/report"
)

// TestClaimWindowOpensInTheLedger: Tencent's three packs take a claim
// "only … after the fifth (5th) business day of the month immediately
// following such Service Month" (在…次月的第五（5）个工作日后). Their golden
// March 2026 reports open the window on 9 April 00:00 Beijing (8 April
// 16:00 UTC: April's working days 1, 2, 3, 7, 8 around 清明). Drafted from
// those reports on each store, each claim keeps the opening: it waits
// (not_open) until a second before it and not at it; tencent-cvm's, sent a
// second early, is sent_early — Tencent may refuse it — and the others,
// sent at the opening instant and a second after, are in time. Read back
// from the store, the opening and the verdicts are the same.
func TestClaimWindowOpensInTheLedger(t *testing.T) {
	onEachStore(t, func(t *testing.T, st store.Store) {
		desk, clock := reportDeskOn(t, st)
		l, err := desk.Ledger()
		if err != nil {
			t.Fatal(err)
		}
		clock.Set(time.Date(2026, 4, 2, 12, 0, 0, 0, time.UTC))
		opens := time.Date(2026, 4, 8, 16, 0, 0, 0, time.UTC)
		sent := map[string]time.Time{"tencent-cvm": opens.Add(-time.Second), "tencent-intl-cvm": opens, "tencent-car": opens.Add(time.Second)}
		for _, pack := range []string{"tencent-cvm", "tencent-intl-cvm", "tencent-car"} {
			raw, err := os.ReadFile("../../testdata/terms/packs/" + pack + ".report.json")
			if err != nil {
				t.Fatal(err)
			}
			var r report.Report
			if err := json.Unmarshal(raw, &r); err != nil {
				t.Fatal(err)
			}
			// The golden report is the month's figures; the seal is the
			// evidence bundle's, which a claim rests on.
			r.Seal = &report.Seal{ObservationsSHA256: "9f2c", ChainHead: "a1b2"}
			if ds, err := l.Draft(t.Context(), &r, "cli:ana"); err != nil || len(ds) != 1 || ds[0].Outcome != "drafted" {
				t.Fatalf("%s: draft %v %+v", pack, err, ds)
			}
		}
		for pack, at := range sent {
			id := claims.ID(pack, "2026-03")
			clock.Set(opens.Add(-time.Second))
			v, err := l.Claim(t.Context(), id)
			if err != nil || !v.Opens.Equal(opens) || v.OpensHolidaysMissing != 0 || !v.Status.NotOpen || v.Deadline.Format(time.RFC3339) != "2026-05-30T16:00:00Z" {
				t.Fatalf("%s a second before the opening: %v %+v", pack, err, v)
			}
			clock.Set(opens)
			if v, err := l.Claim(t.Context(), id); err != nil || v.Status.NotOpen {
				t.Fatalf("%s at the opening: %v %+v", pack, err, v.Status)
			}
			clock.Set(opens.Add(time.Hour))
			v, err = l.Send(t.Context(), id, claims.Sent{At: at, Via: "ticket", Reference: "TK-" + pack, Record: claims.Record{RecordedBy: "cli:ana"}})
			if early := at.Before(opens); err != nil || v.Status.SentEarly != early || v.Status.SentLate || v.Status.State != claims.StateSent {
				t.Fatalf("%s sent at %s: %v %+v", pack, at.Format(time.RFC3339), err, v.Status)
			}
		}
		views, err := l.Claims(t.Context())
		if err != nil || len(views) != 3 {
			t.Fatalf("listed: %v %d", err, len(views))
		}
		for _, v := range views {
			if !v.Opens.Equal(opens) || v.Status.SentEarly != (v.Contract == "tencent-cvm") {
				t.Fatalf("read back %s: opens %v, %+v", v.ID, v.Opens, v.Status)
			}
		}
	})
}
