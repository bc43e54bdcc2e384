package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/probe/wire"
	"github.com/gpusla/gpusla/sla/events"
)

// NewNode is what `gpusla node add` asks for.
type NewNode struct {
	ID           string
	Provider     string
	Contract     string
	OrderedAt    time.Time
	GPUModel     string
	GPUCount     int
	GPUMemoryMiB int
	// GPUDriver is the NVIDIA driver ordered ("580.159.04", or "580" for
	// any 580 release); empty when the order names none.
	GPUDriver         string
	PricePerHour      float64
	Currency          string
	HeartbeatInterval time.Duration // default DefaultHeartbeatInterval
	PushInterval      time.Duration // default DefaultPushInterval
	Grace             time.Duration // default DefaultGrace
	Demo              bool
	// InstanceID and Region: the provider's names for the node and where
	// it runs, which a claim quotes (optional).
	InstanceID, Region string
}

// Validate fills defaults and checks every field, naming the wrong one.
func (n *NewNode) Validate() error {
	bad := func(f, format string, a ...any) error { return Errorf(EInvalid, f, format, a...) }
	if n.HeartbeatInterval == 0 {
		n.HeartbeatInterval = DefaultHeartbeatInterval
	}
	if n.PushInterval == 0 {
		n.PushInterval = DefaultPushInterval
	}
	if n.Grace == 0 {
		n.Grace = DefaultGrace
	}
	switch {
	case !wire.ValidNodeID(n.ID):
		return bad("id", "%q is not a node id (letters, digits, '.', '_', '-'; 1 to 64)", n.ID)
	case n.Provider == "":
		return bad("provider", "missing")
	case n.Contract == "":
		return bad("contract", "missing")
	case n.OrderedAt.IsZero():
		return bad("ordered_at", "missing")
	case n.GPUCount < 0:
		return bad("gpus", "must not be negative, got %d", n.GPUCount)
	case n.GPUDriver != "" && !wire.ValidDriverVersion(n.GPUDriver):
		return bad("gpu_driver", "%q is not a driver version (digits and dots, as nvidia-smi shows it: 580.159.04, or 580 for any 580 release)", n.GPUDriver)
	case n.PricePerHour < 0:
		return bad("price", "must not be negative, got %g", n.PricePerHour)
	case events.ProviderNameProblem(n.InstanceID) != "":
		return bad("instance_id", "%s", events.ProviderNameProblem(n.InstanceID))
	case events.ProviderNameProblem(n.Region) != "":
		return bad("region", "%s", events.ProviderNameProblem(n.Region))
	case n.HeartbeatInterval < time.Second:
		return bad("heartbeat_interval", "must be at least 1s, got %s", n.HeartbeatInterval)
	case n.PushInterval < n.HeartbeatInterval:
		return bad("push_interval", "%s is shorter than the heartbeat interval %s", n.PushInterval, n.HeartbeatInterval)
	case n.HeartbeatInterval+n.Grace <= n.PushInterval:
		// The watchdog calls a node unreachable at last receive + heartbeat
		// interval + grace; that must come after the next push is due.
		return bad("grace", "%s plus the heartbeat interval %s must exceed the push interval %s", n.Grace, n.HeartbeatInterval, n.PushInterval)
	}
	return nil
}

// AddNode registers a node and returns its secret, which is shown once and
// stored only sealed.
func (s *Service) AddNode(ctx context.Context, in NewNode) (store.Node, []byte, error) {
	if err := in.Validate(); err != nil {
		return store.Node{}, nil, err
	}
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		return store.Node{}, nil, fmt.Errorf("add node %s: %w", in.ID, err)
	}
	// The probe uses the hex form as its secret bytes, so what is printed
	// is exactly what is keyed.
	secret = []byte(hex.EncodeToString(secret))
	sealed, err := s.box.Seal(secret, in.ID)
	if err != nil {
		return store.Node{}, nil, err
	}
	n := store.Node{ID: in.ID, Provider: in.Provider, Contract: in.Contract, OrderedAt: in.OrderedAt.UTC(),
		GPUModel: in.GPUModel, GPUCount: in.GPUCount, GPUMemoryMiB: in.GPUMemoryMiB, GPUDriver: in.GPUDriver,
		PricePerHour: in.PricePerHour, Currency: in.Currency, HeartbeatInterval: in.HeartbeatInterval, PushInterval: in.PushInterval, Grace: in.Grace,
		SealedSecret: sealed, CreatedAt: s.Now(), Demo: in.Demo, InstanceID: in.InstanceID, Region: in.Region}
	if err := s.store.CreateNode(ctx, n); err != nil {
		if errors.Is(err, store.ErrExists) {
			return store.Node{}, nil, Errorf(EConflict, "id", "node %q is already registered", in.ID)
		}
		return store.Node{}, nil, err
	}
	s.log.Info("node registered", "node", n.ID, "provider", n.Provider, "contract", n.Contract)
	return n, secret, nil
}
