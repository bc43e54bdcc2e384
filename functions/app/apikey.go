package app

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/gpusla/gpusla/infra/store"
	"strings"
	"time"
)

// APIKeyPrefix starts every token, so a leaked one is recognisable (and
// secret scanners can be told about it).
const APIKeyPrefix = "gsk_"

// ErrBadKey is any failure to authenticate a token; callers answer 401 and
// never say which part was wrong.
var ErrBadKey = errors.New("invalid API key")

var lowerB32 = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

func randomB32(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return lowerB32.EncodeToString(b), nil
}

func hashSecret(secret string) string {
	h := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(h[:])
}

// CreateAPIKey makes a new key named name and returns it with its token
// ("gsk_<id>_<secret>"), which is not stored anywhere.
func CreateAPIKey(ctx context.Context, st store.TicketStore, name string, now time.Time) (store.APIKey, string, error) {
	name = strings.TrimSpace(name)
	if name == "" || len(name) > 100 {
		return store.APIKey{}, "", errors.New("api key name: must be 1 to 100 characters")
	}
	for attempt := 0; attempt < 4; attempt++ {
		id, err := randomB32(5)
		if err != nil {
			return store.APIKey{}, "", err
		}
		secret, err := randomB32(32)
		if err != nil {
			return store.APIKey{}, "", err
		}
		k := store.APIKey{ID: id, Name: name, Hash: hashSecret(secret), CreatedAt: now.UTC(), Version: 1}
		err = st.CreateAPIKey(ctx, k)
		if errors.Is(err, store.ErrExists) {
			continue // 40 random bits collided: draw again
		}
		if err != nil {
			return store.APIKey{}, "", fmt.Errorf("create api key: %w", err)
		}
		return k, APIKeyPrefix + id + "_" + secret, nil
	}
	return store.APIKey{}, "", errors.New("create api key: id collisions four times in a row")
}

// ParseAPIKey splits a token into id and secret.
func ParseAPIKey(token string) (id, secret string, err error) {
	rest, ok := strings.CutPrefix(token, APIKeyPrefix)
	if !ok {
		return "", "", ErrBadKey
	}
	id, secret, ok = strings.Cut(rest, "_")
	if !ok || len(id) != 8 || len(secret) != 52 {
		return "", "", ErrBadKey
	}
	return id, secret, nil
}

// AuthenticateAPIKey checks a token against the stored hash (in constant
// time) and that the key is not revoked. Every failure is ErrBadKey, with
// the reason wrapped for the log only.
func AuthenticateAPIKey(ctx context.Context, st store.TicketStore, token string) (store.APIKey, error) {
	id, secret, err := ParseAPIKey(token)
	if err != nil {
		return store.APIKey{}, fmt.Errorf("%w: malformed token", ErrBadKey)
	}
	k, err := st.GetAPIKey(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return store.APIKey{}, fmt.Errorf("%w: unknown key id %s", ErrBadKey, id)
	}
	if err != nil {
		return store.APIKey{}, fmt.Errorf("authenticate: %w", err)
	}
	if subtle.ConstantTimeCompare([]byte(hashSecret(secret)), []byte(k.Hash)) != 1 {
		return store.APIKey{}, fmt.Errorf("%w: wrong secret for key %s", ErrBadKey, id)
	}
	if !k.RevokedAt.IsZero() {
		return store.APIKey{}, fmt.Errorf("%w: key %s was revoked at %s", ErrBadKey, id, k.RevokedAt.Format(time.RFC3339))
	}
	return k, nil
}

// RevokeAPIKey marks a key revoked (idempotent).
func RevokeAPIKey(ctx context.Context, st store.TicketStore, id string, now time.Time) (store.APIKey, error) {
	for attempt := 0; attempt < maxRetries; attempt++ {
		k, err := st.GetAPIKey(ctx, id)
		if err != nil {
			return store.APIKey{}, fmt.Errorf("revoke api key %s: %w", id, err)
		}
		if !k.RevokedAt.IsZero() {
			return k, nil
		}
		prev := k.Version
		k.RevokedAt = now.UTC()
		err = st.UpdateAPIKey(ctx, k, prev)
		if errors.Is(err, store.ErrConflict) {
			continue
		}
		if err != nil {
			return store.APIKey{}, fmt.Errorf("revoke api key %s: %w", id, err)
		}
		k.Version = prev + 1
		return k, nil
	}
	return store.APIKey{}, errTooContended("revoke api key " + id)
}
