package brandsporttest

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/feria/feria/core/brands"
	"github.com/feria/feria/ports/brandsport"
)

// Memory is an in-memory brandsport.Store for use-case unit tests; it passes
// TestStore like the SQL stores do.
type Memory struct {
	mu     sync.Mutex
	brands map[int64]brands.Brand
}

var _ brandsport.Store = (*Memory)(nil)

// NewMemory returns an empty in-memory store.
func NewMemory() *Memory { return &Memory{brands: map[int64]brands.Brand{}} }

// Env is the contract suite's view of the store; users need no table here.
func (m *Memory) Env() Env { return Env{Store: m, AddUser: func(context.Context, int64) {}} }

// UpsertBrand stores a brand with its users; an existing one keeps
// date_created.
func (m *Memory) UpsertBrand(_ context.Context, b brands.Brand) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if old, ok := m.brands[b.ID]; ok {
		b.DateCreated = old.DateCreated
	}
	b.Users = slices.Clone(b.Users)
	m.brands[b.ID] = b
	return nil
}

// Brand returns a stored brand.
func (m *Memory) Brand(_ context.Context, id int64) (brands.Brand, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.brands[id]
	if !ok {
		return b, fmt.Errorf("brand %d: %w", id, brandsport.ErrNotFound)
	}
	return b, nil
}

// BrandsOfUser lists the brands bound to a user, by id.
func (m *Memory) BrandsOfUser(_ context.Context, userID int64) ([]brands.Brand, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []brands.Brand
	for _, b := range m.brands {
		if slices.Contains(b.Users, userID) {
			out = append(out, b)
		}
	}
	slices.SortFunc(out, func(a, b brands.Brand) int { return int(a.ID - b.ID) })
	return out, nil
}
