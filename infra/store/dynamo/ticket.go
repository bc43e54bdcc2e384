package dynamo

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/gpusla/gpusla/infra/store"
)

// Ticket desk items (app.TicketStore), in the same table:
//
//	record     pk                  sk              read by
//	ticket     TICKETS             TICKET#<id>     GetItem; Query(TICKETS) lists all
//	api key    APIKEYS             KEY#<id>        GetItem; Query(APIKEYS)
//	claim      CLAIM#<sha256(key)> CLAIM           conditional Put only (TTL attribute)
//
// An open ticket also carries gsi1pk=TICKETS_OPEN, gsi1sk=<opened>#<id>:
// the watchdog's per-minute list of open tickets is one Query of the
// sparse index that reads only open tickets, not the whole history. A
// closed ticket is written without those attributes and leaves the index.
const (
	ticketsPK     = "TICKETS"
	ticketsOpenPK = "TICKETS_OPEN"
	apiKeysPK     = "APIKEYS"
	claimSK       = "CLAIM"
)

func ticketSK(id string) string { return "TICKET#" + id }

func ticketItem(t store.Ticket) (map[string]types.AttributeValue, error) {
	var extra map[string]types.AttributeValue
	if t.Open {
		extra = map[string]types.AttributeValue{
			IndexPartitionKey: str(ticketsOpenPK),
			IndexSortKey:      str(tkey(t.Opened) + "#" + t.ID),
		}
	}
	return marshal(t, ticketsPK, ticketSK(t.ID), extra)
}

func (s *Store) CreateTicket(ctx context.Context, t store.Ticket) error {
	t.Version = 1
	item, err := ticketItem(t)
	if err != nil {
		return err
	}
	return wrap("create ticket "+t.ID, s.putNew(ctx, "CreateTicket", item))
}

func (s *Store) GetTicket(ctx context.Context, id string) (store.Ticket, error) {
	var t store.Ticket
	// Consistent: a versioned update follows the read.
	err := s.get(ctx, "GetTicket", ticketsPK, ticketSK(id), true, &t)
	return t, wrap("get ticket "+id, err)
}

func (s *Store) UpdateTicket(ctx context.Context, t store.Ticket, prev int64) error {
	if prev < 1 {
		return fmt.Errorf("update ticket %s: previous version %d: %w", t.ID, prev, store.ErrConflict)
	}
	t.Version = prev + 1
	item, err := ticketItem(t)
	if err != nil {
		return err
	}
	err = s.put(ctx, "UpdateTicket", item, "attribute_exists(#pk) AND #v = :prev", map[string]types.AttributeValue{":prev": num(prev)})
	if err == errCond {
		var cur store.Ticket
		if gerr := s.get(ctx, "UpdateTicket", ticketsPK, ticketSK(t.ID), true, &cur); errors.Is(gerr, store.ErrNotFound) {
			return fmt.Errorf("update ticket %s: %w", t.ID, store.ErrNotFound)
		}
		return fmt.Errorf("update ticket %s: %w", t.ID, store.ErrConflict)
	}
	return wrap("update ticket "+t.ID, err)
}

func (s *Store) ListTickets(ctx context.Context, openOnly bool) ([]store.Ticket, error) {
	var out []store.Ticket
	keep := func(it map[string]types.AttributeValue) error {
		var t store.Ticket
		if err := unmarshal(it, &t); err != nil {
			return err
		}
		if !openOnly || t.Open {
			out = append(out, t)
		}
		return nil
	}
	var err error
	if openOnly {
		err = s.query(ctx, "ListTickets", IndexName, ticketsOpenPK, "", "", false, keep)
	} else {
		err = s.query(ctx, "ListTickets", "", ticketsPK, "", "", false, keep)
	}
	if err != nil {
		return nil, wrap("list tickets", err)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Opened.Equal(out[j].Opened) {
			return out[i].Opened.Before(out[j].Opened)
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

// ---- API keys

func (s *Store) CreateAPIKey(ctx context.Context, k store.APIKey) error {
	k.Version = 1
	item, err := marshal(k, apiKeysPK, "KEY#"+k.ID, nil)
	if err != nil {
		return err
	}
	return wrap("create api key "+k.ID, s.putNew(ctx, "CreateAPIKey", item))
}

func (s *Store) GetAPIKey(ctx context.Context, id string) (store.APIKey, error) {
	var k store.APIKey
	// Consistent, so a revoked key stops working at once.
	err := s.get(ctx, "GetAPIKey", apiKeysPK, "KEY#"+id, true, &k)
	return k, wrap("get api key "+id, err)
}

func (s *Store) UpdateAPIKey(ctx context.Context, k store.APIKey, prev int64) error {
	if prev < 1 {
		return fmt.Errorf("update api key %s: previous version %d: %w", k.ID, prev, store.ErrConflict)
	}
	k.Version = prev + 1
	item, err := marshal(k, apiKeysPK, "KEY#"+k.ID, nil)
	if err != nil {
		return err
	}
	err = s.put(ctx, "UpdateAPIKey", item, "attribute_exists(#pk) AND #v = :prev", map[string]types.AttributeValue{":prev": num(prev)})
	if err == errCond {
		var cur store.APIKey
		if gerr := s.get(ctx, "UpdateAPIKey", apiKeysPK, "KEY#"+k.ID, true, &cur); errors.Is(gerr, store.ErrNotFound) {
			return fmt.Errorf("update api key %s: %w", k.ID, store.ErrNotFound)
		}
		return fmt.Errorf("update api key %s: %w", k.ID, store.ErrConflict)
	}
	return wrap("update api key "+k.ID, err)
}

func (s *Store) ListAPIKeys(ctx context.Context) ([]store.APIKey, error) {
	var out []store.APIKey
	err := s.query(ctx, "ListAPIKeys", "", apiKeysPK, "", "", false, func(it map[string]types.AttributeValue) error {
		var k store.APIKey
		if err := unmarshal(it, &k); err != nil {
			return err
		}
		out = append(out, k)
		return nil
	})
	return out, wrap("list api keys", err)
}

// ---- one-time claims

// ClaimOnce is a put whose condition admits an absent item or one whose
// expiry has passed (DynamoDB's TTL deletes late, so the condition, not the
// deletion, decides). The key is hashed: it may be long and hold anything.
func (s *Store) ClaimOnce(ctx context.Context, key string, expires time.Time) error {
	h := sha256.Sum256([]byte(key))
	sec := expires.Unix()
	if expires.Nanosecond() > 0 {
		sec++
	}
	item := map[string]types.AttributeValue{
		PartitionKey: str("CLAIM#" + hex.EncodeToString(h[:])),
		SortKey:      str(claimSK),
		TTLAttribute: num(sec),
	}
	in := &dynamodb.PutItemInput{
		TableName:                aws.String(s.table),
		Item:                     item,
		ConditionExpression:      aws.String("attribute_not_exists(#pk) OR #ttl <= :now"),
		ExpressionAttributeNames: map[string]string{"#pk": PartitionKey, "#ttl": TTLAttribute},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":now": num(s.now().Unix()),
		},
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
	}
	out, err := s.db.PutItem(ctx, in)
	s.ops.Add("ClaimOnce", store.OpWrite, 1)
	estimate := writeUnits(itemSize(item))
	if err != nil {
		s.countUnits("ClaimOnce", store.OpWrite, nil, estimate)
		if isCondFailure(err) {
			s.ops.Add("ClaimOnce", store.OpCondFailure, 1)
			return fmt.Errorf("claim: %w", store.ErrExists)
		}
		return fmt.Errorf("claim: %w", err)
	}
	s.countUnits("ClaimOnce", store.OpWrite, out.ConsumedCapacity, estimate)
	return nil
}

var _ store.TicketStore = (*Store)(nil)
