// Package app is the backend's application: the node registry, ingest of
// signed batches, live state evaluation through the SLA engine
// (sla/incident), the watchdog, and the decisions of what to alert. The
// storage and notification ports it needs (infra/store's Store and its role
// interfaces, infra/notify's Notifier) sit below it, where the adapters
// implement them; Clock and SecretBox it declares itself. Handlers (the HTTP
// API, Slack, the action link) reach records only through the Service —
// its use cases for every change, read.go for what they show — never the
// store itself. The Lambdas and `gpusla serve` call the same Service, so both
// run one behaviour.
//
// On the path of one observation (docs/architecture.md) the application is steps 6 and 7: ingest
// accepts a batch (authenticate, decode, place in the chain, judge, store, effects) and the live
// verdict opens and closes incidents through sla/incident, then alerts; its export is step 8's
// event log.
package app

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/sla/incident"
	"github.com/gpusla/gpusla/sla/terms"
)

// Defaults of a node's schedule: the probe heartbeats every 30 s and pushes
// every 60 s (two heartbeats a batch), which keeps a node-month of pushes
// within the cost goal.
const (
	DefaultHeartbeatInterval = 30 * time.Second
	DefaultPushInterval      = 60 * time.Second
	DefaultGrace             = 90 * time.Second
	// DefaultRetention is how long stored batch bodies live (their TTL).
	// A body is needed until its month's evidence bundle is archived (the
	// report job on the 1st, after DefaultReportDelay: at most 31 days +
	// 6 h after it arrived) and until the claim window has passed (the
	// longest contract example, "end of the second billing cycle", ends
	// about 61 days after the month): 31 + 61 = 92 days, plus a week for a
	// report job that failed and is re-run. After that the archived bundle
	// (S3 / the data folder) is the evidence, not the table.
	DefaultRetention = 100 * 24 * time.Hour
	// MaxTickGap: a watchdog tick further than this from the previous one
	// means the backend itself was down in between.
	MaxTickGap = 3 * time.Minute
)

// Config wires a Service.
type Config struct {
	Store store.Store
	// Notifier delivers every message when there are no Channels.
	Notifier notify.Notifier
	// Channels, when set, route messages to named channels (Notifier is
	// then unused and may be nil).
	Channels Channels
	Box      SecretBox
	Clock    Clock        // default SystemClock
	Log      *slog.Logger // default slog.Default()
	// Terms are the contract terms the service judges nodes by: every
	// detection setting (grace, thresholds, definitive checks) comes from
	// the node's contract, the same that the monthly report uses. Tickets
	// installs its book when this is empty.
	Terms TermsBook
	// Retention is the TTL of stored batch bodies (default DefaultRetention).
	Retention time.Duration
	// BackendID names this backend's liveness records ("serve", "lambda").
	BackendID string
	// AlertRetry is how long an alert that was not delivered (or is still
	// being sent) waits before it is tried again (default
	// DefaultAlertRetry); one attempt is cut off at three quarters of it.
	AlertRetry time.Duration
}

// Service is the application.
type Service struct {
	store     store.Store
	notifier  notify.Notifier
	channels  Channels
	box       SecretBox
	clock     Clock
	log       *slog.Logger
	terms     atomic.Pointer[TermsBook]
	retention time.Duration
	backendID string
	nodes     sync.Map // id → cachedNode
	unknown   sync.Map // contract ids already warned about
	// decoySecret signs nothing: ingest verifies an unknown node's request
	// against it, so that an unknown node costs and answers the same as a
	// wrong signature.
	decoySecret []byte
	// Deferred alerts (DeferAlerts, SendAlerts): the ack waits for the
	// alert's claim alone; the sender or the watchdog delivers it.
	deferAlerts   atomic.Bool
	senderRunning atomic.Bool
	out           *outbox
	alertRetry    time.Duration
	// fleet is the live fleet baselines (fleet.go).
	fleet fleetCache
}

// cachedNode is a node record with its opened secret. Node records do not
// change after registration, so ingest keeps them for nodeCacheTTL and saves
// a store read (a billed DynamoDB read in AWS) and an AES-GCM open per push.
type cachedNode struct {
	node    store.Node
	secret  []byte
	expires time.Time
}

const nodeCacheTTL = time.Minute

// New checks the config and returns a Service.
func New(c Config) (*Service, error) {
	if c.Store == nil || (c.Notifier == nil && c.Channels == nil) || c.Box == nil {
		return nil, errors.New("app: Store, Notifier (or Channels) and Box are required")
	}
	s := &Service{store: c.Store, notifier: c.Notifier, channels: c.Channels, box: c.Box, clock: c.Clock, log: c.Log,
		retention: c.Retention, backendID: c.BackendID, decoySecret: make([]byte, 32), out: newOutbox(), alertRetry: c.AlertRetry}
	if _, err := rand.Read(s.decoySecret); err != nil {
		return nil, fmt.Errorf("app: decoy secret: %w", err)
	}
	if c.Terms != nil {
		s.SetTerms(c.Terms)
	}
	if s.clock == nil {
		s.clock = SystemClock{}
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.retention <= 0 {
		s.retention = DefaultRetention
	}
	if s.backendID == "" {
		s.backendID = "backend"
	}
	if s.alertRetry <= 0 {
		s.alertRetry = DefaultAlertRetry
	}
	return s, nil
}

// SetTerms installs the contract terms the service judges nodes by.
func (s *Service) SetTerms(book TermsBook) { s.terms.Store(&book) }

// TermsBook returns the installed contract terms (empty if none).
func (s *Service) TermsBook() TermsBook {
	if b := s.terms.Load(); b != nil {
		return *b
	}
	return TermsBook{}
}

// contract returns the terms of a node's contract.
func (s *Service) contract(n store.Node) (*terms.Terms, bool) {
	tm, ok := s.TermsBook()[n.Contract]
	return tm, ok
}

// Thresholds is the detection settings for a node: its contract's, as the report
// uses them. A node whose contract no loaded terms define (registered
// before its terms were removed: AddNode refuses unknown contracts) is
// judged by the terms' documented defaults, with the node's own grace, and
// the service says so in its log.
func (s *Service) Thresholds(n store.Node) incident.Thresholds {
	if tm, ok := s.contract(n); ok {
		return tm.Detection
	}
	if _, warned := s.unknown.LoadOrStore(n.Contract, true); !warned {
		s.log.Warn("node's contract is not in the loaded terms: judged by the default detection settings",
			"node", n.ID, "contract", n.Contract, "known", strings.Join(s.TermsBook().Contracts(), ","))
	}
	return incident.Thresholds{Grace: n.Grace, FailureThreshold: terms.DefaultFailureThreshold,
		SuccessThreshold: terms.DefaultSuccessThreshold, Definitive: incident.DefaultDefinitive}
}

// Now is the service clock's time, in UTC.
func (s *Service) Now() time.Time { return s.clock.Now().UTC() }

// releasedAt is when node was released (zero: still rented, or unknown):
// the ticket clocks stop there. A fresh read, since a release must stop
// them at once in every process.
func (s *Service) releasedAt(node string) time.Time {
	n, err := s.store.GetNode(context.Background(), node)
	if err != nil {
		return time.Time{}
	}
	return n.ReleasedAt
}

// nodeAndSecret returns a registered node and its secret, from the cache
// when fresh. ErrNotFound if the node is not registered.
func (s *Service) nodeAndSecret(ctx context.Context, id string) (store.Node, []byte, error) {
	now := time.Now()
	if v, ok := s.nodes.Load(id); ok {
		if c := v.(cachedNode); now.Before(c.expires) {
			return c.node, c.secret, nil
		}
	}
	n, err := s.store.GetNode(ctx, id)
	if err != nil {
		return store.Node{}, nil, err
	}
	secret, err := s.box.Open(n.SealedSecret, n.ID)
	if err != nil {
		return store.Node{}, nil, err
	}
	s.nodes.Store(id, cachedNode{node: n, secret: secret, expires: now.Add(nodeCacheTTL)})
	return n, secret, nil
}
