package messagingporttest

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/feria/feria/core/messaging"
	"github.com/feria/feria/core/paging"
	"github.com/feria/feria/ports/messagingport"
)

// Memory is an in-memory messagingport.Messages and Attachments for
// use-case tests.
type Memory struct {
	mu    sync.Mutex
	msgs  []messaging.Message
	files []messaging.Attachment
}

var (
	_ messagingport.Messages    = (*Memory)(nil)
	_ messagingport.Attachments = (*Memory)(nil)
)

// withFiles is msg with the attachments given to it, in upload order.
func (m *Memory) withFiles(msg messaging.Message) messaging.Message {
	msg.Attachments = nil
	for _, a := range m.files {
		if a.MessageID == msg.ID {
			msg.Attachments = append(msg.Attachments, a)
		}
	}
	return msg
}

func (m *Memory) MarkRead(_ context.Context, packID, userID int64, at time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, msg := range m.msgs {
		if msg.PackID == packID && msg.ToUserID == userID && msg.DateRead == nil {
			at := at
			m.msgs[i].DateRead = &at
		}
	}
	return nil
}

func (m *Memory) AddAttachment(_ context.Context, a messaging.Attachment) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	a.MessageID = ""
	m.files = append(m.files, a)
	return nil
}

func (m *Memory) Attachment(_ context.Context, id string) (messaging.Attachment, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, a := range m.files {
		if a.ID == id {
			return a, nil
		}
	}
	return messaging.Attachment{}, messagingport.ErrNotFound
}

func (m *Memory) Attach(_ context.Context, messageID string, userID int64, ids []string) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for i, a := range m.files {
		if slices.Contains(ids, a.ID) && a.UserID == userID && a.MessageID == "" {
			m.files[i].MessageID = messageID
			n++
		}
	}
	return n, nil
}

// NewMemory returns an empty store.
func NewMemory() *Memory { return &Memory{} }

func (m *Memory) Add(_ context.Context, msg messaging.Message) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	msg.Attachments = nil
	m.msgs = append(m.msgs, msg)
	return nil
}

func (m *Memory) Message(_ context.Context, id string) (messaging.Message, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, msg := range m.msgs {
		if msg.ID == id {
			return m.withFiles(msg), nil
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
			of = append(of, m.withFiles(msg))
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

func (m *Memory) Unsent(_ context.Context, before time.Time, limit int) ([]messaging.Attachment, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []messaging.Attachment
	for _, a := range m.files {
		if a.MessageID == "" && a.DateCreated.Before(before) {
			out = append(out, a)
		}
	}
	slices.SortStableFunc(out, func(a, b messaging.Attachment) int {
		if c := a.DateCreated.Compare(b.DateCreated); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

func (m *Memory) DeleteUnsent(_ context.Context, id string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, a := range m.files {
		if a.ID == id && a.MessageID == "" {
			m.files = slices.Delete(m.files, i, i+1)
			return true, nil
		}
	}
	return false, nil
}
