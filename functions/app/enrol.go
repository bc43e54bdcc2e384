package app

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/probe/wire"
	"github.com/gpusla/gpusla/sla/events"
)

// Enrolment: a renter makes a token that carries one contract and the
// order (GPU model, count, memory, driver, price); a probe started with it
// registers itself as a node, proposing only its id, and receives its own
// secret once. What was ordered comes from the token, never from the node.
//
// A token is "gpe_<id>_<secret>": the id is its public part, only a hash of
// the secret is stored, and it is shown once. It expires, has a use limit
// counted by one conditional write per enrolment (store.EnrolmentStore), and
// can be revoked. A token never takes an existing node's id: re-enrolling a
// node (its disk was wiped and its secret lost) is the renter's explicit act,
// a one-use token made for that node alone (NewEnrolToken.Reenrol).

// EnrolTokenPrefix starts every enrolment token, so a leaked one is
// recognisable.
const EnrolTokenPrefix = "gpe_"

// Bounds of a token.
const (
	// MaxEnrolUses bounds one token's use limit: a fleet of this many
	// nodes per token is far beyond one order.
	MaxEnrolUses = 10000
	// MaxEnrolLifetime bounds how long a token is good for: a token lives
	// while a fleet is brought up, not for the rental.
	MaxEnrolLifetime = 90 * 24 * time.Hour
	// DefaultEnrolLifetime is a token's lifetime when none is given.
	DefaultEnrolLifetime = 24 * time.Hour
	// EnrolKeyMin and EnrolKeyMax bound the key a probe enrols with (hex
	// of at least 16 random bytes).
	EnrolKeyMin, EnrolKeyMax = 32, 128
	// MaxEnrolText bounds the host name and version a probe sends.
	MaxEnrolText = 256
)

// ErrBadEnrolToken is any failure to recognise a token (malformed,
// unknown id, wrong secret): the caller answers 401 and says no more.
var ErrBadEnrolToken = errors.New("invalid enrolment token")

// NewEnrolToken is what `gpusla token create` asks for.
type NewEnrolToken struct {
	Name string
	// Order is the node every enrolment registers: provider, contract,
	// order time, hardware, price and schedule (its ID is unused).
	Order NewNode
	// ExpiresAt is when the token stops working (default: a day from now).
	ExpiresAt time.Time
	// MaxUses is how many nodes may enrol with it (default 1).
	MaxUses int
	// By is who makes it (the API key, "cli:" and the OS user).
	By string
	// Reenrol names an existing node: the token is good for that node
	// alone, once, and replaces its secret; the order is the node's.
	Reenrol string
}

func (s *Service) enrolStore() (store.EnrolmentStore, error) {
	es, ok := s.store.(store.EnrolmentStore)
	if !ok {
		return nil, fmt.Errorf("enrolment: the store %T keeps no enrolment tokens (no EnrolmentStore)", s.store)
	}
	return es, nil
}

// CreateEnrolToken makes a token and returns it with its text, which is
// not stored anywhere.
func (s *Service) CreateEnrolToken(ctx context.Context, in NewEnrolToken) (store.EnrolToken, string, error) {
	es, err := s.enrolStore()
	if err != nil {
		return store.EnrolToken{}, "", err
	}
	now := s.Now()
	if in.Reenrol != "" {
		if in, err = s.reenrolOrder(ctx, in); err != nil {
			return store.EnrolToken{}, "", err
		}
	}
	if err := s.checkTokenRequest(&in, now); err != nil {
		return store.EnrolToken{}, "", err
	}
	o := in.Order
	for attempt := 0; attempt < 4; attempt++ {
		id, err := randomB32(5)
		if err != nil {
			return store.EnrolToken{}, "", err
		}
		secret, err := randomB32(32)
		if err != nil {
			return store.EnrolToken{}, "", err
		}
		t := store.EnrolToken{ID: id, Name: in.Name, Hash: hashSecret(secret), Provider: o.Provider, Contract: o.Contract,
			OrderedAt: o.OrderedAt.UTC(), GPUModel: o.GPUModel, GPUCount: o.GPUCount, GPUMemoryMiB: o.GPUMemoryMiB,
			GPUDriver: o.GPUDriver, PricePerHour: o.PricePerHour, Currency: o.Currency, HeartbeatInterval: o.HeartbeatInterval, PushInterval: o.PushInterval,
			Grace: o.Grace, Node: in.Reenrol, ExpiresAt: in.ExpiresAt.UTC(), MaxUses: in.MaxUses, CreatedAt: now, CreatedBy: in.By}
		err = es.CreateEnrolToken(ctx, t)
		if errors.Is(err, store.ErrExists) {
			continue // 40 random bits collided: draw again
		}
		if err != nil {
			return store.EnrolToken{}, "", fmt.Errorf("create enrolment token: %w", err)
		}
		s.log.Info("enrolment token created", "token", id, "contract", t.Contract, "max_uses", t.MaxUses, "expires_at", t.ExpiresAt,
			"reenrol", t.Node, "by", in.By)
		return t, EnrolTokenPrefix + id + "_" + secret, nil
	}
	return store.EnrolToken{}, "", errors.New("create enrolment token: id collisions four times in a row")
}

// reenrolOrder makes in a re-enrolment of an existing node: its order is
// the node's, and it is good once.
func (s *Service) reenrolOrder(ctx context.Context, in NewEnrolToken) (NewEnrolToken, error) {
	n, err := s.store.GetNode(ctx, in.Reenrol)
	if errors.Is(err, store.ErrNotFound) {
		return in, Errorf(ENotFound, "node", "%q is not registered: a re-enrolment is for an existing node", in.Reenrol)
	}
	if err != nil {
		return in, err
	}
	if !n.ReleasedAt.IsZero() {
		return in, Errorf(EConflict, "node", "%s was released at %s: a released node is not enrolled again", n.ID, n.ReleasedAt.Format(time.RFC3339))
	}
	if in.MaxUses > 1 {
		return in, Errorf(EInvalid, "uses", "a re-enrolment token is good once, not %d times", in.MaxUses)
	}
	in.MaxUses = 1
	in.Order = NewNode{ID: n.ID, Provider: n.Provider, Contract: n.Contract, OrderedAt: n.OrderedAt, GPUModel: n.GPUModel,
		GPUCount: n.GPUCount, GPUMemoryMiB: n.GPUMemoryMiB, GPUDriver: n.GPUDriver, PricePerHour: n.PricePerHour, Currency: n.Currency,
		HeartbeatInterval: n.HeartbeatInterval, PushInterval: n.PushInterval, Grace: n.Grace}
	return in, nil
}

// checkTokenRequest fills defaults and checks every field, naming the
// wrong one: the order as `node add` checks it, a contract the loaded
// terms define, a lifetime and a use limit within bounds.
func (s *Service) checkTokenRequest(in *NewEnrolToken, now time.Time) error {
	in.Name = strings.TrimSpace(in.Name)
	if len(in.Name) > 100 {
		return Errorf(EInvalid, "name", "longer than 100 characters")
	}
	if in.Order.OrderedAt.IsZero() {
		in.Order.OrderedAt = now
	}
	// The order is checked as a node's; the id is each enrolling node's.
	o := in.Order
	o.ID = "order"
	if err := o.Validate(); err != nil {
		return err
	}
	o.ID = in.Order.ID
	in.Order = o
	if in.Order.GPUCount < 1 || in.Order.GPUModel == "" {
		return Errorf(EInvalid, "gpu_model", "an enrolment token carries the order: the GPU model and a count of 1 or more (got %q, %d)",
			in.Order.GPUModel, in.Order.GPUCount)
	}
	if book := s.TermsBook(); len(book) > 0 {
		if _, ok := book[in.Order.Contract]; !ok {
			return Errorf(EInvalid, "contract", "%q is not in the loaded terms; known: %s", in.Order.Contract,
				strings.Join(slices.Sorted(maps.Keys(book)), ", "))
		}
	}
	if in.ExpiresAt.IsZero() {
		in.ExpiresAt = now.Add(DefaultEnrolLifetime)
	}
	switch {
	case !in.ExpiresAt.After(now):
		return Errorf(EInvalid, "expires", "%s is not in the future", in.ExpiresAt.Format(time.RFC3339))
	case in.ExpiresAt.Sub(now) > MaxEnrolLifetime:
		return Errorf(EInvalid, "expires", "%s is more than %s ahead: a token lives while a fleet is brought up", in.ExpiresAt.Format(time.RFC3339), MaxEnrolLifetime)
	}
	if in.MaxUses == 0 {
		in.MaxUses = 1
	}
	if in.MaxUses < 1 || in.MaxUses > MaxEnrolUses {
		return Errorf(EInvalid, "uses", "%d is not between 1 and %d", in.MaxUses, MaxEnrolUses)
	}
	return nil
}

// ListEnrolTokens returns every token, by id.
func (s *Service) ListEnrolTokens(ctx context.Context) ([]store.EnrolToken, error) {
	es, err := s.enrolStore()
	if err != nil {
		return nil, err
	}
	return es.ListEnrolTokens(ctx)
}

// RevokeEnrolToken stops a token from enrolling anything more; nodes it
// enrolled keep their secrets. Revoking again keeps the first record.
func (s *Service) RevokeEnrolToken(ctx context.Context, id, by string) (store.EnrolToken, error) {
	es, err := s.enrolStore()
	if err != nil {
		return store.EnrolToken{}, err
	}
	t, err := es.RevokeEnrolToken(ctx, id, s.Now(), by)
	if errors.Is(err, store.ErrNotFound) {
		return t, Errorf(ENotFound, "token", "no enrolment token %q", id)
	}
	if err == nil {
		s.log.Info("enrolment token revoked", "token", id, "by", by)
	}
	return t, err
}

// ParseEnrolToken splits a token into id and secret.
func ParseEnrolToken(token string) (id, secret string, err error) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(token), EnrolTokenPrefix)
	if !ok {
		return "", "", ErrBadEnrolToken
	}
	id, secret, ok = strings.Cut(rest, "_")
	if !ok || len(id) != 8 || len(secret) != 52 {
		return "", "", ErrBadEnrolToken
	}
	return id, secret, nil
}

// newNodeSecret draws a node secret: the hex form of 32 random bytes, the
// bytes the probe keys its HMAC with.
func newNodeSecret() ([]byte, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	return []byte(hex.EncodeToString(b)), nil
}

// tokenMatches checks a token's secret against its stored hash in
// constant time.
func tokenMatches(t store.EnrolToken, secret string) bool {
	return subtle.ConstantTimeCompare([]byte(hashSecret(secret)), []byte(t.Hash)) == 1
}

// validEnrolNode checks a proposed node id as a node id.
func validEnrolNode(id string) error {
	if !wire.ValidNodeID(id) {
		return Errorf(EInvalid, "node", "%q is not a node id (letters, digits, '.', '_', '-'; 1 to 64)", id)
	}
	return nil
}

// Enrolments returns the record of every enrolment of node ("" every
// node), by node and time.
func (s *Service) Enrolments(ctx context.Context, node string) ([]store.Enrolment, error) {
	es, err := s.enrolStore()
	if err != nil {
		return nil, err
	}
	return es.ListEnrolments(ctx, node)
}

// EnrolmentEvent is an enrolment as the event log records it: who let the
// node in (the token's maker), when, with which token, and what the probe
// said of itself.
func EnrolmentEvent(e store.Enrolment) events.Event {
	var what []string
	if e.Reenrol {
		what = append(what, "re-enrolment (the node's secret replaced)")
	}
	for _, f := range []struct{ k, v string }{{"host", e.Hostname}, {"probe", e.ProbeVersion}, {"from", e.Remote}} {
		if f.v != "" {
			what = append(what, f.k+" "+f.v)
		}
	}
	at := e.At.UTC()
	return events.Event{Type: events.TypeNodeEnrolled, ID: "enrol-" + e.Node + "-" + at.Format("20060102T150405.000000000Z"), Node: e.Node,
		At: at, RecordedAt: at, RecordedBy: e.By, Token: e.Token, Summary: strings.Join(what, "; ")}
}

// exportEnrolments writes the node's enrolments made before to: the
// record stands for the node's whole rental, so every one is kept.
func exportEnrolments(ctx context.Context, st store.Store, n store.Node, to time.Time, out func(*events.Event) error) error {
	es, ok := st.(store.EnrolmentStore)
	if !ok || n.EnrolToken == "" {
		return nil // registered with node add: no enrolment to record
	}
	list, err := es.ListEnrolments(ctx, n.ID)
	if err != nil {
		return err
	}
	for _, e := range list {
		if !e.At.Before(to) {
			continue
		}
		ev := EnrolmentEvent(e)
		if err := out(&ev); err != nil {
			return err
		}
	}
	return nil
}
