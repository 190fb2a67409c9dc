// Package outboxporttest holds the contract every outbox store must pass,
// and an in-memory fake for use-case tests.
package outboxporttest

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/feria/feria/ports/outboxport"
)

// Store is both sides of the outbox.
type Store interface {
	outboxport.Outbox
	outboxport.Pending
}

// TestStore is the contract of an outbox store.
func TestStore(t *testing.T, newStore func(t testing.TB) Store) {
	ctx := context.Background()
	at := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	s := newStore(t)
	for i := 4; i >= 0; i-- { // added newest first: Pending must still answer oldest first
		m := outboxport.Message{ID: fmt.Sprintf("m%d", i), Type: "t", Payload: []byte(fmt.Sprintf(`{"n":%d}`, i)), CreatedAt: at.Add(time.Duration(i) * time.Second)}
		if err := s.Add(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	dup := outboxport.Message{ID: "m0", Type: "other", Payload: []byte(`{}`), CreatedAt: at}
	if err := s.Add(ctx, dup); err != nil {
		t.Fatalf("adding an id twice must be a no-op: %v", err)
	}
	got, err := s.Pending(ctx, 3)
	if err != nil || len(got) != 3 || got[0].ID != "m0" || got[2].ID != "m2" || got[0].Type != "t" || string(got[1].Payload) != `{"n":1}` {
		t.Fatalf("pending: %+v %v", got, err)
	}
	if err := s.MarkRelayed(ctx, []string{"m0", "m1"}, at); err != nil {
		t.Fatal(err)
	}
	if err := s.MarkRelayed(ctx, nil, at); err != nil {
		t.Fatal(err)
	}
	got, _ = s.Pending(ctx, 10)
	if len(got) != 3 || got[0].ID != "m2" {
		t.Fatalf("pending after ack: %+v", got)
	}
}

// Memory is an in-memory outbox.
type Memory struct {
	mu      sync.Mutex
	msgs    map[string]outboxport.Message
	relayed map[string]bool
}

// NewMemory returns an empty outbox.
func NewMemory() *Memory {
	return &Memory{msgs: map[string]outboxport.Message{}, relayed: map[string]bool{}}
}

func (m *Memory) Add(_ context.Context, msg outboxport.Message) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.msgs[msg.ID]; !ok {
		m.msgs[msg.ID] = msg
	}
	return nil
}

func (m *Memory) Pending(_ context.Context, limit int) ([]outboxport.Message, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []outboxport.Message
	for id, msg := range m.msgs {
		if !m.relayed[id] {
			out = append(out, msg)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].CreatedAt.Equal(out[j].CreatedAt) {
			return out[i].CreatedAt.Before(out[j].CreatedAt)
		}
		return out[i].ID < out[j].ID
	})
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

func (m *Memory) MarkRelayed(_ context.Context, ids []string, _ time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, id := range ids {
		m.relayed[id] = true
	}
	return nil
}

// Messages returns every message added, for assertions.
func (m *Memory) Messages() []outboxport.Message {
	got, _ := m.Pending(context.Background(), 1<<30)
	return got
}
