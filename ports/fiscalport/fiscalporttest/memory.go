package fiscalporttest

import (
	"context"
	"sort"
	"sync"

	"github.com/feria/feria/core/fiscal"
	"github.com/feria/feria/ports/fiscalport"
)

// Memory is an in-memory fiscalport.Documents for use-case tests.
type Memory struct {
	mu   sync.Mutex
	docs []fiscal.Document
	had  map[int64]bool
}

var _ fiscalport.Documents = (*Memory)(nil)

// NewMemory returns an empty store.
func NewMemory() *Memory { return &Memory{had: map[int64]bool{}} }

func (m *Memory) ByPack(_ context.Context, packID int64) ([]fiscal.Document, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := []fiscal.Document{}
	for _, d := range m.docs {
		if d.PackID == packID {
			out = append(out, d)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].DateCreated.Equal(out[j].DateCreated) {
			return out[i].DateCreated.Before(out[j].DateCreated)
		}
		return out[i].FileType < out[j].FileType
	})
	return out, nil
}

func (m *Memory) Add(_ context.Context, docs []fiscal.Document) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	seen := map[[2]any]bool{}
	for _, d := range m.docs {
		seen[[2]any{d.PackID, d.FileType}] = true
	}
	for _, d := range docs {
		k := [2]any{d.PackID, d.FileType}
		if seen[k] {
			return fiscalport.ErrConflict
		}
		seen[k] = true
	}
	m.docs = append(m.docs, docs...)
	for _, d := range docs {
		m.had[d.PackID] = true
	}
	return nil
}

func (m *Memory) DeleteBySeller(ctx context.Context, packID, sellerID int64) ([]fiscal.Document, error) {
	all, _ := m.ByPack(ctx, packID)
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []fiscal.Document
	for _, d := range all {
		if d.SellerID == sellerID {
			out = append(out, d)
		}
	}
	keep := m.docs[:0]
	for _, d := range m.docs {
		if d.PackID != packID || d.SellerID != sellerID {
			keep = append(keep, d)
		}
	}
	m.docs = keep
	return out, nil
}

func (m *Memory) Stored(_ context.Context, keys []string) (map[string]bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string]bool{}
	for _, k := range keys {
		for _, d := range m.docs {
			if d.Key == k {
				out[k] = true
			}
		}
	}
	return out, nil
}

func (m *Memory) EverHad(_ context.Context, packID int64) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.had[packID], nil
}
