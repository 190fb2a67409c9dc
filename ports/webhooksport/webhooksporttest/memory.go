// Package webhooksporttest holds in-memory fakes of the webhooks ports (the
// store, a sender, and the Changes other modules tell) and the contract
// suite every store must pass.
package webhooksporttest

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/feria/feria/core/paging"
	"github.com/feria/feria/core/webhooks"
	"github.com/feria/feria/ports/webhooksport"
)

// Memory implements webhooksport.Store in memory, for use-case tests.
type Memory struct {
	mu       sync.Mutex
	states   map[[2]string]string
	byID     map[string]*stored
	seq      int
	requests map[string]webhooks.Request
}

type stored struct {
	seq int
	n   webhooks.Notification
}

var _ webhooksport.Store = (*Memory)(nil)

// NewMemory returns an empty store.
func NewMemory() *Memory {
	return &Memory{states: map[[2]string]string{}, byID: map[string]*stored{}, requests: map[string]webhooks.Request{}}
}

func (m *Memory) SwapState(_ context.Context, topic, resource, fp string) (bool, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := [2]string{topic, resource}
	old, ok := m.states[k]
	m.states[k] = fp
	return !ok, ok && old != fp, nil
}

func (m *Memory) Add(_ context.Context, ns []webhooks.Notification) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, n := range ns {
		m.seq++
		n.Deliveries = nil
		m.byID[n.ID] = &stored{seq: m.seq, n: n}
	}
	return nil
}

func (m *Memory) Notification(_ context.Context, id string) (webhooks.Notification, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.byID[id]
	if !ok {
		return webhooks.Notification{}, webhooksport.ErrNotFound
	}
	return clone(s.n), nil
}

func clone(n webhooks.Notification) webhooks.Notification {
	n.Deliveries = slices.Clone(n.Deliveries)
	return n
}

func finished(state string) bool { return state == webhooks.Delivered || state == webhooks.Missed }

func (m *Memory) StartAttempt(_ context.Context, id string, d webhooks.Delivery, req webhooks.Request) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.byID[id]
	if !ok || finished(s.n.State) || s.n.Attempts != d.Attempt-1 {
		return false, nil
	}
	if k := len(s.n.Deliveries); k > 0 && !s.n.Deliveries[k-1].Done {
		return false, nil
	}
	sent := time.Time(d.At)
	d.Done = false
	s.n.Attempts, s.n.Sent, s.n.Due = d.Attempt, &sent, nil
	s.n.Request = &req
	s.n.Deliveries = append(s.n.Deliveries, d)
	return true, nil
}

func (m *Memory) FinishAttempt(_ context.Context, n webhooks.Notification, d webhooks.Delivery) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.byID[n.ID]
	if !ok {
		return false, nil
	}
	k := len(s.n.Deliveries)
	if finished(s.n.State) || s.n.Attempts != d.Attempt || k == 0 || s.n.Deliveries[k-1].Done {
		return false, nil
	}
	last := &s.n.Deliveries[k-1]
	last.HTTPCode, last.DurationMS, last.Error, last.Done = d.HTTPCode, d.DurationMS, d.Error, true
	s.n.State, s.n.Due, s.n.MissedAt, s.n.Response = n.State, n.Due, n.MissedAt, n.Response
	return true, nil
}

func (m *Memory) match(f webhooksport.Filter) []*stored {
	var out []*stored
	for _, s := range m.byID {
		if (f.AppID == 0 || s.n.AppID == f.AppID) && (f.Topic == "" || s.n.Topic == f.Topic) {
			out = append(out, s)
		}
	}
	slices.SortFunc(out, func(a, b *stored) int { return a.seq - b.seq })
	return out
}

func (m *Memory) List(_ context.Context, f webhooksport.Filter, limit int) ([]webhooks.Notification, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	all := m.match(f)
	if len(all) > limit {
		all = all[len(all)-limit:]
	}
	out := make([]webhooks.Notification, len(all))
	for i, s := range all {
		out[i] = clone(s.n)
	}
	return out, nil
}

func (m *Memory) Missed(_ context.Context, f webhooksport.Filter, since time.Time, page paging.Request) ([]webhooks.Notification, int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var all []webhooks.Notification
	for _, s := range m.match(f) {
		if s.n.State == webhooks.Missed && s.n.MissedAt != nil && s.n.MissedAt.After(since) {
			all = append(all, clone(s.n))
		}
	}
	return paging.Slice(all, page), len(all), nil
}

func (m *Memory) Counts(context.Context) ([]webhooks.Count, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	by := map[string]*webhooks.Count{}
	for _, s := range m.byID {
		c, ok := by[s.n.Topic]
		if !ok {
			c = &webhooks.Count{Topic: s.n.Topic}
			by[s.n.Topic] = c
		}
		c.Created++
		switch s.n.State {
		case webhooks.Delivered:
			c.Delivered++
		case webhooks.Missed:
			c.Missed++
		}
		c.Retried += max(s.n.Attempts-1, 0)
	}
	out := []webhooks.Count{}
	for _, c := range by {
		out = append(out, *c)
	}
	slices.SortFunc(out, func(a, b webhooks.Count) int { return strings.Compare(a.Topic, b.Topic) })
	return out, nil
}
