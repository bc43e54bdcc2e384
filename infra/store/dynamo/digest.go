package dynamo

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/gpusla/gpusla/infra/store"
)

// Day digests: one item a node and day in the node's partition, sorted by
// the day, so a month's days are one Query of some thirty small items.

const digestDay = "20060102"

func digestSK(day time.Time) string { return "DIGEST#" + day.UTC().Format(digestDay) }

// A voided day's item holds voidedAttr (true) and no body; voidMarkAttr
// is the day's last void mark, kept by the digest sealed over it.
const (
	voidedAttr   = "is_void"
	voidMarkAttr = "void_mark"
)

func (s *Store) PutDigest(ctx context.Context, d store.DayDigest) error {
	day := store.DayOf(d.Day)
	what := fmt.Sprintf("put digest %s/%s", d.Node, day.Format(time.DateOnly))
	if !day.Equal(d.Day) {
		return fmt.Errorf("%s: %s is not a UTC day's first instant", what, d.Day)
	}
	if d.Voided {
		return fmt.Errorf("%s: a voided day is the store's to write", what)
	}
	item := map[string]types.AttributeValue{
		PartitionKey: str(nodePK(d.Node)), SortKey: str(digestSK(day)),
		"node": str(d.Node), "day": str(day.Format(time.RFC3339)), "body": &types.AttributeValueMemberB{Value: d.Body},
	}
	if !d.ExpiresAt.IsZero() {
		// As a batch's: whole seconds, rounded up.
		sec := d.ExpiresAt.Unix()
		if d.ExpiresAt.Nanosecond() > 0 {
			sec++
		}
		item["expires_at"] = str(d.ExpiresAt.UTC().Format(time.RFC3339Nano))
		item[TTLAttribute] = num(sec)
	}
	if size := itemSize(item); size > maxItemBytes {
		return fmt.Errorf("%s: %d bytes is over DynamoDB's item limit of %d", what, size, maxItemBytes)
	}
	if d.Void == "" {
		return wrap(what, s.putNew(ctx, "PutDigest", item))
	}
	// Over a voided day: only if it is still voided by the mark the
	// writer saw before it read the day's records.
	item[voidMarkAttr] = str(d.Void)
	err := s.put(ctx, "PutDigest", item, voidedAttr+" = :t AND "+voidMarkAttr+" = :m",
		map[string]types.AttributeValue{":t": &types.AttributeValueMemberBOOL{Value: true}, ":m": str(d.Void)})
	if err == errCond {
		err = store.ErrExists
	}
	return wrap(what, err)
}

func (s *Store) EachDigest(ctx context.Context, node string, from, to time.Time, fn func(*store.DayDigest) error) error {
	now := s.now()
	lo, hi := digestSK(store.DayOf(from)), digestSK(to)
	return s.each(ctx, "EachDigest", "walk digests of "+node, nodePK(node), lo, hi, func(it map[string]types.AttributeValue) error {
		d, err := decodeDigest(node, it)
		if err != nil {
			return err
		}
		if d.Day.Before(from) || !d.Day.Before(to) || (!d.ExpiresAt.IsZero() && !now.Before(d.ExpiresAt)) {
			return nil
		}
		return called(fn(d))
	})
}

// decodeDigest reads a digest item; one it cannot read (or of another
// node or day than its key says) is an error naming its node and day.
func decodeDigest(node string, it map[string]types.AttributeValue) (*store.DayDigest, error) {
	sk, _ := it[SortKey].(*types.AttributeValueMemberS)
	key := "?"
	if sk != nil {
		key = sk.Value
		if t, err := time.Parse(digestDay, strings.TrimPrefix(sk.Value, "DIGEST#")); err == nil {
			key = t.Format(time.DateOnly)
		}
	}
	bad := func(why string) error { return fmt.Errorf("digest of %s, day %s: damaged: %s", node, key, why) }
	d := &store.DayDigest{}
	n, ok := it["node"].(*types.AttributeValueMemberS)
	if !ok || n.Value != node {
		return nil, bad("no node attribute, or another node's")
	}
	d.Node = node
	day, ok := it["day"].(*types.AttributeValueMemberS)
	t, err := time.Parse(time.RFC3339, stringOf(day))
	if !ok || err != nil || sk == nil || digestSK(t) != sk.Value || !store.DayOf(t).Equal(t) {
		return nil, bad("no day attribute, or not the key's")
	}
	d.Day = t.UTC()
	if v, ok := it[voidMarkAttr]; ok {
		m, ok := v.(*types.AttributeValueMemberS)
		if !ok || m.Value == "" {
			return nil, bad("void mark not a string")
		}
		d.Void = m.Value
	}
	if v, ok := it[voidedAttr]; ok {
		b, ok := v.(*types.AttributeValueMemberBOOL)
		if !ok || !b.Value || d.Void == "" {
			return nil, bad("voided without a void mark")
		}
		d.Voided = true
	}
	body, ok := it["body"].(*types.AttributeValueMemberB)
	switch {
	case d.Voided && ok:
		return nil, bad("voided with a body")
	case !d.Voided && !ok:
		return nil, bad("no body")
	case ok:
		d.Body = body.Value
		if d.Body == nil {
			d.Body = []byte{}
		}
	}
	if e, ok := it["expires_at"]; ok {
		es, _ := e.(*types.AttributeValueMemberS)
		if d.ExpiresAt, err = time.Parse(time.RFC3339Nano, stringOf(es)); es == nil || err != nil {
			return nil, bad("expires_at not a time")
		}
	}
	if ttl, ok := it[TTLAttribute].(*types.AttributeValueMemberN); ok && d.ExpiresAt.IsZero() {
		return nil, bad("ttl " + ttl.Value + " without expires_at")
	}
	return d, nil
}

func stringOf(v *types.AttributeValueMemberS) string {
	if v == nil {
		return ""
	}
	return v.Value
}

var _ store.Digests = (*Store)(nil)
