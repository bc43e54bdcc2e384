package app

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gpusla/gpusla/infra/store"
)

// EnrolRequest is a probe enrolling: the token, the node id it proposes
// (its host or Kubernetes node name, or one it was given), the key it
// enrols with (random, kept on the node until it has its secret, so that
// a probe whose answer was lost asks again and gets the same node back),
// and what it says of itself, kept in the record.
type EnrolRequest struct {
	Token        string
	Node         string
	Key          string
	Hostname     string
	ProbeVersion string
	Remote       string
}

// Enrolled is the answer: the node as registered, its secret (this once,
// or again to the same key), and whether it was a re-enrolment.
type Enrolled struct {
	Node    store.Node
	Secret  []byte
	Reenrol bool
}

// Enrol registers the node a probe proposes under the token's order and
// returns its secret. In order: the token (401 for anything that does not
// check out, before anything else is read), its expiry and revocation
// (403), then the request's fields, a retry of the same enrolment (same
// token and key, the node not heard from yet: the same node and secret, no
// use taken), the token's use limit (a use taken by one conditional
// write), the node created put-if-absent (a taken id gives the use back
// and is refused), and the enrolment recorded.
func (s *Service) Enrol(ctx context.Context, r EnrolRequest) (Enrolled, error) {
	es, err := s.enrolStore()
	if err != nil {
		return Enrolled{}, err
	}
	tok, err := s.enrolToken(ctx, es, r.Token)
	if err != nil {
		return Enrolled{}, err
	}
	now := s.Now()
	// A retry is answered with the node's secret, so it is held to the
	// token's expiry and revocation like a first enrolment: a token that
	// leaked after it expired (or was revoked) yields no secret, whatever
	// key comes with it.
	if err := tokenLive(tok, now); err != nil {
		return Enrolled{}, err
	}
	if err := checkEnrolFields(&r, tok); err != nil {
		return Enrolled{}, err
	}
	keyHash := hashSecret(r.Key)
	if got, ok, err := s.enrolAgain(ctx, es, tok, r.Node, keyHash); ok || err != nil {
		return got, err
	}
	if tok.Node != "" {
		return s.reenrol(ctx, es, tok, r, keyHash, now)
	}
	if _, err := es.UseEnrolToken(ctx, tok.ID); err != nil {
		return Enrolled{}, s.useRefused(ctx, es, tok.ID, err)
	}
	nodeSecret, err := newNodeSecret()
	if err != nil {
		return Enrolled{}, s.giveBack(ctx, es, tok.ID, err)
	}
	sealed, err := s.box.Seal(nodeSecret, r.Node)
	if err != nil {
		return Enrolled{}, s.giveBack(ctx, es, tok.ID, err)
	}
	n := store.Node{ID: r.Node, Provider: tok.Provider, Contract: tok.Contract, OrderedAt: tok.OrderedAt, GPUModel: tok.GPUModel,
		GPUCount: tok.GPUCount, GPUMemoryMiB: tok.GPUMemoryMiB, GPUDriver: tok.GPUDriver, PricePerHour: tok.PricePerHour, Currency: tok.Currency,
		HeartbeatInterval: tok.HeartbeatInterval, PushInterval: tok.PushInterval, Grace: tok.Grace, SealedSecret: sealed,
		CreatedAt: now, RegisteredBy: enrolActor(tok), EnrolToken: tok.ID, EnrolKeyHash: keyHash, EnrolledAt: now}
	if err := s.store.CreateNode(ctx, n); err != nil {
		if errors.Is(err, store.ErrExists) {
			// A retry of this very enrolment may have won the race.
			if got, ok, aerr := s.enrolAgain(ctx, es, tok, r.Node, keyHash); ok || aerr != nil {
				return got, s.giveBack(ctx, es, tok.ID, aerr)
			}
			return Enrolled{}, s.giveBack(ctx, es, tok.ID, errTaken(r.Node))
		}
		return Enrolled{}, s.giveBack(ctx, es, tok.ID, err)
	}
	if err := s.recordEnrolment(ctx, es, n, tok, r, false); err != nil {
		return Enrolled{}, err
	}
	s.log.Info("node enrolled", "node", n.ID, "token", tok.ID, "contract", n.Contract, "remote", r.Remote, "hostname", r.Hostname)
	return Enrolled{Node: n, Secret: nodeSecret}, nil
}

// CheckEnrolToken says whether token is a live enrolment token's, as Enrol
// judges it first: not recognised is 401 (the reason for the log alone),
// revoked or expired 403 naming the token. The HTTP layer asks before it
// parses the request's body.
func (s *Service) CheckEnrolToken(ctx context.Context, token string) error {
	es, err := s.enrolStore()
	if err != nil {
		return err
	}
	tok, err := s.enrolToken(ctx, es, token)
	if err != nil {
		return err
	}
	return tokenLive(tok, s.Now())
}

// tokenLive refuses a token that was revoked or has expired (403 naming
// the token): its text is genuine, so the answer may say why.
func tokenLive(tok store.EnrolToken, now time.Time) error {
	switch {
	case !tok.RevokedAt.IsZero():
		return Errorf(EForbidden, "token", "enrolment token %s was revoked at %s", tok.ID, tok.RevokedAt.Format(time.RFC3339))
	case !now.Before(tok.ExpiresAt):
		return Errorf(EForbidden, "token", "enrolment token %s expired at %s", tok.ID, tok.ExpiresAt.Format(time.RFC3339))
	}
	return nil
}

// enrolToken finds and checks a token: anything wrong is ErrBadEnrolToken
// (401), the reason for the log alone.
func (s *Service) enrolToken(ctx context.Context, es store.EnrolmentStore, token string) (store.EnrolToken, error) {
	bad := func(format string, a ...any) error {
		return &Error{Kind: EUnauthorized, Msg: "unauthorized: " + ErrBadEnrolToken.Error(), Err: fmt.Errorf("%w: "+format, append([]any{ErrBadEnrolToken}, a...)...)}
	}
	id, secret, err := ParseEnrolToken(token)
	if err != nil {
		return store.EnrolToken{}, bad("malformed")
	}
	t, err := es.GetEnrolToken(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		// Hash anyway, so an unknown id costs what a wrong secret does.
		_ = tokenMatches(store.EnrolToken{}, secret)
		return t, bad("unknown token %s", id)
	}
	if err != nil {
		return t, fmt.Errorf("enrol: %w", err)
	}
	if !tokenMatches(t, secret) {
		return t, bad("wrong secret for token %s", id)
	}
	return t, nil
}

// checkEnrolFields checks what the probe sent, naming the field: a node
// id (a re-enrolment token's own when none is given), its key, and
// bounded text.
func checkEnrolFields(r *EnrolRequest, tok store.EnrolToken) error {
	if tok.Node != "" && r.Node == "" {
		r.Node = tok.Node
	}
	if err := validEnrolNode(r.Node); err != nil {
		return err
	}
	if tok.Node != "" && r.Node != tok.Node {
		return Errorf(EForbidden, "node", "this token re-enrols node %s alone, not %q", tok.Node, r.Node)
	}
	if len(r.Key) < EnrolKeyMin || len(r.Key) > EnrolKeyMax {
		return Errorf(EInvalid, "key", "must be %d to %d characters (random, kept by the probe until it has its secret)", EnrolKeyMin, EnrolKeyMax)
	}
	for _, f := range []struct{ name, v string }{{"hostname", r.Hostname}, {"probe_version", r.ProbeVersion}} {
		if len(f.v) > MaxEnrolText {
			return Errorf(EInvalid, f.name, "longer than %d characters", MaxEnrolText)
		}
		if strings.ContainsFunc(f.v, func(c rune) bool { return c < 0x20 || c == 0x7f }) {
			return Errorf(EInvalid, f.name, "holds a control character")
		}
	}
	return nil
}

// enrolAgain answers a retry of an enrolment that already happened (the
// same token and key registered this node): the node and its secret
// again, its record made sure of, no use taken. ok is false when it is
// not such a retry.
func (s *Service) enrolAgain(ctx context.Context, es store.EnrolmentStore, tok store.EnrolToken, node, keyHash string) (Enrolled, bool, error) {
	n, err := s.store.GetNode(ctx, node)
	if errors.Is(err, store.ErrNotFound) {
		return Enrolled{}, false, nil
	}
	if err != nil {
		return Enrolled{}, false, err
	}
	if n.EnrolToken != tok.ID || n.EnrolKeyHash == "" || subtle.ConstantTimeCompare([]byte(n.EnrolKeyHash), []byte(keyHash)) != 1 {
		return Enrolled{}, false, nil
	}
	// The secret is given again only to a probe that lost the answer: one
	// that has signed a batch with it since this enrolment has it (the
	// probe forgets its key once it keeps the answer), so a token and key
	// read off a node later get nothing. A re-enrolled node's batches
	// before its re-enrolment were signed with the secret it lost.
	st, err := s.store.GetState(ctx, n.ID)
	switch {
	case err == nil && !st.LastReceivedAt.IsZero() && !st.LastReceivedAt.Before(n.EnrolledAt):
		return Enrolled{}, false, Errorf(EConflict, "node", "node %s has pushed signed with the secret of this enrolment (last at %s): the secret is not given again; "+
			"re-enrolling it is the renter's act (`gpusla enrol again %s`)", n.ID, st.LastReceivedAt.UTC().Format(time.RFC3339), n.ID)
	case err != nil && !errors.Is(err, store.ErrNotFound):
		return Enrolled{}, false, err
	}
	secret, err := s.box.Open(n.SealedSecret, n.ID)
	if err != nil {
		return Enrolled{}, false, err
	}
	reenrol := tok.Node != ""
	if err := s.recordEnrolment(ctx, es, n, tok, EnrolRequest{}, reenrol); err != nil {
		return Enrolled{}, false, err
	}
	return Enrolled{Node: n, Secret: secret, Reenrol: reenrol}, true, nil
}

// reenrol replaces an existing node's secret with a token made for it:
// the use is taken first, the node rewritten on the condition that its
// secret is still the one read.
func (s *Service) reenrol(ctx context.Context, es store.EnrolmentStore, tok store.EnrolToken, r EnrolRequest, keyHash string, now time.Time) (Enrolled, error) {
	n, err := s.store.GetNode(ctx, tok.Node)
	if err != nil {
		return Enrolled{}, fmt.Errorf("re-enrol %s: %w", tok.Node, err)
	}
	if _, err := es.UseEnrolToken(ctx, tok.ID); err != nil {
		return Enrolled{}, s.useRefused(ctx, es, tok.ID, err)
	}
	nodeSecret, err := newNodeSecret()
	if err != nil {
		return Enrolled{}, s.giveBack(ctx, es, tok.ID, err)
	}
	sealed, err := s.box.Seal(nodeSecret, n.ID)
	if err != nil {
		return Enrolled{}, s.giveBack(ctx, es, tok.ID, err)
	}
	prev := n.SealedSecret
	n.SealedSecret, n.EnrolToken, n.EnrolKeyHash, n.EnrolledAt = sealed, tok.ID, keyHash, now
	if err := es.ReenrolNode(ctx, n, prev); err != nil {
		if errors.Is(err, store.ErrConflict) {
			err = Errorf(EConflict, "node", "node %s was re-enrolled by another request at the same time", n.ID)
		}
		return Enrolled{}, s.giveBack(ctx, es, tok.ID, err)
	}
	s.nodes.Delete(n.ID) // the old secret must not outlive this process's cache
	if err := s.recordEnrolment(ctx, es, n, tok, r, true); err != nil {
		return Enrolled{}, err
	}
	s.log.Info("node re-enrolled", "node", n.ID, "token", tok.ID, "remote", r.Remote, "hostname", r.Hostname)
	return Enrolled{Node: n, Secret: nodeSecret, Reenrol: true}, nil
}

// recordEnrolment keeps the fact (put-if-absent under the node's
// enrolment instant, so a retry keeps the first record).
func (s *Service) recordEnrolment(ctx context.Context, es store.EnrolmentStore, n store.Node, tok store.EnrolToken, r EnrolRequest, reenrol bool) error {
	e := store.Enrolment{Node: n.ID, Token: tok.ID, At: n.EnrolledAt, By: tok.CreatedBy, Remote: r.Remote, Hostname: r.Hostname,
		ProbeVersion: r.ProbeVersion, Reenrol: reenrol}
	if err := es.PutEnrolment(ctx, e); err != nil && !errors.Is(err, store.ErrExists) {
		return fmt.Errorf("record enrolment of %s: %w", n.ID, err)
	}
	return nil
}

// useRefused explains a use the store would not give: the token as it
// now stands says whether it was revoked or used up.
func (s *Service) useRefused(ctx context.Context, es store.EnrolmentStore, id string, err error) error {
	if !errors.Is(err, store.ErrConflict) {
		return fmt.Errorf("enrol: %w", err)
	}
	t, gerr := es.GetEnrolToken(ctx, id)
	if gerr != nil {
		return fmt.Errorf("enrol: %w", gerr)
	}
	if !t.RevokedAt.IsZero() {
		return Errorf(EForbidden, "token", "enrolment token %s was revoked at %s", id, t.RevokedAt.Format(time.RFC3339))
	}
	return Errorf(EForbidden, "token", "enrolment token %s is used up: %d of %d enrolments", id, t.Uses, t.MaxUses)
}

// giveBack returns a use taken for an enrolment that registered nothing,
// and passes cause on.
func (s *Service) giveBack(ctx context.Context, es store.EnrolmentStore, id string, cause error) error {
	if cause == nil {
		return nil
	}
	if _, err := es.ReturnEnrolTokenUse(ctx, id); err != nil {
		s.log.Error("enrolment failed and its token use could not be given back", "token", id, "err", err)
	}
	return cause
}

func errTaken(node string) error {
	return Errorf(EConflict, "node", "node %q is already registered; a token never takes over a node: re-enrolling it is the renter's act (`gpusla enrol again %s`)", node, node)
}

// enrolActor is who registered a node enrolled with tok, in the books.
func enrolActor(tok store.EnrolToken) string {
	return "enrol:" + tok.ID + " (token by " + tok.CreatedBy + ")"
}
