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

// Store is both ports, which one adapter implements.
type Store interface {
	messagingport.Messages
	messagingport.Attachments
}

// TestReadsAndAttachments is the contract of MarkRead and of
// messagingport.Attachments.
func TestReadsAndAttachments(t *testing.T, newStore func(t testing.TB) Store) {
	ctx := context.Background()
	s := newStore(t)
	for i, m := range []messaging.Message{
		{ID: "a1", PackID: 1, FromUserID: 10, ToUserID: 20},
		{ID: "a2", PackID: 1, FromUserID: 20, ToUserID: 10},
		{ID: "a3", PackID: 2, FromUserID: 10, ToUserID: 20},
	} {
		m.Kind, m.Text, m.DateCreated = "post_sale", "hola", t0.Add(time.Duration(i)*time.Second)
		if err := s.Add(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	read := t0.Add(time.Hour)
	if err := s.MarkRead(ctx, 1, 20, read); err != nil {
		t.Fatal(err)
	}
	// Read once: a later read keeps the first date.
	if err := s.MarkRead(ctx, 1, 20, read.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	got, _, err := s.ByPack(ctx, 1, paging.Default())
	if err != nil || len(got) != 2 || got[0].DateRead == nil || !got[0].DateRead.Equal(read) || got[1].DateRead != nil {
		t.Fatalf("after MarkRead: %+v %v", got, err)
	}
	if m, err := s.Message(ctx, "a3"); err != nil || m.DateRead != nil {
		t.Fatalf("another pack's message: %+v %v", m, err)
	}

	up := func(id string, user int64) messaging.Attachment {
		a := messaging.Attachment{ID: id, UserID: user, Filename: "foto ñ.png", ContentType: "image/png", Size: 42, DateCreated: t0}
		if err := s.AddAttachment(ctx, a); err != nil {
			t.Fatal(err)
		}
		return a
	}
	f1, f2, f3 := up("10_f1.png", 10), up("10_f2.png", 10), up("20_f3.png", 20)
	if a, err := s.Attachment(ctx, f1.ID); err != nil || a.ID != f1.ID || a.UserID != 10 || a.Filename != "foto ñ.png" ||
		a.ContentType != "image/png" || a.Size != 42 || a.MessageID != "" || !a.DateCreated.Equal(t0) {
		t.Fatalf("Attachment = %+v %v", a, err)
	}
	if _, err := s.Attachment(ctx, "nope"); !errors.Is(err, messagingport.ErrNotFound) {
		t.Fatalf("unknown attachment: %v", err)
	}
	// Only the uploader's files, and only once.
	if n, err := s.Attach(ctx, "a1", 10, []string{f1.ID, f2.ID, f3.ID}); err != nil || n != 2 {
		t.Fatalf("Attach = %d %v", n, err)
	}
	if n, err := s.Attach(ctx, "a3", 10, []string{f1.ID}); err != nil || n != 0 {
		t.Fatalf("Attach of a sent file = %d %v", n, err)
	}
	if a, err := s.Attachment(ctx, f2.ID); err != nil || a.MessageID != "a1" {
		t.Fatalf("sent attachment = %+v %v", a, err)
	}
	m, err := s.Message(ctx, "a1")
	if err != nil || len(m.Attachments) != 2 || m.Attachments[0].ID != f1.ID || m.Attachments[1].ID != f2.ID || m.Attachments[0].Size != 42 {
		t.Fatalf("message's attachments: %+v %v", m.Attachments, err)
	}
	got, _, err = s.ByPack(ctx, 1, paging.Default())
	if err != nil || len(got[0].Attachments) != 2 || len(got[1].Attachments) != 0 {
		t.Fatalf("ByPack's attachments: %+v %v", got, err)
	}

	// Unsent files: only f3 (f1 and f2 are sent), once older than before.
	old := messaging.Attachment{ID: "20_f4.txt", UserID: 20, Filename: "n.txt", ContentType: "text/plain", Size: 1, DateCreated: t0.Add(-time.Hour)}
	if err := s.AddAttachment(ctx, old); err != nil {
		t.Fatal(err)
	}
	if un, err := s.Unsent(ctx, t0, 10); err != nil || len(un) != 1 || un[0].ID != old.ID {
		t.Fatalf("Unsent before t0 = %+v %v", un, err)
	}
	if un, err := s.Unsent(ctx, t0.Add(time.Second), 1); err != nil || len(un) != 1 || un[0].ID != old.ID {
		t.Fatalf("Unsent, limit 1 = %+v %v", un, err)
	}
	if un, err := s.Unsent(ctx, t0.Add(time.Second), 10); err != nil || len(un) != 2 || un[1].ID != f3.ID {
		t.Fatalf("Unsent = %+v %v", un, err)
	}
	if ok, err := s.DeleteUnsent(ctx, f1.ID); err != nil || ok {
		t.Fatalf("DeleteUnsent of a sent file = %v %v", ok, err)
	}
	if ok, err := s.DeleteUnsent(ctx, old.ID); err != nil || !ok {
		t.Fatalf("DeleteUnsent = %v %v", ok, err)
	}
	if _, err := s.Attachment(ctx, old.ID); !errors.Is(err, messagingport.ErrNotFound) {
		t.Fatalf("a deleted attachment: %v", err)
	}
	if ok, err := s.DeleteUnsent(ctx, old.ID); err != nil || ok {
		t.Fatalf("DeleteUnsent again = %v %v", ok, err)
	}
}
