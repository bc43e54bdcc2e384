package app_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/infra/store/bolt"
)

func TestAPIKeys(t *testing.T) {
	st, err := bolt.Open(filepath.Join(t.TempDir(), "gpusla.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	k, token, err := app.CreateAPIKey(t.Context(), st, "ops laptop", now)
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
	if _, _, err := app.CreateAPIKey(t.Context(), st, " ", now); err == nil {
		t.Fatal("blank name accepted")
	}
}
