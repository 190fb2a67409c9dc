package flexporttest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/feria/feria/core/flex"
	"github.com/feria/feria/ports/flexport"
)

// Memory is an in-memory flexport.Store for use-case unit tests; it passes
// TestStore like the SQL stores do.
type Memory struct {
	mu        sync.Mutex
	subs      map[int64]flex.Subscription
	shipments map[int64]flex.Shipment
	items     map[string]time.Time
}

var _ flexport.Store = (*Memory)(nil)

// NewMemory returns an empty in-memory store.
func NewMemory() *Memory {
	return &Memory{subs: map[int64]flex.Subscription{}, shipments: map[int64]flex.Shipment{}, items: map[string]time.Time{}}
}

// Env is the contract suite's view of the store; users and orders need no
// table here.
func (m *Memory) Env() Env {
	return Env{Store: m, AddUser: func(context.Context, int64) {}, AddOrder: func(context.Context, int64, int64, int64) {},
		AddItem: func(context.Context, string, int64) {}}
}

// UpsertSubscription stores a subscription after check accepts the
// subscriptions of its user and former user; an existing one keeps its
// creation_date. The mutex is the lock.
func (m *Memory) UpsertSubscription(_ context.Context, s flex.Subscription, check func([]flex.Subscription) error) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	old, exists := m.subs[s.ServiceID]
	var current []flex.Subscription
	for _, c := range m.subs {
		if c.UserID == s.UserID || exists && c.UserID == old.UserID {
			current = append(current, c)
		}
	}
	slices.SortFunc(current, func(a, b flex.Subscription) int { return int(a.ServiceID - b.ServiceID) })
	if err := check(current); err != nil {
		return err
	}
	if exists {
		s.CreationDate = old.CreationDate
	}
	m.subs[s.ServiceID] = s
	return nil
}

// ChangeSubscription applies change to a stored subscription's
// configuration under the mutex.
func (m *Memory) ChangeSubscription(_ context.Context, serviceID int64, change func(flex.Subscription) (flex.Subscription, error)) (flex.Subscription, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.subs[serviceID]
	if !ok {
		return s, fmt.Errorf("subscription %d: %w", serviceID, flexport.ErrNotFound)
	}
	changed, err := change(s)
	if err != nil {
		return flex.Subscription{}, err
	}
	s.Configuration = changed.Configuration
	m.subs[serviceID] = s
	return s, nil
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

// EnableItem records an item; false when it was already there.
func (m *Memory) EnableItem(_ context.Context, itemID string, at time.Time) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.items[itemID]; ok {
		return false, nil
	}
	m.items[itemID] = at
	return true, nil
}

// DisableItem forgets an item; false when it was not there.
func (m *Memory) DisableItem(_ context.Context, itemID string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.items[itemID]
	delete(m.items, itemID)
	return ok, nil
}

// ItemEnabled reports whether an item is recorded.
func (m *Memory) ItemEnabled(_ context.Context, itemID string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.items[itemID]
	return ok, nil
}
