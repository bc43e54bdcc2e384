package storetest

import (
	"bytes"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/gpusla/gpusla/infra/store"
)

// testEnrolmentStore is the contract of store.EnrolmentStore: tokens made
// once, uses counted by one conditional write that never passes the limit
// however many take them at once, revocation recorded once, enrolments
// kept per node, and a re-enrolment that replaces a node's secret once.
func testEnrolmentStore(t *testing.T, s store.Store) {
	es, ok := s.(store.EnrolmentStore)
	if !ok {
		t.Fatalf("%T does not implement store.EnrolmentStore", s)
	}
	t.Run("Tokens", func(t *testing.T) { testEnrolTokens(t, es) })
	t.Run("UsesNeverPassTheLimit", func(t *testing.T) { testEnrolUsesRace(t, es) })
	t.Run("Revoke", func(t *testing.T) { testEnrolRevoke(t, es) })
	t.Run("Enrolments", func(t *testing.T) { testEnrolments(t, es) })
	t.Run("Reenrol", func(t *testing.T) { testReenrol(t, s, es) })
}

func sampleToken(id string, maxUses int) store.EnrolToken {
	return store.EnrolToken{ID: id, Name: "rack 7", Hash: "ab12", Provider: "acme", Contract: "cn", OrderedAt: t0,
		GPUModel: "H200", GPUCount: 8, GPUMemoryMiB: 144384, GPUDriver: "580.95", PricePerHour: 148, Currency: "CNY",
		HeartbeatInterval: 30 * time.Second, PushInterval: time.Minute, Grace: 90 * time.Second,
		ExpiresAt: t0.Add(24 * time.Hour), MaxUses: maxUses, CreatedAt: t0, CreatedBy: "cli:ops"}
}

func testEnrolTokens(t *testing.T, s store.EnrolmentStore) {
	_, err := s.GetEnrolToken(ctx(), "t1")
	mustIs(t, err, store.ErrNotFound, "GetEnrolToken before create")
	_, err = s.UseEnrolToken(ctx(), "t1")
	mustIs(t, err, store.ErrNotFound, "UseEnrolToken of an absent token")
	tok := sampleToken("t1", 2)
	must(t, s.CreateEnrolToken(ctx(), tok), "CreateEnrolToken")
	mustIs(t, s.CreateEnrolToken(ctx(), sampleToken("t1", 9)), store.ErrExists, "CreateEnrolToken again")
	must(t, s.CreateEnrolToken(ctx(), sampleToken("t0", 1)), "CreateEnrolToken t0")
	got, err := s.GetEnrolToken(ctx(), "t1")
	must(t, err, "GetEnrolToken")
	if got != tok {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, tok)
	}
	for i := 1; i <= 2; i++ {
		u, err := s.UseEnrolToken(ctx(), "t1")
		must(t, err, "UseEnrolToken")
		if u.Uses != i || u.MaxUses != 2 || u.GPUModel != "H200" {
			t.Fatalf("use %d: token after it %+v", i, u)
		}
	}
	_, err = s.UseEnrolToken(ctx(), "t1")
	mustIs(t, err, store.ErrConflict, "UseEnrolToken past the limit")
	r, err := s.ReturnEnrolTokenUse(ctx(), "t1")
	must(t, err, "ReturnEnrolTokenUse")
	if r.Uses != 1 {
		t.Fatalf("after a use given back: %d uses, want 1", r.Uses)
	}
	if _, err := s.UseEnrolToken(ctx(), "t1"); err != nil {
		t.Fatalf("a use given back can be taken again: %v", err)
	}
	_, err = s.ReturnEnrolTokenUse(ctx(), "t0")
	mustIs(t, err, store.ErrConflict, "ReturnEnrolTokenUse of an unused token")
	_, err = s.ReturnEnrolTokenUse(ctx(), "nope")
	mustIs(t, err, store.ErrNotFound, "ReturnEnrolTokenUse of an absent token")
	list, err := s.ListEnrolTokens(ctx())
	must(t, err, "ListEnrolTokens")
	if len(list) != 2 || list[0].ID != "t0" || list[1].ID != "t1" || list[1].Uses != 2 {
		t.Fatalf("list = %+v", list)
	}
}

// testEnrolUsesRace: 3 × the limit take a use at once; exactly the limit
// succeed, every other gets ErrConflict, and the count says the limit.
func testEnrolUsesRace(t *testing.T, s store.EnrolmentStore) {
	const limit, takers = 10, 30
	must(t, s.CreateEnrolToken(ctx(), sampleToken("race", limit)), "CreateEnrolToken")
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		ok, lost int
		seen     = map[int]bool{}
	)
	for i := 0; i < takers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			u, err := s.UseEnrolToken(ctx(), "race")
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				ok++
				if seen[u.Uses] {
					t.Errorf("two takers were told they took use %d", u.Uses)
				}
				seen[u.Uses] = true
			case errors.Is(err, store.ErrConflict):
				lost++
			default:
				t.Errorf("UseEnrolToken: %v", err)
			}
		}()
	}
	wg.Wait()
	got, err := s.GetEnrolToken(ctx(), "race")
	must(t, err, "GetEnrolToken")
	if ok != limit || lost != takers-limit || got.Uses != limit {
		t.Fatalf("%d took a use, %d refused, stored uses %d; want %d, %d, %d", ok, lost, got.Uses, limit, takers-limit, limit)
	}
}

func testEnrolRevoke(t *testing.T, s store.EnrolmentStore) {
	must(t, s.CreateEnrolToken(ctx(), sampleToken("rv", 5)), "CreateEnrolToken")
	_, err := s.UseEnrolToken(ctx(), "rv")
	must(t, err, "UseEnrolToken")
	r, err := s.RevokeEnrolToken(ctx(), "rv", t0.Add(time.Hour), "cli:alice")
	must(t, err, "RevokeEnrolToken")
	if !r.RevokedAt.Equal(t0.Add(time.Hour)) || r.RevokedBy != "cli:alice" || r.Uses != 1 {
		t.Fatalf("revoked token %+v", r)
	}
	again, err := s.RevokeEnrolToken(ctx(), "rv", t0.Add(2*time.Hour), "cli:bob")
	must(t, err, "RevokeEnrolToken again")
	if !again.RevokedAt.Equal(t0.Add(time.Hour)) || again.RevokedBy != "cli:alice" {
		t.Fatalf("a second revocation changed the first record: %+v", again)
	}
	_, err = s.UseEnrolToken(ctx(), "rv")
	mustIs(t, err, store.ErrConflict, "UseEnrolToken of a revoked token")
	_, err = s.RevokeEnrolToken(ctx(), "nope", t0, "x")
	mustIs(t, err, store.ErrNotFound, "RevokeEnrolToken of an absent token")
}

func testEnrolments(t *testing.T, s store.EnrolmentStore) {
	for i, n := range []string{"gpu-b", "gpu-a", "gpu-b"} {
		e := store.Enrolment{Node: n, Token: "t1", At: t0.Add(time.Duration(3-i) * time.Minute), By: "cli:ops",
			Remote: "10.0.0.7:51000", Hostname: "host-" + n, ProbeVersion: "v1.2.3", Reenrol: i == 2}
		must(t, s.PutEnrolment(ctx(), e), fmt.Sprintf("PutEnrolment %d", i))
		mustIs(t, s.PutEnrolment(ctx(), e), store.ErrExists, "PutEnrolment again")
	}
	all, err := s.ListEnrolments(ctx(), "")
	must(t, err, "ListEnrolments")
	if len(all) != 3 || all[0].Node != "gpu-a" || all[1].Node != "gpu-b" || !all[1].Reenrol || all[2].Reenrol ||
		!all[1].At.Before(all[2].At) || all[0].Hostname != "host-gpu-a" || all[0].By != "cli:ops" || all[0].Remote != "10.0.0.7:51000" {
		t.Fatalf("all enrolments: %+v", all)
	}
	one, err := s.ListEnrolments(ctx(), "gpu-a")
	must(t, err, "ListEnrolments gpu-a")
	if len(one) != 1 || one[0].Node != "gpu-a" {
		t.Fatalf("gpu-a's enrolments: %+v", one)
	}
	none, err := s.ListEnrolments(ctx(), "gpu")
	must(t, err, "ListEnrolments of a prefix")
	if len(none) != 0 {
		t.Fatalf("a node id that is another's prefix lists its enrolments: %+v", none)
	}
}

func testReenrol(t *testing.T, st store.Store, s store.EnrolmentStore) {
	n := store.Node{ID: "re-1", Provider: "acme", Contract: "cn", OrderedAt: t0, GPUModel: "H200", GPUCount: 8,
		HeartbeatInterval: 30 * time.Second, PushInterval: time.Minute, Grace: 90 * time.Second,
		SealedSecret: []byte("old-sealed"), CreatedAt: t0, RegisteredBy: "enrol:t1 (cli:ops)", EnrolToken: "t1", EnrolKeyHash: "k1"}
	mustIs(t, s.ReenrolNode(ctx(), n, []byte("old-sealed")), store.ErrNotFound, "ReenrolNode of an absent node")
	must(t, st.CreateNode(ctx(), n), "CreateNode")
	got, err := st.GetNode(ctx(), "re-1")
	must(t, err, "GetNode")
	if got.RegisteredBy != n.RegisteredBy || got.EnrolToken != "t1" || got.EnrolKeyHash != "k1" {
		t.Fatalf("enrolment fields lost: %+v", got)
	}
	next := n
	next.SealedSecret, next.EnrolToken, next.EnrolKeyHash = []byte("new-sealed"), "t2", "k2"
	must(t, s.ReenrolNode(ctx(), next, []byte("old-sealed")), "ReenrolNode")
	other := n
	other.SealedSecret = []byte("other-sealed")
	mustIs(t, s.ReenrolNode(ctx(), other, []byte("old-sealed")), store.ErrConflict, "a second re-enrolment from the same read")
	got, err = st.GetNode(ctx(), "re-1")
	must(t, err, "GetNode after")
	if !bytes.Equal(got.SealedSecret, []byte("new-sealed")) || got.EnrolToken != "t2" || got.EnrolKeyHash != "k2" || got.GPUModel != "H200" {
		t.Fatalf("after re-enrolment: %+v", got)
	}
}
