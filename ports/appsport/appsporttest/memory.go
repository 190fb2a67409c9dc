// Package appsporttest holds an in-memory fake of the application store and
// the contract suite every adapter of it must pass.
package appsporttest

import (
	"context"
	"slices"
	"sync"

	"github.com/feria/feria/core/apps"
	"github.com/feria/feria/ports/appsport"
)

// Memory implements appsport.Store in memory, for use-case tests.
type Memory struct {
	mu   sync.Mutex
	apps map[int64]apps.Application
}

var _ appsport.Store = (*Memory)(nil)

// NewMemory returns an empty store.
func NewMemory() *Memory { return &Memory{apps: map[int64]apps.Application{}} }

func (m *Memory) Upsert(_ context.Context, a apps.Application) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.apps[a.ID] = clone(a)
	return nil
}

func (m *Memory) Application(_ context.Context, id int64) (apps.Application, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	a, ok := m.apps[id]
	if !ok {
		return apps.Application{}, appsport.ErrNotFound
	}
	return clone(a), nil
}

func (m *Memory) Subscribers(_ context.Context, topic string, userID int64) ([]apps.Application, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := []apps.Application{}
	for _, a := range m.apps {
		if a.HasTopic(topic) && a.Granted(userID) {
			out = append(out, clone(a))
		}
	}
	slices.SortFunc(out, func(a, b apps.Application) int { return int(a.ID - b.ID) })
	return out, nil
}

func (m *Memory) Grant(_ context.Context, appID, userID int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	a, ok := m.apps[appID]
	if !ok {
		return appsport.ErrNotFound
	}
	if !a.Granted(userID) {
		a.Users = append(slices.Clone(a.Users), userID)
		m.apps[appID] = a
	}
	return nil
}

func clone(a apps.Application) apps.Application {
	a.RedirectURIs = slices.Clone(a.RedirectURIs)
	a.Topics = slices.Clone(a.Topics)
	a.Users = slices.Clone(a.Users)
	a.RetryDelaysMS = slices.Clone(a.RetryDelaysMS)
	return a
}

// Service is the appsport.Service other modules' use-case tests see: the
// applications of a Memory, put with their defaults and no user checks.
type Service struct{ *Memory }

var _ appsport.Service = Service{}

// NewService returns the service of a new Memory with apps in it.
func NewService(as ...apps.Application) Service {
	s := Service{NewMemory()}
	for _, a := range as {
		_ = s.Upsert(context.Background(), a.WithDefaults())
	}
	return s
}

// Put stores the application with its defaults.
func (s Service) Put(ctx context.Context, a apps.Application) (apps.Application, error) {
	a = a.WithDefaults()
	return a, s.Upsert(ctx, a)
}

// Application returns an application, or apps.ErrApplicationNotFound.
func (s Service) Application(ctx context.Context, id int64) (apps.Application, error) {
	a, err := s.Memory.Application(ctx, id)
	if err != nil {
		return a, apps.ErrApplicationNotFound
	}
	return a, nil
}
