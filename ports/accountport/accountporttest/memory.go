// Package accountporttest holds an in-memory fake of the account stores and
// the contract suite every adapter of them must pass.
package accountporttest

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"

	"github.com/feria/feria/core/account"
	"github.com/feria/feria/ports/accountport"
)

// Memory implements the account stores in memory, for use-case tests.
type Memory struct {
	mu      sync.Mutex
	users   map[int64]account.User
	tokens  map[string]account.Token
	refresh map[refreshKey]string
	codes   map[string]*code
}

// code is a stored authorization code and whether it was taken.
type code struct {
	account.AuthCode
	used bool
}

// refreshKey is whose refresh token it is: a user's, of one application.
type refreshKey struct{ user, app int64 }

var (
	_ accountport.Users  = (*Memory)(nil)
	_ accountport.Tokens = (*Memory)(nil)
	_ accountport.Codes  = (*Memory)(nil)
)

// NewMemory returns an empty store.
func NewMemory() *Memory {
	return &Memory{users: map[int64]account.User{}, tokens: map[string]account.Token{}, refresh: map[refreshKey]string{},
		codes: map[string]*code{}}
}

// SiteUsers lists up to limit users of the site, by id.
func (m *Memory) SiteUsers(_ context.Context, siteID string, limit int) ([]account.User, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := []account.User{}
	for _, u := range m.users {
		if u.SiteID == siteID {
			out = append(out, u)
		}
	}
	slices.SortFunc(out, func(a, b account.User) int { return cmp.Compare(a.ID, b.ID) })
	return out[:min(len(out), limit)], nil
}

// AddCode stores a code; its user must exist.
func (m *Memory) AddCode(_ context.Context, c account.AuthCode) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.users[c.UserID]; !ok {
		return accountport.ErrNotFound
	}
	m.codes[c.Hash] = &code{AuthCode: c}
	return nil
}

// Code returns an unused code.
func (m *Memory) Code(_ context.Context, hash string) (account.AuthCode, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.codes[hash]
	if !ok || c.used {
		return account.AuthCode{}, accountport.ErrNotFound
	}
	return c.AuthCode, nil
}

// TakeCode marks an unused, unexpired code used.
func (m *Memory) TakeCode(_ context.Context, hash string, now time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.codes[hash]
	if !ok || c.used || !now.Before(c.ExpiresAt) {
		return accountport.ErrNotFound
	}
	c.used = true
	return nil
}

func (m *Memory) UpsertUser(_ context.Context, u account.User) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if old, ok := m.users[u.ID]; ok {
		u.DateCreated = old.DateCreated
	}
	m.users[u.ID] = u
	return nil
}

func (m *Memory) User(_ context.Context, id int64) (account.User, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	u, ok := m.users[id]
	if !ok {
		return u, accountport.ErrNotFound
	}
	return u, nil
}

// Users returns the stored users among ids.
func (m *Memory) Users(_ context.Context, ids []int64) ([]account.User, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := []account.User{}
	seen := map[int64]bool{}
	for _, id := range ids {
		if u, ok := m.users[id]; ok && !seen[id] {
			seen[id] = true
			out = append(out, u)
		}
	}
	return out, nil
}

func (m *Memory) AddToken(_ context.Context, t account.Token) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.users[t.UserID]; !ok {
		return accountport.ErrNotFound
	}
	t.RevokedAt = nil
	m.tokens[t.Hash] = t
	return nil
}

func (m *Memory) Token(_ context.Context, hash string) (account.Token, string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.tokens[hash]
	if !ok {
		return t, "", accountport.ErrNotFound
	}
	return t, m.users[t.UserID].SiteID, nil
}

func (m *Memory) RevokeToken(_ context.Context, hash string, at time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.tokens[hash]
	if !ok {
		return accountport.ErrNotFound
	}
	t.RevokedAt = &at
	m.tokens[hash] = t
	return nil
}

func (m *Memory) SetRefresh(_ context.Context, userID, appID int64, hash string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.refresh[refreshKey{userID, appID}] = hash
	return nil
}

func (m *Memory) Refresh(_ context.Context, hash string) (int64, int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for k, h := range m.refresh {
		if h == hash {
			return k.user, k.app, nil
		}
	}
	return 0, 0, accountport.ErrNotFound
}

func (m *Memory) TakeRefresh(_ context.Context, hash string) (int64, int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for k, h := range m.refresh {
		if h == hash {
			delete(m.refresh, k)
			return k.user, k.app, nil
		}
	}
	return 0, 0, accountport.ErrNotFound
}
