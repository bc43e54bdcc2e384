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
	"slices"
	"strings"
	"time"

	"github.com/gpusla/gpusla/infra/store"
)

// A Scope is what an API key may do.
type Scope string

// The scopes of an API key.
const (
	// ScopeRead: the fleet's read endpoints (GET /v1/nodes, /v1/incidents).
	ScopeRead Scope = "read"
	// ScopeTickets: the ticket API (/v1/tickets…, reads and writes).
	ScopeTickets Scope = "tickets"
	// ScopeClaims: the claims ledger (/v1/claims…, reads and writes): what
	// a finance team needs and nothing of the fleet's administration.
	ScopeClaims Scope = "claims"
	// ScopeAdmin: everything; it implies every other scope.
	ScopeAdmin Scope = "admin"
)

// Scopes are every scope, in the order they are shown.
var Scopes = []Scope{ScopeRead, ScopeTickets, ScopeClaims, ScopeAdmin}

// legacyScopes are what a key stored before scopes existed may do: the
// ticket API, which is all such a key could reach then. Reading them so
// keeps every existing client working and gives no old key a new power
// (such as reading the fleet); re-create a key to widen it.
var legacyScopes = []Scope{ScopeTickets}

// ParseScopes reads a comma-separated list ("read,tickets"), refusing an
// unknown or empty one by name; the result is sorted and without repeats.
func ParseScopes(list string) ([]string, error) {
	var out []string
	for _, f := range strings.Split(list, ",") {
		f = strings.TrimSpace(f)
		if !slices.Contains(Scopes, Scope(f)) {
			return nil, fmt.Errorf("scope %q: not one of read, tickets, claims, admin", f)
		}
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	slices.Sort(out)
	return out, nil
}

// KeyScopes are the scopes k has, legacy keys included.
func KeyScopes(k store.APIKey) []Scope {
	if k.Scopes == nil {
		return legacyScopes
	}
	out := make([]Scope, 0, len(k.Scopes))
	for _, s := range k.Scopes {
		out = append(out, Scope(s))
	}
	return out
}

// Authorize says whether k may act in scope: nil, or an EForbidden *Error
// naming the scope that is missing (the key itself is good, so the caller
// may be told which scope to ask for).
func Authorize(k store.APIKey, scope Scope) error {
	have := KeyScopes(k)
	if slices.Contains(have, scope) || slices.Contains(have, ScopeAdmin) {
		return nil
	}
	return &Error{Kind: EForbidden, Field: "scope", Msg: fmt.Sprintf("API key %s lacks the %q scope (create one with `gpusla apikey create --scope %s`)", k.ID, scope, scope), Err: ErrMissingScope}
}

// ErrMissingScope is the cause of every scope refusal (for counting them).
var ErrMissingScope = errors.New("API key lacks the scope")

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

// CreateAPIKey makes a new key named name with scopes (ParseScopes'
// result; at least one) and returns it with its token ("gsk_<id>_<secret>"),
// which is not stored anywhere.
func CreateAPIKey(ctx context.Context, st store.TicketStore, name string, scopes []string, now time.Time) (store.APIKey, string, error) {
	name = strings.TrimSpace(name)
	if name == "" || len(name) > 100 {
		return store.APIKey{}, "", errors.New("api key name: must be 1 to 100 characters")
	}
	if len(scopes) == 0 {
		return store.APIKey{}, "", errors.New("api key scopes: give at least one of read, tickets, claims, admin")
	}
	for _, sc := range scopes {
		if !slices.Contains(Scopes, Scope(sc)) {
			return store.APIKey{}, "", fmt.Errorf("api key scope %q: not one of read, tickets, claims, admin", sc)
		}
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
		k := store.APIKey{ID: id, Name: name, Hash: hashSecret(secret), Scopes: slices.Clone(scopes), CreatedAt: now.UTC(), Version: 1}
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
	what := "revoke api key " + id
	key := versioned[store.APIKey]{
		read: func(ctx context.Context, _ int) (store.APIKey, error) {
			k, err := st.GetAPIKey(ctx, id)
			if err != nil {
				return k, fmt.Errorf("%s: %w", what, err)
			}
			return k, nil
		},
		write: func(ctx context.Context, k store.APIKey) (store.APIKey, error) {
			if err := st.UpdateAPIKey(ctx, k, k.Version); errors.Is(err, store.ErrConflict) {
				return k, err
			} else if err != nil {
				return k, fmt.Errorf("%s: %w", what, err)
			}
			k.Version++
			return k, nil
		},
	}
	k, err := update(ctx, what, key, func(k *store.APIKey) error {
		if !k.RevokedAt.IsZero() {
			return errUnchanged
		}
		k.RevokedAt = now.UTC()
		return nil
	})
	if err != nil {
		return store.APIKey{}, err
	}
	return k, nil
}

// Authenticate checks a bearer token and that its key has scope: the key,
// or an error wrapping ErrBadKey (the caller answers 401 and says no more)
// or an EForbidden *Error (403: the key is good but may not do this; the
// key is returned with it, for the log).
func (s *Service) Authenticate(ctx context.Context, token string, scope Scope) (store.APIKey, error) {
	ts, ok := s.store.(store.TicketStore)
	if !ok {
		return store.APIKey{}, fmt.Errorf("%w: the store %T keeps no API keys", ErrBadKey, s.store)
	}
	k, err := AuthenticateAPIKey(ctx, ts, token)
	if err != nil {
		return store.APIKey{}, err
	}
	// The key comes back with a scope refusal, for the log.
	return k, Authorize(k, scope)
}
