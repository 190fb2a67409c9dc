package messagingporttest

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/feria/feria/core/messaging"
	"github.com/feria/feria/core/paging"
	"github.com/feria/feria/ports/messagingport"
)

// Memory is an in-memory messagingport.Messages for use-case tests.
type Memory struct {
	mu   sync.Mutex
	msgs []messaging.Message
}

var _ messagingport.Messages = (*Memory)(nil)

// NewMemory returns an empty store.
func NewMemory() *Memory { return &Memory{} }

func (m *Memory) Add(_ context.Context, msg messaging.Message) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.msgs = append(m.msgs, msg)
	return nil
}

func (m *Memory) Message(_ context.Context, id string) (messaging.Message, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, msg := range m.msgs {
		if msg.ID == id {
			return msg, nil
		}
	}
	return messaging.Message{}, messagingport.ErrNotFound
}

func (m *Memory) ByPack(_ context.Context, packID int64, page paging.Request) ([]messaging.Message, int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var of []messaging.Message
	for _, msg := range m.msgs {
		if msg.PackID == packID {
			of = append(of, msg)
		}
	}
	slices.SortStableFunc(of, func(a, b messaging.Message) int {
		if c := a.DateCreated.Compare(b.DateCreated); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return paging.Slice(of, page), len(of), nil
}
