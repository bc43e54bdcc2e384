package bolt

import (
	"context"
	"encoding/json"
	"sort"
	"time"

	"github.com/gpusla/gpusla/infra/store"
)

// Buckets of store.ProviderStatusStore, created on first use like the
// ticket desk's, so an older data folder opens unchanged. Incidents are
// keyed contract, 0, id; polls by contract.
var (
	bProvIncidents = []byte("provincidents")
	bStatusPolls   = []byte("statuspolls")
)

func (s *Store) PutProviderIncident(_ context.Context, inc store.ProviderIncident, prev int64) (int64, error) {
	if err := s.ensure(bProvIncidents); err != nil {
		return 0, err
	}
	inc.Version = prev + 1
	raw, err := json.Marshal(inc)
	if err == nil {
		err = s.putVersioned("PutProviderIncident", bProvIncidents, key(inc.Contract, inc.ID()), raw, prev, store.ErrConflict)
	}
	if err != nil {
		return 0, wrap("put provider incident "+inc.Contract+"/"+inc.ID(), err)
	}
	return inc.Version, nil
}

func (s *Store) GetProviderIncident(_ context.Context, contract, id string) (store.ProviderIncident, error) {
	var inc store.ProviderIncident
	if err := s.ensure(bProvIncidents); err != nil {
		return inc, err
	}
	return inc, wrap("get provider incident "+contract+"/"+id, s.get("GetProviderIncident", bProvIncidents, key(contract, id), &inc))
}

func (s *Store) ListProviderIncidents(_ context.Context, contract string, from, to time.Time) ([]store.ProviderIncident, error) {
	if err := s.ensure(bProvIncidents); err != nil {
		return nil, err
	}
	var prefix []byte
	if contract != "" {
		prefix = key(contract, "")
	}
	var out []store.ProviderIncident
	err := s.scan("ListProviderIncidents", bProvIncidents, prefix, nil, func(_, v []byte) (bool, error) {
		var inc store.ProviderIncident
		if err := json.Unmarshal(v, &inc); err != nil {
			return false, err
		}
		if inc.Overlaps(from, to) {
			out = append(out, inc)
		}
		return true, nil
	})
	store.SortProviderIncidents(out)
	return out, wrap("list provider incidents", err)
}

func (s *Store) GetStatusPoll(_ context.Context, contract string) (store.StatusPoll, error) {
	var p store.StatusPoll
	if err := s.ensure(bStatusPolls); err != nil {
		return p, err
	}
	return p, wrap("get status poll "+contract, s.get("GetStatusPoll", bStatusPolls, []byte(contract), &p))
}

func (s *Store) PutStatusPoll(_ context.Context, p store.StatusPoll, prev int64) (int64, error) {
	if err := s.ensure(bStatusPolls); err != nil {
		return 0, err
	}
	p.Version = prev + 1
	raw, err := json.Marshal(p)
	if err == nil {
		err = s.putVersioned("PutStatusPoll", bStatusPolls, []byte(p.Contract), raw, prev, store.ErrConflict)
	}
	if err != nil {
		return 0, wrap("put status poll "+p.Contract, err)
	}
	return p.Version, nil
}

func (s *Store) ListStatusPolls(_ context.Context) ([]store.StatusPoll, error) {
	if err := s.ensure(bStatusPolls); err != nil {
		return nil, err
	}
	var out []store.StatusPoll
	err := s.scan("ListStatusPolls", bStatusPolls, nil, nil, func(_, v []byte) (bool, error) {
		var p store.StatusPoll
		if err := json.Unmarshal(v, &p); err != nil {
			return false, err
		}
		out = append(out, p)
		return true, nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Contract < out[j].Contract })
	return out, wrap("list status polls", err)
}

var _ store.ProviderStatusStore = (*Store)(nil)
