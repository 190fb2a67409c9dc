package flexporttest

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/feria/feria/core/flex"
	"github.com/feria/feria/ports/flexport"
)

// Memory is an in-memory flexport.Store for use-case unit tests; it passes
// TestStore like the SQL stores do.
type Memory struct {
	mu        sync.Mutex
	subs      map[int64]flex.Subscription
	shipments map[int64]flex.Shipment
}

var _ flexport.Store = (*Memory)(nil)

// NewMemory returns an empty in-memory store.
func NewMemory() *Memory {
	return &Memory{subs: map[int64]flex.Subscription{}, shipments: map[int64]flex.Shipment{}}
}

// Env is the contract suite's view of the store; users and orders need no
// table here.
func (m *Memory) Env() Env {
	return Env{Store: m, AddUser: func(context.Context, int64) {}, AddOrder: func(context.Context, int64, int64, int64) {}}
}

// UpsertSubscription stores a subscription; an existing one keeps its
// creation_date.
func (m *Memory) UpsertSubscription(_ context.Context, s flex.Subscription) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if old, ok := m.subs[s.ServiceID]; ok {
		s.CreationDate = old.CreationDate
	}
	m.subs[s.ServiceID] = s
	return nil
}

// Subscription returns a stored subscription.
func (m *Memory) Subscription(_ context.Context, serviceID int64) (flex.Subscription, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.subs[serviceID]
	if !ok {
		return s, fmt.Errorf("subscription %d: %w", serviceID, flexport.ErrNotFound)
	}
	return s, nil
}

// SubscriptionsOfUser lists a user's subscriptions by service id.
func (m *Memory) SubscriptionsOfUser(_ context.Context, userID int64) ([]flex.Subscription, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []flex.Subscription
	for _, s := range m.subs {
		if s.UserID == userID {
			out = append(out, s)
		}
	}
	slices.SortFunc(out, func(a, b flex.Subscription) int { return int(a.ServiceID - b.ServiceID) })
	return out, nil
}

// UpsertShipment stores a shipment.
func (m *Memory) UpsertShipment(_ context.Context, s flex.Shipment) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s.DriverID != nil {
		d := *s.DriverID
		s.DriverID = &d
	}
	m.shipments[s.ID] = s
	return nil
}

// Shipment returns a stored shipment.
func (m *Memory) Shipment(_ context.Context, id int64) (flex.Shipment, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.shipments[id]
	if !ok {
		return s, fmt.Errorf("shipment %d: %w", id, flexport.ErrNotFound)
	}
	return s, nil
}
