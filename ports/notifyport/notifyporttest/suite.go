// Package notifyporttest holds the contract suite of the notify module's
// storage port, run against every adapter.
package notifyporttest

import (
	"context"
	"testing"
	"time"

	"github.com/feria/feria/core/notify"
	"github.com/feria/feria/core/paging"
	"github.com/feria/feria/ports/notifyport"
)

var t0 = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

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
