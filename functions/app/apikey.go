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
	"strings"
	"time"
)

// APIKey is a credential for the ticket API. Only a hash of its secret is
// stored: the token is shown once, at creation, and a copy of the store does
// not let anyone call the API.
type APIKey struct {
	ID   string `json:"id"`   // public part of the token, e.g. "k7q2m4xa"
	Name string `json:"name"` // who or what uses it
	// Hash is hex SHA-256 of the secret part. The secret is 256 random bits,
	// so a fast hash is enough: there is nothing to guess from it.
	Hash      string    `json:"hash"`
	CreatedAt time.Time `json:"created_at"`
	RevokedAt time.Time `json:"revoked_at,omitzero"`
	LastUsed  time.Time `json:"last_used,omitzero"`
	Version   int64     `json:"version"`
}

// String never shows the hash.
func (k APIKey) String() string { return fmt.Sprintf("api key %s (%s)", k.ID, k.Name) }

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
func CreateAPIKey(ctx context.Context, st TicketStore, name string, now time.Time) (APIKey, string, error) {
	name = strings.TrimSpace(name)
	if name == "" || len(name) > 100 {
		return APIKey{}, "", errors.New("api key name: must be 1 to 100 characters")
	}
	for attempt := 0; attempt < 4; attempt++ {
		id, err := randomB32(5)
		if err != nil {
			return APIKey{}, "", err
		}
		secret, err := randomB32(32)
		if err != nil {
			return APIKey{}, "", err
		}
		k := APIKey{ID: id, Name: name, Hash: hashSecret(secret), CreatedAt: now.UTC(), Version: 1}
		err = st.CreateAPIKey(ctx, k)
		if errors.Is(err, ErrExists) {
			continue // 40 random bits collided: draw again
		}
		if err != nil {
			return APIKey{}, "", fmt.Errorf("create api key: %w", err)
		}
		return k, APIKeyPrefix + id + "_" + secret, nil
	}
	return APIKey{}, "", errors.New("create api key: id collisions four times in a row")
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
func AuthenticateAPIKey(ctx context.Context, st TicketStore, token string) (APIKey, error) {
	id, secret, err := ParseAPIKey(token)
	if err != nil {
		return APIKey{}, fmt.Errorf("%w: malformed token", ErrBadKey)
	}
	k, err := st.GetAPIKey(ctx, id)
	if errors.Is(err, ErrNotFound) {
		return APIKey{}, fmt.Errorf("%w: unknown key id %s", ErrBadKey, id)
	}
	if err != nil {
		return APIKey{}, fmt.Errorf("authenticate: %w", err)
	}
	if subtle.ConstantTimeCompare([]byte(hashSecret(secret)), []byte(k.Hash)) != 1 {
		return APIKey{}, fmt.Errorf("%w: wrong secret for key %s", ErrBadKey, id)
	}
	if !k.RevokedAt.IsZero() {
		return APIKey{}, fmt.Errorf("%w: key %s was revoked at %s", ErrBadKey, id, k.RevokedAt.Format(time.RFC3339))
	}
	return k, nil
}

// RevokeAPIKey marks a key revoked (idempotent).
func RevokeAPIKey(ctx context.Context, st TicketStore, id string, now time.Time) (APIKey, error) {
	for attempt := 0; attempt < maxRetries; attempt++ {
		k, err := st.GetAPIKey(ctx, id)
		if err != nil {
			return APIKey{}, fmt.Errorf("revoke api key %s: %w", id, err)
		}
		if !k.RevokedAt.IsZero() {
			return k, nil
		}
		prev := k.Version
		k.RevokedAt = now.UTC()
		err = st.UpdateAPIKey(ctx, k, prev)
		if errors.Is(err, ErrConflict) {
			continue
		}
		if err != nil {
			return APIKey{}, fmt.Errorf("revoke api key %s: %w", id, err)
		}
		k.Version = prev + 1
		return k, nil
	}
	return APIKey{}, errTooContended("revoke api key " + id)
}
