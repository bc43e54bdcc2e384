package dynamo

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/store"
)

// API is the part of the DynamoDB client the store calls — exactly the
// actions in IAMActions, so the compiler keeps the IAM policy honest.
type API interface {
	GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
	Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error)
	// UpdateItem counts an enrolment token's uses (enrol.go).
	UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
}

// Store is store.Store (and its role interfaces) on one DynamoDB table.
type Store struct {
	db    API
	table string
	now   func() time.Time
	ops   store.OpCounter
	// receipts is when the table began to index batch records by
	// receive day (receipt.go), once this store has written or read it.
	receipts receiptsSince
}

// New returns a store on an existing table (template.yaml creates it in AWS;
// CreateTable creates it for tests and local runs).
func New(db API, table string) (*Store, error) {
	if db == nil {
		return nil, errors.New("dynamo store: no client")
	}
	if table == "" {
		return nil, errors.New("dynamo store: no table name")
	}
	return &Store{db: db, table: table, now: time.Now}, nil
}

// SetClock sets the time used to hide expired batches (tests, simulations).
func (s *Store) SetClock(now func() time.Time) { s.now = now }

// Close releases nothing: the client is shared and owned by the caller.
func (s *Store) Close() error { return nil }

// Ops returns the operation and unit counts so far.
func (s *Store) Ops() store.OpCounts { return s.ops.Ops() }

// ---- keys

const keyTime = "20060102T150405.000000000Z"

func tkey(t time.Time) string { return t.UTC().Format(keyTime) }

func nodePK(node string) string { return "NODE#" + node }

const (
	nodesPK   = "NODES"
	backendPK = "BACKEND"
	pendingPK = "PENDING"
	// incidentsPK is the index partition of every incident of every node.
	incidentsPK = "INCIDENTS"
	stateSK     = "STATE"
)

func seqSK(seq uint64) string { return fmt.Sprintf("BATCH#%020d", seq) }

// incidentItem adds the index keys that list every node's incidents by start.
func incidentItem(inc store.Incident, sk string) (map[string]types.AttributeValue, error) {
	return marshal(inc, nodePK(inc.Node), sk, map[string]types.AttributeValue{
		IndexPartitionKey: str(incidentsPK),
		IndexSortKey:      str(tkey(inc.Start) + "#" + inc.Node + "#" + inc.Kind),
	})
}

func incidentSK(id string) (string, error) {
	kind, start, err := store.ParseIncidentID(id)
	if err != nil {
		return "", err
	}
	sk := "INC#" + tkey(start) + "#" + kind
	if c := store.IncidentCheck(id); c != "" {
		sk += "~" + c
	}
	return sk, nil
}

// alertSK is ALERT#<incident>#<kind>, with #<channel> for a named channel.
func alertSK(incidentID string, kind notify.AlertKind, channel string) string {
	if channel == "" {
		return "ALERT#" + incidentID + "#" + string(kind)
	}
	return "ALERT#" + incidentID + "#" + string(kind) + "#" + channel
}

func evidenceSK(e store.Evidence) string {
	return fmt.Sprintf("EV#%s#%020d#%s", tkey(e.At), e.Seq, e.Kind)
}

// ---- encoding

// Times are stored as RFC 3339 UTC strings (readable in the console, and
// sortable); zero times are left out entirely, like `omitzero` in the JSON
// the embedded store writes, because every byte of the node state item is
// billed on every push.
var (
	encOpts = func(o *attributevalue.EncoderOptions) {
		o.TagKey = "json"
		o.EncodeTime = func(t time.Time) (types.AttributeValue, error) {
			if t.IsZero() {
				return &types.AttributeValueMemberNULL{Value: true}, nil
			}
			return &types.AttributeValueMemberS{Value: t.UTC().Format(time.RFC3339Nano)}, nil
		}
	}
	decOpts = func(o *attributevalue.DecoderOptions) {
		o.TagKey = "json"
		o.DecodeTime.S = func(s string) (time.Time, error) {
			t, err := time.Parse(time.RFC3339Nano, s)
			return t.UTC(), err
		}
	}
)

// marshal encodes a record as an item with its keys and extra attributes.
func marshal(v any, pk, sk string, extra map[string]types.AttributeValue) (map[string]types.AttributeValue, error) {
	item, err := attributevalue.MarshalMapWithOptions(v, encOpts)
	if err != nil {
		return nil, fmt.Errorf("encode %T: %w", v, err)
	}
	compact(item)
	item[PartitionKey] = &types.AttributeValueMemberS{Value: pk}
	item[SortKey] = &types.AttributeValueMemberS{Value: sk}
	for k, v := range extra {
		item[k] = v
	}
	return item, nil
}

// compact drops NULLs (zero times, nil pointers, nil maps) from maps at
// every depth: absent decodes to the same zero value and costs nothing.
func compact(m map[string]types.AttributeValue) {
	for k, v := range m {
		switch x := v.(type) {
		case *types.AttributeValueMemberNULL:
			delete(m, k)
		case *types.AttributeValueMemberM:
			compact(x.Value)
		case *types.AttributeValueMemberL:
			for _, e := range x.Value {
				if mm, ok := e.(*types.AttributeValueMemberM); ok {
					compact(mm.Value)
				}
			}
		}
	}
}

func unmarshal(item map[string]types.AttributeValue, v any) error {
	if err := attributevalue.UnmarshalMapWithOptions(item, v, decOpts); err != nil {
		return fmt.Errorf("decode %T: %w", v, err)
	}
	return nil
}

func str(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
func num(v int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(v, 10)}
}

func key(pk, sk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{PartitionKey: str(pk), SortKey: str(sk)}
}

// ---- the three requests, counted

func isCondFailure(err error) bool {
	var ccf *types.ConditionalCheckFailedException
	return errors.As(err, &ccf)
}

// get reads one item; ErrNotFound when absent. Reads that precede a
// versioned write are strongly consistent, so a retry after a conflict sees
// the winner's write instead of looping on a stale copy.
func (s *Store) get(ctx context.Context, method, pk, sk string, consistent bool, v any) error {
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:              aws.String(s.table),
		Key:                    key(pk, sk),
		ConsistentRead:         aws.Bool(consistent),
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
	})
	s.ops.Add(method, store.OpRead, 1)
	if err != nil {
		return fmt.Errorf("%s %s/%s: %w", method, pk, sk, err)
	}
	var size int
	if out.Item != nil {
		size = itemSize(out.Item)
	}
	s.countUnits(method, store.OpRead, out.ConsumedCapacity, readUnits(size, consistent))
	if out.Item == nil {
		return store.ErrNotFound
	}
	if r, ok := v.(*rawItem); ok {
		r.m = out.Item
		return nil
	}
	return unmarshal(out.Item, v)
}

// put writes an item if cond holds. A failed condition is returned as
// errCond (and counted: DynamoDB bills it as a write).
func (s *Store) put(ctx context.Context, method string, item map[string]types.AttributeValue, cond string, values map[string]types.AttributeValue) error {
	in := &dynamodb.PutItemInput{
		TableName:              aws.String(s.table),
		Item:                   item,
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
	}
	if cond != "" {
		in.ConditionExpression = aws.String(cond)
		in.ExpressionAttributeNames = map[string]string{"#pk": PartitionKey}
		if strings.Contains(cond, "#v") {
			in.ExpressionAttributeNames["#v"] = versionAttr
		}
		if !strings.Contains(cond, "#pk") {
			delete(in.ExpressionAttributeNames, "#pk")
		}
		if len(in.ExpressionAttributeNames) == 0 {
			in.ExpressionAttributeNames = nil
		}
		in.ExpressionAttributeValues = values
	}
	out, err := s.db.PutItem(ctx, in)
	s.ops.Add(method, store.OpWrite, 1)
	size := itemSize(item)
	estimate := writeUnits(size)
	if err != nil {
		if isCondFailure(err) {
			s.ops.Add(method, store.OpCondFailure, 1)
			s.countUnits(method, store.OpWrite, nil, estimate)
			return errCond
		}
		return fmt.Errorf("%s: %w", method, err)
	}
	s.countUnits(method, store.OpWrite, out.ConsumedCapacity, estimate)
	// Bytes written, for the storage part of the cost model.
	s.ops.Add(method, store.OpWrite+"/bytes", int64(size))
	return nil
}

var errCond = errors.New("condition failed")

// rawItem asks get for the item itself, undecoded.
type rawItem struct {
	m map[string]types.AttributeValue
}

// putNew writes an item that must not exist yet; app.ErrExists if it does.
func (s *Store) putNew(ctx context.Context, method string, item map[string]types.AttributeValue) error {
	err := s.put(ctx, method, item, "attribute_not_exists(#pk)", nil)
	if err == errCond {
		return store.ErrExists
	}
	return err
}

// putVersioned writes an item whose stored version must equal prev (0: it
// must not exist); app.ErrConflict otherwise.
func (s *Store) putVersioned(ctx context.Context, method string, item map[string]types.AttributeValue, prev int64) error {
	var err error
	if prev == 0 {
		err = s.put(ctx, method, item, "attribute_not_exists(#pk)", nil)
	} else {
		err = s.put(ctx, method, item, "#v = :prev", map[string]types.AttributeValue{":prev": num(prev)})
	}
	if err == errCond {
		return store.ErrConflict
	}
	return err
}

// query reads every item of partition pk whose sort key is between lo and
// hi (inclusive; both "" for the whole partition), in sort key order, handing each to fn. Pages are followed.
func (s *Store) query(ctx context.Context, method, index, pk, lo, hi string, consistent bool, fn func(map[string]types.AttributeValue) error) error {
	pkName, skName := PartitionKey, SortKey
	if index != "" {
		pkName, skName = IndexPartitionKey, IndexSortKey
	}
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		KeyConditionExpression:    aws.String("#pk = :pk"),
		ExpressionAttributeNames:  map[string]string{"#pk": pkName},
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str(pk)},
		ReturnConsumedCapacity:    types.ReturnConsumedCapacityTotal,
	}
	if lo != "" || hi != "" {
		in.KeyConditionExpression = aws.String("#pk = :pk AND #sk BETWEEN :lo AND :hi")
		in.ExpressionAttributeNames["#sk"] = skName
		in.ExpressionAttributeValues[":lo"] = str(lo)
		in.ExpressionAttributeValues[":hi"] = str(hi)
	}
	if index != "" {
		in.IndexName = aws.String(index)
	} else {
		in.ConsistentRead = aws.Bool(consistent)
	}
	for {
		out, err := s.db.Query(ctx, in)
		s.ops.Add(method, store.OpQuery, 1)
		if err != nil {
			return fmt.Errorf("%s %s: %w", method, pk, err)
		}
		size := 0
		for _, it := range out.Items {
			size += itemSize(it)
		}
		s.countUnits(method, store.OpQuery, out.ConsumedCapacity, readUnits(size, consistent))
		for _, it := range out.Items {
			if err := fn(it); err != nil {
				return fmt.Errorf("%s %s: %w", method, pk, err)
			}
		}
		if len(out.LastEvaluatedKey) == 0 {
			return nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// countUnits records billed units in thousandths: DynamoDB's figure when it
// sent one, else the estimate from DynamoDB's sizing rules. Reads never
// count less than DynamoDB's minimum charge (dynalite reports 0 for a query
// of an index that finds nothing; DynamoDB bills the minimum).
func (s *Store) countUnits(method, op string, cc *types.ConsumedCapacity, estimate float64) {
	units := estimate
	if cc != nil && cc.CapacityUnits != nil {
		units = *cc.CapacityUnits
		if op != store.OpWrite {
			units = math.Max(units, readUnits(0, false))
		}
	}
	s.ops.Add(method, op+"/milli_units", int64(math.Round(units*1000)))
}

// ---- nodes

func (s *Store) CreateNode(ctx context.Context, n store.Node) error {
	item, err := marshal(n, nodesPK, "NODE#"+n.ID, nil)
	if err != nil {
		return err
	}
	return wrap("create node "+n.ID, s.putNew(ctx, "CreateNode", item))
}

func (s *Store) GetNode(ctx context.Context, id string) (store.Node, error) {
	var n store.Node
	// Eventually consistent (half price): a node record is written once.
	err := s.get(ctx, "GetNode", nodesPK, "NODE#"+id, false, &n)
	return n, wrap("get node "+id, err)
}

func (s *Store) ListNodes(ctx context.Context) ([]store.Node, error) {
	var out []store.Node
	err := s.query(ctx, "ListNodes", "", nodesPK, "NODE#", "NODE$", false, func(it map[string]types.AttributeValue) error {
		var n store.Node
		if err := unmarshal(it, &n); err != nil {
			return err
		}
		out = append(out, n)
		return nil
	})
	return out, wrap("list nodes", err)
}

// ReleaseNode writes the node item with its release, on the condition
// that the item exists and holds no release yet (the node record is
// otherwise written once). A lost race re-reads to tell the same release
// (no-op) from another (ErrConflict).
func (s *Store) ReleaseNode(ctx context.Context, id string, rel store.Release) (store.Node, error) {
	at := rel.At.UTC()
	for attempt := 0; attempt < 2; attempt++ {
		var n store.Node
		if err := s.get(ctx, "ReleaseNode", nodesPK, "NODE#"+id, true, &n); err != nil {
			return n, wrap("release node "+id, err)
		}
		switch {
		case n.ReleasedAt.Equal(at):
			return n, nil
		case !n.ReleasedAt.IsZero():
			return n, wrap("release node "+id, store.ErrConflict)
		}
		n = n.WithRelease(rel)
		item, err := marshal(n, nodesPK, "NODE#"+id, nil)
		if err != nil {
			return n, err
		}
		err = s.put(ctx, "ReleaseNode", item, "attribute_exists(#pk) AND attribute_not_exists(released_at)", nil)
		if err != errCond {
			return n, wrap("release node "+id, err)
		}
	}
	return store.Node{}, wrap("release node "+id, store.ErrConflict)
}

// ---- maintenance

const maintPK = "MAINTENANCE"

func (s *Store) PutMaintenance(ctx context.Context, m store.Maintenance) error {
	item, err := marshal(m, maintPK, "MAINT#"+tkey(m.Start)+"#"+m.ID, nil)
	if err != nil {
		return err
	}
	return wrap("put maintenance "+m.ID, s.putNew(ctx, "PutMaintenance", item))
}

// ListMaintenance reads the whole partition (a handful of notices a month;
// one that starts late may have been announced long before).
func (s *Store) ListMaintenance(ctx context.Context, from, to time.Time) ([]store.Maintenance, error) {
	var out []store.Maintenance
	err := s.query(ctx, "ListMaintenance", "", maintPK, "MAINT#", "MAINT$", false, func(it map[string]types.AttributeValue) error {
		var m store.Maintenance
		if err := unmarshal(it, &m); err != nil {
			return err
		}
		if m.Start.Before(to) && m.End.After(from) {
			out = append(out, m)
		}
		return nil
	})
	return out, wrap("list maintenance", err)
}

// ---- node state

// The node state is written on every push, so its size is most of the
// bill: DynamoDB charges a write unit per started KB. It is stored as
// deflated JSON in one binary attribute (about half the size of the same
// state as DynamoDB attributes, which repeat every field name), next to the
// version the conditional write checks.
//
// Since the state grew evidence for late data and the fleet streaks, its
// plain deflate passed 1 KB; deflating against a preset dictionary — the
// JSON of a healthy 8-GPU node's state, every check key in it
// (statedict.json) — stores a state in about a quarter of that. The
// dictionary is part of the stored format: it never changes (a test pins
// its hash); another one would get another state_enc. Items written as
// plain json+deflate are still read.
const (
	stateAttr        = "state"
	versionAttr      = "version"
	stateEncAttr     = "state_enc"
	stateEncJSON     = "json+deflate"
	stateEncJSONDict = "json+deflate+dict1"
)

//go:embed statedict.json
var stateDict []byte

func (s *Store) GetState(ctx context.Context, node string) (store.NodeState, error) {
	var it rawItem
	var st store.NodeState
	err := s.get(ctx, "GetState", nodePK(node), stateSK, true, &it)
	if err == nil {
		st, err = decodeState(it.m)
	}
	return st, wrap("get state of "+node, err)
}

// GetStateStale is GetState read eventually consistently, at half the
// read units: the watchdog's first look at each node every minute
// (app.StaleStateReader says why that is safe).
func (s *Store) GetStateStale(ctx context.Context, node string) (store.NodeState, error) {
	var it rawItem
	var st store.NodeState
	err := s.get(ctx, "GetStateStale", nodePK(node), stateSK, false, &it)
	if err == nil {
		st, err = decodeState(it.m)
	}
	return st, wrap("get state of "+node, err)
}

func decodeState(it map[string]types.AttributeValue) (store.NodeState, error) {
	var st store.NodeState
	enc, _ := it[stateEncAttr].(*types.AttributeValueMemberS)
	z, _ := it[stateAttr].(*types.AttributeValueMemberB)
	var dict []byte
	switch {
	case enc == nil || z == nil:
		return st, fmt.Errorf("state item: want %s %q or %q and a binary %s", stateEncAttr, stateEncJSONDict, stateEncJSON, stateAttr)
	case enc.Value == stateEncJSONDict:
		dict = stateDict
	case enc.Value != stateEncJSON:
		return st, fmt.Errorf("state item: %s %q: want %q or %q", stateEncAttr, enc.Value, stateEncJSONDict, stateEncJSON)
	}
	raw, err := inflateDict(z.Value, dict)
	if err != nil {
		return st, fmt.Errorf("state item: %w", err)
	}
	if err := json.Unmarshal(raw, &st); err != nil {
		return st, fmt.Errorf("state item: %w", err)
	}
	return st, nil
}

func (s *Store) PutState(ctx context.Context, st store.NodeState, prev int64) (int64, error) {
	st.Version = prev + 1
	raw, err := json.Marshal(st)
	if err != nil {
		return 0, fmt.Errorf("encode state of %s: %w", st.Node, err)
	}
	z, err := deflateDict(raw, stateDict)
	if err != nil {
		return 0, fmt.Errorf("encode state of %s: %w", st.Node, err)
	}
	item := key(nodePK(st.Node), stateSK)
	item[versionAttr] = num(st.Version)
	item[stateEncAttr] = str(stateEncJSONDict)
	item[stateAttr] = &types.AttributeValueMemberB{Value: z}
	if err := s.putVersioned(ctx, "PutState", item, prev); err != nil {
		return 0, wrap("put state of "+st.Node, err)
	}
	return st.Version, nil
}

// ---- batches

func (s *Store) PutBatch(ctx context.Context, b store.BatchRecord) error {
	var extra map[string]types.AttributeValue
	if !b.ExpiresAt.IsZero() {
		// DynamoDB TTL wants whole Unix seconds; round up so the item never
		// disappears before ExpiresAt.
		sec := b.ExpiresAt.Unix()
		if b.ExpiresAt.Nanosecond() > 0 {
			sec++
		}
		extra = map[string]types.AttributeValue{TTLAttribute: num(sec)}
	}
	if extra == nil {
		extra = map[string]types.AttributeValue{}
	}
	if len(b.Body) > 0 {
		z, err := deflate(b.Body)
		if err != nil {
			return fmt.Errorf("put batch %s/%d: %w", b.Node, b.Seq, err)
		}
		b.Body = z
		extra[bodyEncAttr] = str(bodyEncDeflate)
	}
	item, err := marshal(b, nodePK(b.Node), seqSK(b.Seq), extra)
	if err != nil {
		return err
	}
	if itemSize(item) > maxItemBytes {
		// The decoded form only spares its readers the body's decoding:
		// a batch it would push past the item limit is kept without it,
		// and read from its body.
		delete(item, formAttr)
	}
	if size := itemSize(item); size > maxItemBytes {
		return fmt.Errorf("put batch %s/%d: %d bytes compressed is over DynamoDB's item limit of %d", b.Node, b.Seq, size, maxItemBytes)
	}
	what := fmt.Sprintf("put batch %s/%d", b.Node, b.Seq)
	// The receipt first: a stored batch always has one (one that outlives
	// a failed put points at nothing, and a day's reader skips it).
	if err := s.putReceipt(ctx, b); err != nil {
		return wrap(what, err)
	}
	if err := s.putNew(ctx, "PutBatch", item); err != nil {
		return wrap(what, err)
	}
	return wrap(what, s.voidDigest(ctx, b))
}

// decodeBatch reads a batch item, inflating its body.
func decodeBatch(it map[string]types.AttributeValue) (store.BatchRecord, error) {
	var b store.BatchRecord
	if err := unmarshal(it, &b); err != nil {
		return b, err
	}
	if enc, ok := it[bodyEncAttr].(*types.AttributeValueMemberS); ok {
		if enc.Value != bodyEncDeflate {
			return b, fmt.Errorf("batch %s/%d: unknown body encoding %q", b.Node, b.Seq, enc.Value)
		}
		body, err := inflate(b.Body)
		if err != nil {
			return b, fmt.Errorf("batch %s/%d: %w", b.Node, b.Seq, err)
		}
		b.Body = body
	}
	return b, nil
}

func (s *Store) expired(b store.BatchRecord) bool {
	return !b.ExpiresAt.IsZero() && !s.now().Before(b.ExpiresAt)
}

func (s *Store) GetBatch(ctx context.Context, node string, seq uint64) (store.BatchRecord, error) {
	var it rawItem
	err := s.get(ctx, "GetBatch", nodePK(node), seqSK(seq), true, &it)
	var b store.BatchRecord
	if err == nil {
		b, err = decodeBatch(it.m)
	}
	if err == nil && s.expired(b) {
		err = store.ErrNotFound
	}
	return b, wrap(fmt.Sprintf("get batch %s/%d", node, seq), err)
}

func (s *Store) ListBatches(ctx context.Context, node string, fromSeq, toSeq uint64) ([]store.BatchRecord, error) {
	var out []store.BatchRecord
	if fromSeq > toSeq {
		return nil, nil
	}
	err := s.query(ctx, "ListBatches", "", nodePK(node), seqSK(fromSeq), seqSK(toSeq), false, func(it map[string]types.AttributeValue) error {
		b, err := decodeBatch(it)
		if err != nil {
			return err
		}
		if !s.expired(b) {
			out = append(out, b)
		}
		return nil
	})
	return out, wrap("list batches of "+node, err)
}

// ---- incidents

func (s *Store) CreateIncident(ctx context.Context, inc store.Incident) error {
	sk, err := incidentSK(inc.ID)
	if err != nil {
		return fmt.Errorf("create incident: %w", err)
	}
	inc.Version = 1
	item, err := incidentItem(inc, sk)
	if err != nil {
		return err
	}
	return wrap("create incident "+inc.ID, s.putNew(ctx, "CreateIncident", item))
}

func (s *Store) GetIncident(ctx context.Context, node, id string) (store.Incident, error) {
	var inc store.Incident
	sk, err := incidentSK(id)
	if err != nil {
		// An id that cannot exist names nothing.
		return inc, fmt.Errorf("get incident: %v: %w", err, store.ErrNotFound)
	}
	err = s.get(ctx, "GetIncident", nodePK(node), sk, true, &inc)
	return inc, wrap("get incident "+id, err)
}

func (s *Store) UpdateIncident(ctx context.Context, inc store.Incident, prev int64) error {
	sk, err := incidentSK(inc.ID)
	if err != nil {
		return fmt.Errorf("update incident: %v: %w", err, store.ErrNotFound)
	}
	if prev < 1 {
		return fmt.Errorf("update incident %s: previous version %d: %w", inc.ID, prev, store.ErrConflict)
	}
	inc.Version = prev + 1
	item, err := incidentItem(inc, sk)
	if err != nil {
		return err
	}
	// attribute_exists keeps a versioned update from creating a record.
	err = s.put(ctx, "UpdateIncident", item, "attribute_exists(#pk) AND #v = :prev", map[string]types.AttributeValue{":prev": num(prev)})
	if err == errCond {
		// Lost a race, or nothing there? One read tells (rare path).
		var cur store.Incident
		if gerr := s.get(ctx, "UpdateIncident", nodePK(inc.Node), sk, true, &cur); errors.Is(gerr, store.ErrNotFound) {
			return fmt.Errorf("update incident %s: %w", inc.ID, store.ErrNotFound)
		}
		return fmt.Errorf("update incident %s: %w", inc.ID, store.ErrConflict)
	}
	return wrap("update incident "+inc.ID, err)
}

func (s *Store) ListIncidents(ctx context.Context, node string, from, to time.Time) ([]store.Incident, error) {
	var out []store.Incident
	keep := func(it map[string]types.AttributeValue) error {
		var inc store.Incident
		if err := unmarshal(it, &inc); err != nil {
			return err
		}
		if inc.Start.Before(to) && (inc.Open() || inc.End.After(from)) {
			out = append(out, inc)
		}
		return nil
	}
	// Incidents are keyed by start: read those that started before `to` and
	// keep the ones still open or ended after `from`. Every node's at once
	// come from the index, where all incidents are ordered by start.
	var err error
	if node == "" {
		err = s.query(ctx, "ListIncidents", IndexName, incidentsPK, "0", tkey(to), false, keep)
	} else {
		err = s.query(ctx, "ListIncidents", "", nodePK(node), "INC#", "INC#"+tkey(to), false, keep)
	}
	if err != nil {
		return nil, wrap("list incidents", err)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Start.Before(out[j].Start) })
	return out, nil
}

// ---- heartbeat runs

func (s *Store) PutRun(ctx context.Context, r store.HeartbeatRun) error {
	item, err := marshal(r, nodePK(r.Node), "RUN#"+tkey(r.From), nil)
	if err != nil {
		return err
	}
	return wrap("put run of "+r.Node, s.putNew(ctx, "PutRun", item))
}

func (s *Store) ListRuns(ctx context.Context, node string, from, to time.Time) ([]store.HeartbeatRun, error) {
	var out []store.HeartbeatRun
	err := s.query(ctx, "ListRuns", "", nodePK(node), "RUN#", "RUN#"+tkey(to), false, func(it map[string]types.AttributeValue) error {
		var r store.HeartbeatRun
		if err := unmarshal(it, &r); err != nil {
			return err
		}
		// Same overlap rule as the embedded store: a zero-length run at
		// `from` counts.
		if r.From.Before(to) && (r.To.After(from) || r.To.Equal(from) && r.From.Equal(from)) {
			out = append(out, r)
		}
		return nil
	})
	return out, wrap("list runs of "+node, err)
}

// ---- alerts

// alertItem adds the sparse index keys while the alert is unsent.
func alertItem(a store.AlertRecord) (map[string]types.AttributeValue, error) {
	var extra map[string]types.AttributeValue
	if a.SentAt.IsZero() {
		extra = map[string]types.AttributeValue{
			IndexPartitionKey: str(pendingPK),
			IndexSortKey:      str(strings.TrimSuffix(tkey(a.CreatedAt)+"#"+a.Node+"#"+a.IncidentID+"#"+string(a.Kind)+"#"+a.Channel, "#")),
		}
	}
	return marshal(a, nodePK(a.Node), alertSK(a.IncidentID, a.Kind, a.Channel), extra)
}

func (s *Store) CreateAlert(ctx context.Context, a store.AlertRecord) error {
	a.Version = 1
	item, err := alertItem(a)
	if err != nil {
		return err
	}
	return wrap("create alert", s.putNew(ctx, "CreateAlert", item))
}

func (s *Store) GetAlert(ctx context.Context, node, incidentID string, kind notify.AlertKind, channel string) (store.AlertRecord, error) {
	var a store.AlertRecord
	err := s.get(ctx, "GetAlert", nodePK(node), alertSK(incidentID, kind, channel), true, &a)
	return a, wrap("get alert", err)
}

func (s *Store) UpdateAlert(ctx context.Context, a store.AlertRecord, prev int64) error {
	if prev < 1 {
		return fmt.Errorf("update alert: previous version %d: %w", prev, store.ErrConflict)
	}
	a.Version = prev + 1
	item, err := alertItem(a)
	if err != nil {
		return err
	}
	err = s.put(ctx, "UpdateAlert", item, "attribute_exists(#pk) AND #v = :prev", map[string]types.AttributeValue{":prev": num(prev)})
	if err == errCond {
		return fmt.Errorf("update alert: %w", store.ErrConflict)
	}
	return wrap("update alert", err)
}

// ListPendingAlerts reads the sparse index. Index reads are eventually
// consistent: an alert sent a moment ago may still be listed, which is why
// the caller re-reads it (GetAlert) and updates it with its version.
func (s *Store) ListPendingAlerts(ctx context.Context) ([]store.AlertRecord, error) {
	var out []store.AlertRecord
	err := s.query(ctx, "ListPendingAlerts", IndexName, pendingPK, "", "", false, func(it map[string]types.AttributeValue) error {
		var a store.AlertRecord
		if err := unmarshal(it, &a); err != nil {
			return err
		}
		if a.SentAt.IsZero() {
			out = append(out, a)
		}
		return nil
	})
	return out, wrap("list pending alerts", err)
}

// ---- evidence

func (s *Store) PutEvidence(ctx context.Context, e store.Evidence) error {
	item, err := marshal(e, nodePK(e.Node), evidenceSK(e), nil)
	if err != nil {
		return err
	}
	return wrap("put evidence", s.putNew(ctx, "PutEvidence", item))
}

func (s *Store) ListEvidence(ctx context.Context, node string, from, to time.Time) ([]store.Evidence, error) {
	var out []store.Evidence
	err := s.query(ctx, "ListEvidence", "", nodePK(node), "EV#"+tkey(from), "EV#"+tkey(to), false, func(it map[string]types.AttributeValue) error {
		var e store.Evidence
		if err := unmarshal(it, &e); err != nil {
			return err
		}
		if !e.At.Before(from) && e.At.Before(to) {
			out = append(out, e)
		}
		return nil
	})
	return out, wrap("list evidence of "+node, err)
}

// ---- backend runs

func (s *Store) PutBackendRun(ctx context.Context, r store.BackendRun, prev int64) (int64, error) {
	r.Version = prev + 1
	item, err := marshal(r, backendPK, "RUN#"+r.ID, nil)
	if err != nil {
		return 0, err
	}
	if err := s.putVersioned(ctx, "PutBackendRun", item, prev); err != nil {
		return 0, wrap("put backend run "+r.ID, err)
	}
	return r.Version, nil
}

// ListBackendRuns reads every backend run (a handful: a new one starts only
// after the backend was down) consistently, since the watchdog updates the
// current one with its version right after.
func (s *Store) ListBackendRuns(ctx context.Context, from, to time.Time) ([]store.BackendRun, error) {
	var out []store.BackendRun
	err := s.query(ctx, "ListBackendRuns", "", backendPK, "RUN#", "RUN$", true, func(it map[string]types.AttributeValue) error {
		var r store.BackendRun
		if err := unmarshal(it, &r); err != nil {
			return err
		}
		if r.Start.Before(to) && !r.LastTick.Before(from) {
			out = append(out, r)
		}
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Start.Before(out[j].Start) })
	return out, wrap("list backend runs", err)
}

func wrap(what string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", what, err)
}

var _ store.Store = (*Store)(nil)
