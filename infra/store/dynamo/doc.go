// Package dynamo implements infra/store's ports on one DynamoDB table, with
// conditional single-item writes only (no transactions: they cost double and
// dynalite, the test server, has none).
//
// # Keys
//
// Every item has a string partition key (pk) and sort key (sk), laid out for
// the access patterns of the application so that every read is one GetItem
// or one Query of one partition:
//
//	record         pk               sk                                 read by
//	node           NODES            NODE#<id>                          GetItem; Query(NODES) lists all
//	node state     NODE#<id>        STATE                              GetItem (consistent), conditional Put
//	batch body     NODE#<id>        BATCH#<seq, 20 digits>             GetItem; Query BETWEEN seq range
//	incident       NODE#<id>        INC#<start>#<kind>[~<check>]        GetItem; Query sk < INC#<to>
//	heartbeat run  NODE#<id>        RUN#<from>                         Query sk < RUN#<to>
//	alert          NODE#<id>        ALERT#<incident id>#<kind>         GetItem; unsent ones also in gsi1
//	evidence       NODE#<id>        EV#<at>#<seq>#<kind>               Query BETWEEN EV#<from> and EV#<to>
//	backend run    BACKEND          RUN#<id>                           Query(BACKEND)
//	provider inc.  PROVSTATUS       INC#<contract>#<id>                GetItem; Query BETWEEN INC#<contract># and …$
//	status poll    PROVSTATUS       POLL#<contract>                    GetItem; Query BETWEEN POLL# and POLL$
//	enrol token    ENROL            TOKEN#<id>                         GetItem; UpdateItem counts its uses
//	enrolment      ENROL            NODE#<node>#<at>                   Query BETWEEN NODE#<node># and …$
//	ledger claim   LEDGER           CLAIM#<contract>/<month>           GetItem; Query BETWEEN CLAIM# and CLAIM$
//	bill credit    LEDGER           CREDIT#<key>                       GetItem; Query BETWEEN CREDIT# and CREDIT$
//
// (the ticket desk's items: ticket.go; the providers' status pages: provstatus.go; enrolment: enrol.go;
// the claims ledger: ledger.go)
//
// Times in keys are UTC, fixed width (20060102T150405.000000000Z), so byte
// order is time order; sequence numbers are zero-padded for the same reason.
// Nodes share one partition so that the watchdog lists them with one Query
// and no Scan; a renter's fleet is far below a partition's limits.
//
// The one global secondary index (gsi1) is sparse and holds two lists that
// cross nodes: alerts not yet delivered (gsi1pk=PENDING), so the watchdog's
// retry pass is one Query that reads nothing when all is well instead of one
// Query per node; and every incident (gsi1pk=INCIDENTS, gsi1sk=<start>#<node>#<kind>)
// for fleet-wide views and reports. Both are rare writes, so the index adds
// nothing to the cost of a heartbeat.
//
// # Versions and conditions
//
// Every state transition is a PutItem with a condition: put-if-absent
// (attribute_not_exists(pk)) for records created once, and "version =
// :prev" for versioned records (node state, incidents, alerts, backend
// runs), so concurrent or retried Lambdas cannot both win. A failed
// condition is app.ErrExists or app.ErrConflict; UpdateIncident tells a
// missing record (app.ErrNotFound) from a lost race with one more read.
//
// # Encoding
//
// Records are DynamoDB attributes (attributevalue, by their JSON field
// names; zero times and nil values left out). Two are not, for cost: the
// node state, rewritten on every push, is one binary attribute of deflated
// JSON beside its version, so that a heartbeat is one write unit; and batch
// bodies are stored deflated (they are most of the table's storage).
//
// # TTL
//
// Batch bodies carry the table's TTL attribute (Unix seconds). DynamoDB
// deletes expired items within days, not at once, so reads also hide items
// past their expiry.
//
// # Cost
//
// Every request is counted in app.OpCounts ("<Method>/read", "/write",
// "/query", "/conditional_failure") together with the request units it was
// billed, in thousandths ("<Method>/read/milli_units", …): DynamoDB's own
// ConsumedCapacity where it returns it, otherwise computed from item sizes
// by DynamoDB's published rules — and the bytes of every item written
// ("<Method>/write/bytes", for storage). docs/cost.md turns a simulated month of
// these into dollars.
package dynamo
