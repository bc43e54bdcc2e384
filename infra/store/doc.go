// Package store holds the storage ports of the backend: the Store and
// TicketStore interfaces, the records they keep (nodes, node state, batches,
// incidents, heartbeat runs, alerts, evidence, backend runs, tickets, API
// keys) and the sentinel errors of their contract (ErrNotFound, ErrExists,
// ErrConflict).
//
// It sits below the application (functions/app) so that the adapters that
// implement it — store/bolt (one embedded file, for `gpusla serve`) and
// store/dynamo (DynamoDB, for the Lambdas) — depend on it and never on the
// application; store/storetest is the one contract suite both pass.
//
// On the path of one observation (docs/architecture.md) this is where step 6 keeps the accepted
// batch and the node's state, and where step 8 reads them back.
package store
