package storetest

import (
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpusla/gpusla/infra/store"
)

// testTicketStore is the contract of app.TicketStore: tickets (versioned
// single items, the open list), API keys and one-time claims.
func testTicketStore(t *testing.T, s store.Store) {
	ts, ok := s.(store.TicketStore)
	if !ok {
		t.Fatalf("%T does not implement app.TicketStore", s)
	}
	t.Run("Tickets", func(t *testing.T) { testTickets(t, ts) })
	t.Run("TicketConcurrentAppends", func(t *testing.T) { testTicketConcurrent(t, ts) })
	t.Run("APIKeys", func(t *testing.T) { testAPIKeys(t, ts) })
	t.Run("ClaimOnce", func(t *testing.T) { testClaimOnce(t, ts) })
}

func sampleTicket(id string, opened time.Time) store.Ticket {
	return store.Ticket{ID: id, Node: "n1", Provider: "acme", Contract: "cn-example", Priority: "P1", Category: "hardware",
		ProviderRef: "ACME-42", Summary: "GPU 3 fell off the bus", Opened: opened, OpenedBy: "slack:U1", OpenKey: "k",
		IncidentID: "gpu_lost@20261130T100000.000Z", Thread: "1764496830.000100", Open: true, CreatedAt: opened, UpdatedAt: opened,
		Notices: []store.TicketNotice{{Key: "opened", Kind: "opened", Text: "opened 工单", CreatedAt: opened}}}
}

func testTickets(t *testing.T, s store.TicketStore) {
	_, err := s.GetTicket(ctx(), "T-aaaaaaaa")
	mustIs(t, err, store.ErrNotFound, "GetTicket before create")
	mustIs(t, s.UpdateTicket(ctx(), sampleTicket("T-aaaaaaaa", t0), 1), store.ErrNotFound, "UpdateTicket of a missing ticket")

	a, b, c := sampleTicket("T-aaaaaaaa", t0.Add(2*time.Hour)), sampleTicket("T-bbbbbbbb", t0), sampleTicket("T-cccccccc", t0.Add(time.Hour))
	for _, tk := range []store.Ticket{a, b, c} {
		must(t, s.CreateTicket(ctx(), tk), "CreateTicket "+tk.ID)
	}
	mustIs(t, s.CreateTicket(ctx(), a), store.ErrExists, "CreateTicket twice")

	got, err := s.GetTicket(ctx(), a.ID)
	must(t, err, "GetTicket")
	if got.Version != 1 || got.Node != "n1" || got.Priority != "P1" || got.Category != "hardware" || got.ProviderRef != "ACME-42" ||
		!got.Opened.Equal(a.Opened) || got.Thread != a.Thread || !got.Open || len(got.Notices) != 1 ||
		got.Notices[0].Text != "opened 工单" || !got.Notices[0].SentAt.IsZero() || got.IncidentID != a.IncidentID {
		t.Fatalf("GetTicket round trip:\n got %+v\nwant %+v", got, a)
	}

	// An event appended with the version read; a stale version loses.
	got.Events = append(got.Events, store.TicketEvent{Type: store.EventProviderResponded, At: t0.Add(150 * time.Minute),
		AwaitingCustomer: true, Key: "slack:1:responded", By: "U1", RecordedAt: t0.Add(151 * time.Minute), Late: 90 * time.Second, Target: "response"})
	must(t, s.UpdateTicket(ctx(), got, 1), "UpdateTicket v1")
	mustIs(t, s.UpdateTicket(ctx(), got, 1), store.ErrConflict, "UpdateTicket with a stale version")
	again, err := s.GetTicket(ctx(), a.ID)
	must(t, err, "GetTicket after update")
	if again.Version != 2 || len(again.Events) != 1 {
		t.Fatalf("after update: version %d, %d events; want 2, 1", again.Version, len(again.Events))
	}
	e := again.Events[0]
	if e.Type != store.EventProviderResponded || !e.At.Equal(t0.Add(150*time.Minute)) || !e.AwaitingCustomer || e.Key != "slack:1:responded" ||
		e.Late != 90*time.Second || e.Target != "response" || !e.RecordedAt.Equal(t0.Add(151*time.Minute)) {
		t.Fatalf("event round trip: %+v", e)
	}

	// All, ordered by opening; the open list drops a closed ticket.
	all, err := s.ListTickets(ctx(), false)
	must(t, err, "ListTickets")
	if ids := ticketIDs(all); fmt.Sprint(ids) != "[T-bbbbbbbb T-cccccccc T-aaaaaaaa]" {
		t.Fatalf("ListTickets = %v, want by opening time", ids)
	}
	cc, err := s.GetTicket(ctx(), c.ID)
	must(t, err, "GetTicket c")
	cc.Open = false
	must(t, s.UpdateTicket(ctx(), cc, cc.Version), "close c")
	open, err := s.ListTickets(ctx(), true)
	must(t, err, "ListTickets open")
	if ids := ticketIDs(open); fmt.Sprint(ids) != "[T-bbbbbbbb T-aaaaaaaa]" {
		t.Fatalf("open tickets = %v, want the two still open", ids)
	}
	all, err = s.ListTickets(ctx(), false)
	must(t, err, "ListTickets after close")
	if len(all) != 3 {
		t.Fatalf("a closed ticket must still be listed in all: %v", ticketIDs(all))
	}
	// Reopening puts it back on the open list.
	cc, _ = s.GetTicket(ctx(), c.ID)
	cc.Open = true
	must(t, s.UpdateTicket(ctx(), cc, cc.Version), "reopen c")
	open, _ = s.ListTickets(ctx(), true)
	if len(open) != 3 {
		t.Fatalf("reopened ticket not listed open: %v", ticketIDs(open))
	}
}

func ticketIDs(ts []store.Ticket) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.ID)
	}
	return out
}

// testTicketConcurrent: writers racing to append events to one ticket with
// read-modify-versioned-write all get their event in exactly once.
func testTicketConcurrent(t *testing.T, s store.TicketStore) {
	must(t, s.CreateTicket(ctx(), sampleTicket("T-rrrrrrrr", t0)), "CreateTicket")
	const writers = 8
	var conflicts atomic.Int64
	Parallel(t, writers, func(i int) error {
		for {
			tk, err := s.GetTicket(ctx(), "T-rrrrrrrr")
			if err != nil {
				return err
			}
			prev := tk.Version
			tk.Events = append(tk.Events, store.TicketEvent{Type: store.EventCustomerReplied, At: t0.Add(time.Duration(i) * time.Minute), Key: fmt.Sprint(i)})
			err = s.UpdateTicket(ctx(), tk, prev)
			if errors.Is(err, store.ErrConflict) {
				conflicts.Add(1)
				continue
			}
			return err
		}
	})
	tk, err := s.GetTicket(ctx(), "T-rrrrrrrr")
	must(t, err, "GetTicket")
	seen := map[string]int{}
	for _, e := range tk.Events {
		seen[e.Key]++
	}
	if len(tk.Events) != writers || len(seen) != writers || tk.Version != writers+1 {
		t.Fatalf("after %d racing appends: %d events (%v), version %d; want %d each once, version %d",
			writers, len(tk.Events), seen, tk.Version, writers, writers+1)
	}
	t.Logf("%d conflicts resolved by re-reading", conflicts.Load())
}

func testAPIKeys(t *testing.T, s store.TicketStore) {
	_, err := s.GetAPIKey(ctx(), "zzzzzzzz")
	mustIs(t, err, store.ErrNotFound, "GetAPIKey before create")
	k := store.APIKey{ID: "bbbbbbbb", Name: "ops laptop", Hash: "ab12", Scopes: []string{"read", "tickets"}, CreatedAt: t0}
	must(t, s.CreateAPIKey(ctx(), k), "CreateAPIKey")
	must(t, s.CreateAPIKey(ctx(), store.APIKey{ID: "aaaaaaaa", Name: "ci", Hash: "cd34", CreatedAt: t0}), "CreateAPIKey 2")
	mustIs(t, s.CreateAPIKey(ctx(), k), store.ErrExists, "CreateAPIKey twice")
	got, err := s.GetAPIKey(ctx(), "bbbbbbbb")
	must(t, err, "GetAPIKey")
	if got.Name != "ops laptop" || got.Hash != "ab12" || !got.CreatedAt.Equal(t0) || got.Version != 1 || !got.RevokedAt.IsZero() ||
		!slices.Equal(got.Scopes, []string{"read", "tickets"}) {
		t.Fatalf("GetAPIKey round trip: %+v", got)
	}
	// A key stored before scopes existed reads back with none (not an
	// empty-but-present list a caller could mistake for a choice).
	if legacy, err := s.GetAPIKey(ctx(), "aaaaaaaa"); err != nil || legacy.Scopes != nil {
		t.Fatalf("GetAPIKey of a key without scopes = %+v, %v; want Scopes nil", legacy, err)
	}
	got.RevokedAt = t0.Add(time.Hour)
	must(t, s.UpdateAPIKey(ctx(), got, 1), "UpdateAPIKey")
	mustIs(t, s.UpdateAPIKey(ctx(), got, 1), store.ErrConflict, "UpdateAPIKey stale")
	mustIs(t, s.UpdateAPIKey(ctx(), store.APIKey{ID: "nope0000"}, 1), store.ErrNotFound, "UpdateAPIKey missing")
	got, _ = s.GetAPIKey(ctx(), "bbbbbbbb")
	if got.Version != 2 || !got.RevokedAt.Equal(t0.Add(time.Hour)) || !slices.Equal(got.Scopes, []string{"read", "tickets"}) {
		t.Fatalf("after revoke: %+v", got)
	}
	list, err := s.ListAPIKeys(ctx())
	must(t, err, "ListAPIKeys")
	if len(list) != 2 || list[0].ID != "aaaaaaaa" || list[1].ID != "bbbbbbbb" {
		t.Fatalf("ListAPIKeys = %+v, want aaaaaaaa, bbbbbbbb", list)
	}
}

// testClaimOnce: a key is claimed once until it expires; concurrent claims
// of one key have exactly one winner.
func testClaimOnce(t *testing.T, s store.TicketStore) {
	type clocked interface{ SetClock(func() time.Time) }
	now := time.Now().UTC()
	if c, ok := s.(clocked); ok {
		c.SetClock(func() time.Time { return now })
		defer c.SetClock(func() time.Time { return time.Now().UTC() })
	}
	key := "slack-sig:v0=abc" + string(make([]byte, 300)) // long keys are fine
	must(t, s.ClaimOnce(ctx(), key, now.Add(5*time.Minute)), "first claim")
	mustIs(t, s.ClaimOnce(ctx(), key, now.Add(5*time.Minute)), store.ErrExists, "second claim")
	must(t, s.ClaimOnce(ctx(), "other", now.Add(5*time.Minute)), "another key")
	// An expired claim may be claimed again.
	must(t, s.ClaimOnce(ctx(), "short", now.Add(-time.Second)), "claim that is already expired")
	must(t, s.ClaimOnce(ctx(), "short", now.Add(time.Minute)), "re-claim after expiry")

	var wins atomic.Int64
	Parallel(t, 8, func(int) error {
		err := s.ClaimOnce(ctx(), "race", now.Add(time.Minute))
		if err == nil {
			wins.Add(1)
			return nil
		}
		if errors.Is(err, store.ErrExists) {
			return nil
		}
		return err
	})
	if wins.Load() != 1 {
		t.Fatalf("%d concurrent claims of one key won, want exactly 1", wins.Load())
	}
}
