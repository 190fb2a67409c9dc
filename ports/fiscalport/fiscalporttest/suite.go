// Package fiscalporttest holds the contract suites of the fiscal module's
// storage ports, run against every adapter, and an in-memory Documents fake
// for use-case tests.
package fiscalporttest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/feria/feria/core/fiscal"
	"github.com/feria/feria/core/messaging"
	"github.com/feria/feria/core/notify"
	"github.com/feria/feria/core/paging"
	"github.com/feria/feria/ports/fiscalport"
	"github.com/feria/feria/ports/messagingport"
	"github.com/feria/feria/ports/notifyport"
)

var t0 = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

func doc(id string, pack, seller int64, ft fiscal.FileType, at time.Time) fiscal.Document {
	return fiscal.Document{ID: id, PackID: pack, SellerID: seller, FileType: ft, Filename: id + "." + string(ft),
		ContentType: ft.ContentType(), Size: 10, Key: "fiscal/" + id, DateCreated: at}
}

// TestDocuments is the contract of fiscalport.Documents. newStore returns an
// empty store of the test's own.
func TestDocuments(t *testing.T, newStore func(t testing.TB) fiscalport.Documents) {
	ctx := context.Background()
	t.Run("AddListDelete", func(t *testing.T) {
		s := newStore(t)
		if had, err := s.EverHad(ctx, 1); err != nil || had {
			t.Fatalf("EverHad of a new pack = %v, %v", had, err)
		}
		a := doc("a", 1, 10, fiscal.PDF, t0)
		b := doc("b", 1, 10, fiscal.XML, t0.Add(time.Second))
		other := doc("c", 2, 10, fiscal.PDF, t0)
		if err := s.Add(ctx, []fiscal.Document{a}); err != nil {
			t.Fatal(err)
		}
		if err := s.Add(ctx, []fiscal.Document{b}); err != nil {
			t.Fatal(err)
		}
		if err := s.Add(ctx, []fiscal.Document{other}); err != nil {
			t.Fatal(err)
		}
		got, err := s.ByPack(ctx, 1)
		if err != nil || len(got) != 2 || got[0] != a || got[1] != b {
			t.Fatalf("ByPack = %+v, %v; want %+v %+v", got, err, a, b)
		}
		if had, err := s.EverHad(ctx, 2); err != nil || !had {
			t.Fatalf("EverHad of a pack holding a document = %v, %v", had, err)
		}
		if del, err := s.DeleteBySeller(ctx, 1, 99); err != nil || len(del) != 0 {
			t.Fatalf("DeleteBySeller of another seller = %v, %v", del, err)
		}
		del, err := s.DeleteBySeller(ctx, 1, 10)
		if err != nil || len(del) != 2 || del[0] != a || del[1] != b {
			t.Fatalf("DeleteBySeller = %+v, %v", del, err)
		}
		if got, _ := s.ByPack(ctx, 1); len(got) != 0 {
			t.Fatalf("after delete: %+v", got)
		}
		if had, err := s.EverHad(ctx, 1); err != nil || !had {
			t.Fatalf("EverHad after delete = %v, %v", had, err)
		}
		if got, _ := s.ByPack(ctx, 2); len(got) != 1 {
			t.Fatalf("other pack touched: %+v", got)
		}
		stored, err := s.Stored(ctx, []string{a.Key, other.Key, "fiscal/none"})
		if err != nil || len(stored) != 1 || !stored[other.Key] {
			t.Fatalf("Stored = %v, %v; want only %s", stored, err, other.Key)
		}
	})
	t.Run("OnePerType", func(t *testing.T) {
		s := newStore(t)
		if err := s.Add(ctx, []fiscal.Document{doc("a", 1, 10, fiscal.PDF, t0)}); err != nil {
			t.Fatal(err)
		}
		err := s.Add(ctx, []fiscal.Document{doc("x", 1, 10, fiscal.XML, t0), doc("b", 1, 10, fiscal.PDF, t0)})
		if !errors.Is(err, fiscalport.ErrConflict) {
			t.Fatalf("second pdf: %v, want ErrConflict", err)
		}
		if got, _ := s.ByPack(ctx, 1); len(got) != 1 || got[0].ID != "a" {
			t.Fatalf("a refused Add left rows: %+v", got)
		}
	})
}

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

// TestNotifications is the contract of notifyport.Notifications.
func TestNotifications(t *testing.T, newStore func(t testing.TB) notifyport.Notifications) {
	ctx := context.Background()
	s := newStore(t)
	n := notify.Notification{ID: "n1", UserID: 20, Kind: notify.KindFiscalDocument, PackID: 1, Title: "t", Text: "x", DateCreated: t0}
	stored, inserted, err := s.Add(ctx, n)
	if err != nil || !inserted || stored.ID != "n1" || stored.MailedAt != nil || !stored.DateCreated.Equal(t0) {
		t.Fatalf("Add = %+v %v %v", stored, inserted, err)
	}
	if err := s.MarkMailed(ctx, "n1", t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	again := n
	again.Text = "changed"
	stored, inserted, err = s.Add(ctx, again)
	if err != nil || inserted || stored.Text != "x" || stored.MailedAt == nil || !stored.MailedAt.Equal(t0.Add(time.Minute)) {
		t.Fatalf("second Add = %+v %v %v", stored, inserted, err)
	}
	n2 := notify.Notification{ID: "n2", UserID: 20, Kind: notify.KindBillingRequest, PackID: 1, Title: "t", Text: "y", DateCreated: t0.Add(time.Hour)}
	if _, _, err := s.Add(ctx, n2); err != nil {
		t.Fatal(err)
	}
	got, total, err := s.ByUser(ctx, 20, paging.Default())
	if err != nil || total != 2 || len(got) != 2 || got[0].ID != "n2" || got[1].ID != "n1" {
		t.Fatalf("ByUser = %+v %d %v", got, total, err)
	}
	if got, total, _ := s.ByUser(ctx, 21, paging.Default()); total != 0 || len(got) != 0 {
		t.Fatalf("other user = %+v", got)
	}
}
