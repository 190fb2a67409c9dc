// Package worldsporttest is an in-memory Registry and the contract suite
// every worldsport.Registry passes.
package worldsporttest

import (
	"context"
	"sort"
	"sync"
	"time"

	"github.com/feria/feria/core/paging"
	"github.com/feria/feria/core/worlds"
	"github.com/feria/feria/ports/worldsport"
)

// Registry is a worldsport.Registry in memory.
type Registry struct {
	mu sync.Mutex
	m  map[string]worlds.World
}

var _ worldsport.Registry = (*Registry)(nil)

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{m: map[string]worlds.World{}} }

func (r *Registry) Create(_ context.Context, w worlds.World, max int) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.m[w.Name]; ok {
		return worldsport.ErrExists
	}
	if max > 0 && len(r.m) >= max {
		return worldsport.ErrFull
	}
	r.m[w.Name] = w
	return nil
}

func (r *Registry) SetKey(_ context.Context, name, key string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	w, ok := r.m[name]
	if !ok {
		return worldsport.ErrNotFound
	}
	w.SandboxKey = key
	r.m[name] = w
	return nil
}

func (r *Registry) Get(_ context.Context, name string) (worlds.World, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	w, ok := r.m[name]
	if !ok {
		return worlds.World{}, worldsport.ErrNotFound
	}
	return w, nil
}

func (r *Registry) List(_ context.Context, p paging.Request) ([]worlds.World, int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	all := make([]worlds.World, 0, len(r.m))
	for _, w := range r.m {
		all = append(all, w)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Name < all[j].Name })
	from := min(p.Offset, len(all))
	to := min(from+p.Limit, len(all))
	return all[from:to], len(all), nil
}

func (r *Registry) Delete(_ context.Context, name string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.m[name]; !ok {
		return worldsport.ErrNotFound
	}
	delete(r.m, name)
	return nil
}

func (r *Registry) Touch(_ context.Context, name string, at time.Time) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if w, ok := r.m[name]; ok && at.After(w.LastUsedAt) {
		w.LastUsedAt = at
		r.m[name] = w
	}
	return nil
}

func (r *Registry) Idle(_ context.Context, before time.Time) ([]string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, w := range r.m {
		if w.LastUsedAt.Before(before) {
			out = append(out, w.Name)
		}
	}
	sort.Strings(out)
	return out, nil
}
