package dynamo

import (
	"context"
	"sort"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/gpusla/gpusla/infra/store"
)

// Provider status page items (store.ProviderStatusStore), in the same table:
//
//	record            pk           sk                       read by
//	provider incident PROVSTATUS   INC#<contract>#<id>      GetItem; Query(PROVSTATUS, INC#…)
//	poll state        PROVSTATUS   POLL#<contract>          GetItem; Query(PROVSTATUS, POLL#…)
//
// One partition holds them all: a page lists tens of incidents and a
// renter has a few contracts, and the monthly export reads every one.
// Contract ids hold no '#', so INC#<contract># … INC#<contract>$ is exactly
// one contract's incidents.
const provPK = "PROVSTATUS"

func provIncSK(contract, id string) string { return "INC#" + contract + "#" + id }

func (s *Store) PutProviderIncident(ctx context.Context, inc store.ProviderIncident, prev int64) (int64, error) {
	inc.Version = prev + 1
	item, err := marshal(inc, provPK, provIncSK(inc.Contract, inc.ID()), nil)
	if err != nil {
		return 0, err
	}
	if err := s.putVersioned(ctx, "PutProviderIncident", item, prev); err != nil {
		return 0, wrap("put provider incident "+inc.Contract+"/"+inc.ID(), err)
	}
	return inc.Version, nil
}

func (s *Store) GetProviderIncident(ctx context.Context, contract, id string) (store.ProviderIncident, error) {
	var inc store.ProviderIncident
	// Consistent: a versioned write follows the read.
	err := s.get(ctx, "GetProviderIncident", provPK, provIncSK(contract, id), true, &inc)
	return inc, wrap("get provider incident "+contract+"/"+id, err)
}

func (s *Store) ListProviderIncidents(ctx context.Context, contract string, from, to time.Time) ([]store.ProviderIncident, error) {
	lo, hi := "INC#", "INC$"
	if contract != "" {
		lo, hi = "INC#"+contract+"#", "INC#"+contract+"$"
	}
	var out []store.ProviderIncident
	err := s.query(ctx, "ListProviderIncidents", "", provPK, lo, hi, false, func(it map[string]types.AttributeValue) error {
		var inc store.ProviderIncident
		if err := unmarshal(it, &inc); err != nil {
			return err
		}
		if inc.Overlaps(from, to) {
			out = append(out, inc)
		}
		return nil
	})
	store.SortProviderIncidents(out)
	return out, wrap("list provider incidents", err)
}

func (s *Store) GetStatusPoll(ctx context.Context, contract string) (store.StatusPoll, error) {
	var p store.StatusPoll
	err := s.get(ctx, "GetStatusPoll", provPK, "POLL#"+contract, true, &p)
	return p, wrap("get status poll "+contract, err)
}

func (s *Store) PutStatusPoll(ctx context.Context, p store.StatusPoll, prev int64) (int64, error) {
	p.Version = prev + 1
	item, err := marshal(p, provPK, "POLL#"+p.Contract, nil)
	if err != nil {
		return 0, err
	}
	if err := s.putVersioned(ctx, "PutStatusPoll", item, prev); err != nil {
		return 0, wrap("put status poll "+p.Contract, err)
	}
	return p.Version, nil
}

func (s *Store) ListStatusPolls(ctx context.Context) ([]store.StatusPoll, error) {
	var out []store.StatusPoll
	err := s.query(ctx, "ListStatusPolls", "", provPK, "POLL#", "POLL$", false, func(it map[string]types.AttributeValue) error {
		var p store.StatusPoll
		if err := unmarshal(it, &p); err != nil {
			return err
		}
		out = append(out, p)
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Contract < out[j].Contract })
	return out, wrap("list status polls", err)
}

var _ store.ProviderStatusStore = (*Store)(nil)
