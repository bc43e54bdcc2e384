package storetest

import (
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpusla/gpusla/infra/provstatus"
	"github.com/gpusla/gpusla/infra/store"
)

// testProviderStatusStore is the contract of store.ProviderStatusStore:
// provider incidents written once per change (versioned), listed by
// contract and overlap; poll state versioned like a node's.
func testProviderStatusStore(t *testing.T, s store.Store) {
	ps, ok := s.(store.ProviderStatusStore)
	if !ok {
		t.Fatalf("%T does not implement store.ProviderStatusStore", s)
	}
	t.Run("Incidents", func(t *testing.T) { testProviderIncidents(t, ps) })
	t.Run("IncidentWrittenOnce", func(t *testing.T) { testProviderIncidentOnce(t, ps) })
	t.Run("Polls", func(t *testing.T) { testStatusPolls(t, ps) })
}

func sampleProviderIncident(contract, id string, start, end time.Time) store.ProviderIncident {
	inc := store.ProviderIncident{Contract: contract, Source: "https://status.example.com/api/v2/incidents.json", Format: "statuspage",
		FirstSeen: start.Add(10 * time.Minute), FetchedAt: start.Add(10 * time.Minute),
		Page: provstatus.Incident{ID: id, Title: "GPU 实例不可达 unreachable", Status: "investigating", Impact: "major", Start: start, Updated: start.Add(5 * time.Minute),
			Link: "https://stspg.io/" + id, Components: []string{"GPU Compute (cn-east-2)"},
			Updates: []provstatus.Update{{Status: "investigating", Body: "Looking into it.", At: start.Add(5 * time.Minute)}}}}
	if !end.IsZero() {
		inc.Page.Status, inc.Page.Resolved, inc.Page.End = "resolved", true, end
	}
	return inc
}

func testProviderIncidents(t *testing.T, s store.ProviderStatusStore) {
	_, err := s.GetProviderIncident(ctx(), "cn", "p1")
	mustIs(t, err, store.ErrNotFound, "GetProviderIncident before a put")

	open := sampleProviderIncident("cn", "p1", t0, time.Time{})
	v, err := s.PutProviderIncident(ctx(), open, 0)
	must(t, err, "PutProviderIncident new")
	if v != 1 {
		t.Fatalf("version %d, want 1", v)
	}
	_, err = s.PutProviderIncident(ctx(), open, 0)
	mustIs(t, err, store.ErrConflict, "PutProviderIncident new again (a re-fetch must not duplicate)")

	got, err := s.GetProviderIncident(ctx(), "cn", "p1")
	must(t, err, "GetProviderIncident")
	if got.Version != 1 || got.Contract != "cn" || got.Format != "statuspage" || got.Page.Title != open.Page.Title || !got.Page.Start.Equal(t0) ||
		!got.Page.End.IsZero() || got.Page.Resolved || got.Page.Impact != "major" || len(got.Page.Components) != 1 || len(got.Page.Updates) != 1 ||
		!got.Page.Updates[0].At.Equal(t0.Add(5*time.Minute)) || !got.FirstSeen.Equal(open.FirstSeen) || got.Page.Link != open.Page.Link {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, open)
	}

	// The page resolved it: one versioned write; a stale version loses.
	resolved := got
	resolved.Page.Status, resolved.Page.Resolved, resolved.Page.End = "resolved", true, t0.Add(2*time.Hour)
	v, err = s.PutProviderIncident(ctx(), resolved, 1)
	must(t, err, "PutProviderIncident resolved")
	if v != 2 {
		t.Fatalf("version %d, want 2", v)
	}
	_, err = s.PutProviderIncident(ctx(), resolved, 1)
	mustIs(t, err, store.ErrConflict, "PutProviderIncident with a stale version")
	_, err = s.PutProviderIncident(ctx(), sampleProviderIncident("cn", "never-stored", t0, time.Time{}), 3)
	mustIs(t, err, store.ErrConflict, "PutProviderIncident of an absent one with a version")

	// Another contract's incident with the same page id is its own record;
	// one in October; one of a stateless format (RSS) lasting to its update.
	for _, inc := range []store.ProviderIncident{
		sampleProviderIncident("us", "p1", t0.Add(time.Hour), time.Time{}),
		sampleProviderIncident("cn", "p0", t0.AddDate(0, -1, 0), t0.AddDate(0, -1, 0).Add(time.Hour)),
		func() store.ProviderIncident {
			r := sampleProviderIncident("cn", "rss-1", t0.Add(-time.Hour), time.Time{})
			r.Format, r.Page.Status, r.Page.Updated = "rss", "", t0.Add(-30*time.Minute)
			return r
		}(),
	} {
		_, err := s.PutProviderIncident(ctx(), inc, 0)
		must(t, err, "PutProviderIncident "+inc.Contract+"/"+inc.ID())
	}
	list := func(contract string, from, to time.Time) string {
		l, err := s.ListProviderIncidents(ctx(), contract, from, to)
		must(t, err, "ListProviderIncidents")
		out := ""
		for _, x := range l {
			out += x.Contract + "/" + x.ID() + " "
		}
		return out
	}
	day := t0.Add(-12 * time.Hour)
	for _, c := range []struct {
		contract string
		from, to time.Time
		want     string
	}{
		{"cn", day, day.Add(48 * time.Hour), "cn/rss-1 cn/p1 "},
		{"", day, day.Add(48 * time.Hour), "cn/rss-1 cn/p1 us/p1 "},
		{"cn", t0.AddDate(0, -2, 0), t0.AddDate(0, 1, 0), "cn/p0 cn/rss-1 cn/p1 "},
		// After the RSS item's last update and the resolution: nothing of cn.
		{"cn", t0.Add(3 * time.Hour), t0.Add(4 * time.Hour), ""},
		// The open one of us reaches any later window.
		{"us", t0.AddDate(0, 0, 20), t0.AddDate(0, 0, 21), "us/p1 "},
		{"c", day, day.Add(48 * time.Hour), ""}, // a prefix of a contract id is not that contract
	} {
		if got := list(c.contract, c.from, c.to); got != c.want {
			t.Errorf("ListProviderIncidents(%q, %s, %s) = %q, want %q", c.contract, c.from.Format(time.RFC3339), c.to.Format(time.RFC3339), got, c.want)
		}
	}
}

// testProviderIncidentOnce: pollers racing to store the same new incident
// write it once; the others get ErrConflict.
func testProviderIncidentOnce(t *testing.T, s store.ProviderStatusStore) {
	var wins atomic.Int32
	Parallel(t, 8, func(i int) error {
		_, err := s.PutProviderIncident(ctx(), sampleProviderIncident("cn", "race", t0, time.Time{}), 0)
		switch {
		case err == nil:
			wins.Add(1)
		case !errors.Is(err, store.ErrConflict):
			return fmt.Errorf("writer %d: %w", i, err)
		}
		return nil
	})
	if wins.Load() != 1 {
		t.Fatalf("%d writers stored the incident, want 1", wins.Load())
	}
}

func testStatusPolls(t *testing.T, s store.ProviderStatusStore) {
	_, err := s.GetStatusPoll(ctx(), "cn")
	mustIs(t, err, store.ErrNotFound, "GetStatusPoll before a put")
	p := store.StatusPoll{Contract: "cn", URL: "https://status.example.com/history.atom", Format: "atom", NextAt: t0.Add(5 * time.Minute),
		LastAttempt: t0, ETag: `W/"abc"`, LastModified: "Mon, 30 Nov 2026 10:00:00 GMT", FirstSuccess: t0, LastSuccess: t0, Fetches: 1}
	v, err := s.PutStatusPoll(ctx(), p, 0)
	must(t, err, "PutStatusPoll new")
	_, err = s.PutStatusPoll(ctx(), p, 0)
	mustIs(t, err, store.ErrConflict, "PutStatusPoll new twice")
	got, err := s.GetStatusPoll(ctx(), "cn")
	must(t, err, "GetStatusPoll")
	if got.Version != v || v != 1 || got.ETag != p.ETag || got.LastModified != p.LastModified || !got.NextAt.Equal(p.NextAt) || got.Fetches != 1 ||
		!got.FirstSuccess.Equal(t0) || got.URL != p.URL || got.Format != "atom" {
		t.Fatalf("round trip %+v", got)
	}
	got.Failures, got.LastErr, got.FailedFetches = 2, "HTTP 503", 2
	_, err = s.PutStatusPoll(ctx(), got, 1)
	must(t, err, "PutStatusPoll v1")
	_, err = s.PutStatusPoll(ctx(), got, 1)
	mustIs(t, err, store.ErrConflict, "PutStatusPoll stale")
	_, err = s.PutStatusPoll(ctx(), store.StatusPoll{Contract: "a-first"}, 0)
	must(t, err, "PutStatusPoll second contract")
	all, err := s.ListStatusPolls(ctx())
	must(t, err, "ListStatusPolls")
	if len(all) != 2 || all[0].Contract != "a-first" || all[1].Failures != 2 || all[1].LastErr != "HTTP 503" || all[1].Version != 2 {
		t.Fatalf("ListStatusPolls %+v", all)
	}
}
