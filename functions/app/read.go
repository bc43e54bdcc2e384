package app

import (
	"context"
	"time"

	"github.com/gpusla/gpusla/infra/store"
)

// The application's reads: what the handlers (the HTTP API, Slack, the
// action link, replacement requests) show about nodes, their state,
// incidents, batches and maintenance. They are the only way a handler sees
// a record; every change goes through a use case of its own (AddNode,
// Ingest, ReleaseNode, AnnounceMaintenance, the ticket desk), so no handler
// reaches the store around the application. Errors keep the store's
// contract (errors.Is(err, store.ErrNotFound)).

// Node returns a registered node.
func (s *Service) Node(ctx context.Context, id string) (store.Node, error) {
	return s.store.GetNode(ctx, id)
}

// Nodes returns every registered node, ordered by id.
func (s *Service) Nodes(ctx context.Context) ([]store.Node, error) {
	return s.store.ListNodes(ctx)
}

// NodeState returns a node's live state; store.ErrNotFound before anything
// was heard from it.
func (s *Service) NodeState(ctx context.Context, node string) (store.NodeState, error) {
	return s.store.GetState(ctx, node)
}

// Incident returns one incident of node.
func (s *Service) Incident(ctx context.Context, node, id string) (store.Incident, error) {
	return s.store.GetIncident(ctx, node, id)
}

// Incidents returns node's incidents overlapping [from, to), ordered by
// start (open ones reach to infinity).
func (s *Service) Incidents(ctx context.Context, node string, from, to time.Time) ([]store.Incident, error) {
	return s.store.ListIncidents(ctx, node, from, to)
}

// Batches returns node's stored (unexpired) batches with fromSeq <= seq <=
// toSeq, ordered by seq.
func (s *Service) Batches(ctx context.Context, node string, fromSeq, toSeq uint64) ([]store.BatchRecord, error) {
	return s.store.ListBatches(ctx, node, fromSeq, toSeq)
}

// Maintenance returns the notices overlapping [from, to), ordered by start.
func (s *Service) Maintenance(ctx context.Context, from, to time.Time) ([]store.Maintenance, error) {
	return s.store.ListMaintenance(ctx, from, to)
}
