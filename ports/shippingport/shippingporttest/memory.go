package shippingporttest

import (
	"context"
	"maps"
	"slices"
	"sync"

	"github.com/feria/feria/core/shipping"
	"github.com/feria/feria/ports/shippingport"
)

// Memory is an in-memory shippingport.Rates for use-case unit tests; it
// passes TestRates like the SQL stores do.
type Memory struct {
	mu    sync.Mutex
	rates map[string]shipping.Rates
	// Reads counts RatesOf calls, so that use-case tests can see that a
	// multi-item cost reads the rates once.
	Reads int
}

var _ shippingport.Rates = (*Memory)(nil)

// NewMemory returns an empty store: every site at its default.
func NewMemory() *Memory { return &Memory{rates: map[string]shipping.Rates{}} }

// PutRates stores a copy of a site's table.
func (m *Memory) PutRates(_ context.Context, r shipping.Rates) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.rates[r.SiteID] = clone(r)
	return nil
}

// RatesOf returns copies of the stored tables of the given sites.
func (m *Memory) RatesOf(_ context.Context, sites []string) (map[string]shipping.Rates, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.Reads++
	out := map[string]shipping.Rates{}
	for _, s := range sites {
		if r, ok := m.rates[s]; ok {
			out[s] = clone(r)
		}
	}
	return out, nil
}

// Reset forgets every table.
func (m *Memory) Reset(context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	clear(m.rates)
	return nil
}

func clone(r shipping.Rates) shipping.Rates {
	r.WeightTiers = slices.Clone(r.WeightTiers)
	r.ReputationDiscounts = maps.Clone(r.ReputationDiscounts)
	if r.ReputationDiscounts == nil {
		r.ReputationDiscounts = map[string]shipping.Decimal{}
	}
	return r
}
