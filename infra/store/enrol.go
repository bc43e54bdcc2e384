package store

import (
	"context"
	"fmt"
	"sort"
	"time"
)

// EnrolmentStore keeps enrolment tokens and the record of every enrolment:
// a renter makes a token that carries one contract and the order (GPU
// model, count, memory, price), and probes started with it register
// themselves as nodes. Declared apart from Store like TicketStore; both
// stores implement it and infra/store/storetest holds its contract.
//
// The same rules hold: conditional single-item writes only. A token's uses
// are counted by one conditional increment (UseEnrolToken), so any number
// of probes enrolling at once never take more uses than the token allows;
// the node itself is created put-if-absent (Store.CreateNode), so a token
// can never take an existing node's id.
type EnrolmentStore interface {
	// CreateEnrolToken stores a new token; ErrExists if its id is taken.
	CreateEnrolToken(ctx context.Context, t EnrolToken) error
	// GetEnrolToken returns a token; ErrNotFound if absent.
	GetEnrolToken(ctx context.Context, id string) (EnrolToken, error)
	// ListEnrolTokens returns every token, ordered by id.
	ListEnrolTokens(ctx context.Context) ([]EnrolToken, error)
	// UseEnrolToken takes one use of a token in one conditional write: it
	// increments Uses if the token is not revoked and Uses < MaxUses, and
	// returns the token as stored after the write. ErrNotFound if absent;
	// ErrConflict if it is used up or revoked (nothing is written).
	UseEnrolToken(ctx context.Context, id string) (EnrolToken, error)
	// ReturnEnrolTokenUse gives back one use taken for an enrolment that
	// registered nothing (its node id was taken): Uses-1 if above 0.
	// ErrNotFound if absent; ErrConflict if Uses is 0.
	ReturnEnrolTokenUse(ctx context.Context, id string) (EnrolToken, error)
	// RevokeEnrolToken records the revocation (at, by) once and returns
	// the token as stored; revoking again keeps the first record.
	// ErrNotFound if absent.
	RevokeEnrolToken(ctx context.Context, id string, at time.Time, by string) (EnrolToken, error)

	// PutEnrolment records one enrolment; ErrExists if the record of that
	// node at that instant exists.
	PutEnrolment(ctx context.Context, e Enrolment) error
	// ListEnrolments returns the enrolments of node ("" every node),
	// ordered by node, then time.
	ListEnrolments(ctx context.Context, node string) ([]Enrolment, error)
	// ReenrolNode replaces a node record by n (same id) on the condition
	// that its stored sealed secret is still prevSealed: a re-enrolment
	// replaces the secret once, and two racing re-enrolments cannot both
	// win. ErrNotFound if the node is absent; ErrConflict if the secret
	// changed.
	ReenrolNode(ctx context.Context, n Node, prevSealed []byte) error
}

// EnrolToken lets probes register themselves as nodes of one contract
// with what the renter ordered. Only a hash of its secret is stored: the
// token is shown once, at creation.
type EnrolToken struct {
	ID   string `json:"id"`
	Name string `json:"name,omitempty"`
	// Hash is hex SHA-256 of the secret part (256 random bits: a fast
	// hash leaves nothing to guess).
	Hash string `json:"hash"`
	// The order every node enrolled with the token is registered with:
	// hardware truth is judged against it, never against what the node
	// reports of itself.
	Provider          string        `json:"provider"`
	Contract          string        `json:"contract"`
	OrderedAt         time.Time     `json:"ordered_at"`
	GPUModel          string        `json:"gpu_model,omitempty"`
	GPUCount          int           `json:"gpu_count,omitempty"`
	GPUMemoryMiB      int           `json:"gpu_memory_mib,omitempty"`
	GPUDriver         string        `json:"gpu_driver,omitempty"`
	PricePerHour      float64       `json:"price_per_hour,omitempty"`
	Currency          string        `json:"currency,omitempty"`
	HeartbeatInterval time.Duration `json:"heartbeat_interval"`
	PushInterval      time.Duration `json:"push_interval"`
	Grace             time.Duration `json:"grace"`
	// Node, when set, makes this a re-enrolment token: it is good for that
	// one existing node alone, whose secret it replaces.
	Node      string    `json:"node,omitempty"`
	ExpiresAt time.Time `json:"expires_at"`
	MaxUses   int       `json:"max_uses"`
	Uses      int       `json:"uses"`
	CreatedAt time.Time `json:"created_at"`
	CreatedBy string    `json:"created_by"`
	RevokedAt time.Time `json:"revoked_at,omitzero"`
	RevokedBy string    `json:"revoked_by,omitempty"`
}

// String never shows the hash.
func (t EnrolToken) String() string {
	return fmt.Sprintf("enrolment token %s (contract %s, %d of %d uses)", t.ID, t.Contract, t.Uses, t.MaxUses)
}

// Enrolment is the record of one probe enrolling: which token, when, who
// made the token, and what the probe proposed (its id, host name and
// version) and from where.
type Enrolment struct {
	Node  string    `json:"node"`
	Token string    `json:"token"`
	At    time.Time `json:"at"`
	// By is who made the token (its CreatedBy): the renter's act that
	// let this node in.
	By           string `json:"by"`
	Remote       string `json:"remote,omitempty"`
	Hostname     string `json:"hostname,omitempty"`
	ProbeVersion string `json:"probe_version,omitempty"`
	// Reenrol: the node existed and this enrolment replaced its secret.
	Reenrol bool `json:"reenrol,omitempty"`
}

// SortEnrolments orders enrolments by node, then time: the order
// ListEnrolments returns.
func SortEnrolments(l []Enrolment) {
	sort.Slice(l, func(i, j int) bool {
		if l[i].Node != l[j].Node {
			return l[i].Node < l[j].Node
		}
		return l[i].At.Before(l[j].At)
	})
}
