// Package messagingporttest holds the contract suite of the messaging
// module's storage port, run against every adapter, and an in-memory
// Messages fake for use-case tests.
package messagingporttest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/feria/feria/core/messaging"
	"github.com/feria/feria/core/paging"
	"github.com/feria/feria/ports/messagingport"
)

var t0 = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

// TestMessages is the contract of messagingport.Messages.
func TestMessages(t *testing.T, newStore func(t testing.TB) messagingport.Messages) {
	ctx := context.Background()
	s := newStore(t)
	for i, id := range []string{"m1", "m2", "m3"} {
		m := messaging.Message{ID: id, PackID: 1, FromUserID: 10, ToUserID: 20, Kind: "k", Text: "ñandú " + id,
			DateCreated: t0.Add(time.Duration(i) * time.Second)}
		if err := s.Add(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	got, total, err := s.ByPack(ctx, 1, paging.Request{Limit: 2, Offset: 1})
	if err != nil || total != 3 || len(got) != 2 || got[0].ID != "m2" || got[1].ID != "m3" || got[0].Text != "ñandú m2" ||
		!got[0].DateCreated.Equal(t0.Add(time.Second)) {
		t.Fatalf("ByPack = %+v %d %v", got, total, err)
	}
	if got, total, err := s.ByPack(ctx, 2, paging.Default()); err != nil || total != 0 || len(got) != 0 {
		t.Fatalf("empty pack = %+v %d %v", got, total, err)
	}
	if m, err := s.Message(ctx, "m2"); err != nil || m.ID != "m2" || m.PackID != 1 || m.FromUserID != 10 || m.ToUserID != 20 ||
		m.Text != "ñandú m2" || !m.DateCreated.Equal(t0.Add(time.Second)) {
		t.Fatalf("Message = %+v %v", m, err)
	}
	if _, err := s.Message(ctx, "m9"); !errors.Is(err, messagingport.ErrNotFound) {
		t.Fatalf("unknown message: %v", err)
	}
}
