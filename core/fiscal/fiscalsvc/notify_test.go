package fiscalsvc_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/feria/feria/core/fiscal/fiscalsvc"
	"github.com/feria/feria/core/kernel/kerneltest"
	"github.com/feria/feria/core/notify"
	"github.com/feria/feria/core/paging"
	"github.com/feria/feria/ports/fiscalport"
	"github.com/feria/feria/ports/fiscalport/fiscalporttest"
)

// feed is an in-memory notifyport.Notifications.
type feed struct {
	mu sync.Mutex
	m  map[string]notify.Notification
}

func (f *feed) Add(_ context.Context, n notify.Notification) (notify.Notification, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if s, ok := f.m[n.ID]; ok {
		return s, false, nil
	}
	f.m[n.ID] = n
	return n, true, nil
}

func (f *feed) MarkMailed(_ context.Context, id string, at time.Time) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := f.m[id]
	n.MailedAt = &at
	f.m[id] = n
	return nil
}

func (f *feed) ByUser(context.Context, int64, paging.Request) ([]notify.Notification, int, error) {
	return nil, 0, nil
}

type mailer struct {
	sent []notify.Mail
	err  error
}

func (m *mailer) Send(_ context.Context, mail notify.Mail) error {
	if m.err != nil {
		return m.err
	}
	m.sent = append(m.sent, mail)
	return nil
}

func TestNotifyBuyerOnce(t *testing.T) {
	f := &feed{m: map[string]notify.Notification{}}
	m := &mailer{err: errors.New("smtp down")}
	d := deps(fiscalporttest.NewMemory())
	d.Notifications, d.Mailer, d.Clock = f, m, &kerneltest.Clock{At: time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)}
	svc := fiscalsvc.New(d)
	n := fiscalport.Notice{ID: "n1", Kind: notify.KindFiscalDocument, PackID: 7, BuyerID: 20, DocumentIDs: []string{"10_a"}}
	ctx := context.Background()
	// The mail server refuses: the job fails (asynq retries), the feed entry stays.
	if err := svc.NotifyBuyer(ctx, n); err == nil {
		t.Fatal("a failed mail must fail the job")
	}
	m.err = nil
	for i := 0; i < 3; i++ { // the retry, then two duplicate deliveries of the same job
		if err := svc.NotifyBuyer(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	if len(m.sent) != 1 || m.sent[0].ID != "n1" || m.sent[0].To != "user-20@users.feria.invalid" || m.sent[0].Subject != "Your invoice is available" {
		t.Fatalf("sent %+v", m.sent)
	}
	if len(f.m) != 1 || f.m["n1"].MailedAt == nil {
		t.Fatalf("feed %+v", f.m)
	}
	if err := svc.NotifyBuyer(ctx, fiscalport.Notice{ID: "n2", Kind: "nope", PackID: 7, BuyerID: 20}); err == nil {
		t.Fatal("unknown kind accepted")
	}
}
