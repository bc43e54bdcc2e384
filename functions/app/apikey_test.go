package app_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/infra/store/bolt"
)

func TestAPIKeys(t *testing.T) {
	st, err := bolt.Open(filepath.Join(t.TempDir(), "gpusla.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	k, token, err := app.CreateAPIKey(t.Context(), st, "ops laptop", []string{"tickets"}, now)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(token, "gsk_"+k.ID+"_") || strings.Contains(k.Hash, token[len("gsk_"+k.ID+"_"):]) {
		t.Fatalf("token %q / stored %+v", token, k)
	}
	stored, _ := st.GetAPIKey(t.Context(), k.ID)
	if strings.Contains(stored.Hash, token[13:]) || len(stored.Hash) != 64 {
		t.Fatalf("the store must hold only the secret's hash, got %q", stored.Hash)
	}
	if got, err := app.AuthenticateAPIKey(t.Context(), st, token); err != nil || got.ID != k.ID {
		t.Fatalf("good token: %v", err)
	}
	flip := []byte(token)
	flip[len(flip)-1] ^= 1
	for name, bad := range map[string]string{
		"empty": "", "no prefix": token[4:], "wrong secret": string(flip), "unknown id": "gsk_aaaaaaaa_" + token[13:],
		"truncated": token[:len(token)-1], "bearer word": "Bearer " + token,
	} {
		if _, err := app.AuthenticateAPIKey(t.Context(), st, bad); !errors.Is(err, app.ErrBadKey) {
			t.Errorf("%s: %v, want ErrBadKey", name, err)
		}
	}
	if _, err := app.RevokeAPIKey(t.Context(), st, k.ID, now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := app.AuthenticateAPIKey(t.Context(), st, token); !errors.Is(err, app.ErrBadKey) || !strings.Contains(err.Error(), "revoked") {
		t.Fatalf("revoked key: %v", err)
	}
	if _, _, err := app.CreateAPIKey(t.Context(), st, " ", []string{"read"}, now); err == nil {
		t.Fatal("blank name accepted")
	}
	for name, scopes := range map[string][]string{"no scope": nil, "unknown scope": {"read", "root"}} {
		if _, _, err := app.CreateAPIKey(t.Context(), st, "x", scopes, now); err == nil {
			t.Errorf("%s: key created", name)
		}
	}
}

// Scopes: a key may do what its scopes say (admin is everything); a key
// stored before scopes existed keeps the ticket API and nothing more; a
// refusal is EForbidden naming the scope.
func TestAPIKeyScopes(t *testing.T) {
	for _, c := range []struct {
		scopes []string
		allow  map[app.Scope]bool
	}{
		{nil, map[app.Scope]bool{app.ScopeTickets: true}}, // legacy key: today's meaning
		{[]string{"read"}, map[app.Scope]bool{app.ScopeRead: true}},
		{[]string{"read", "tickets"}, map[app.Scope]bool{app.ScopeRead: true, app.ScopeTickets: true}},
		{[]string{"admin"}, map[app.Scope]bool{app.ScopeRead: true, app.ScopeTickets: true, app.ScopeClaims: true, app.ScopeAdmin: true}},
		{[]string{"claims"}, map[app.Scope]bool{app.ScopeClaims: true}},
	} {
		k := store.APIKey{ID: "k1", Scopes: c.scopes}
		for _, sc := range app.Scopes {
			err := app.Authorize(k, sc)
			if c.allow[sc] != (err == nil) {
				t.Errorf("key with scopes %v, scope %s: %v, want allowed %v", c.scopes, sc, err, c.allow[sc])
			}
			if err != nil && (app.ErrorCode(err) != app.EForbidden || !errors.Is(err, app.ErrMissingScope) || !strings.Contains(err.Error(), string(sc))) {
				t.Errorf("refusal %v: want EForbidden naming %q", err, sc)
			}
		}
	}
	for in, want := range map[string]string{"read": "read", "tickets, read,read": "read,tickets", "admin": "admin"} {
		got, err := app.ParseScopes(in)
		if err != nil || strings.Join(got, ",") != want {
			t.Errorf("ParseScopes(%q) = %v, %v; want %s", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "read,", "write", "READ"} {
		if _, err := app.ParseScopes(bad); err == nil {
			t.Errorf("ParseScopes(%q) accepted", bad)
		}
	}
}
