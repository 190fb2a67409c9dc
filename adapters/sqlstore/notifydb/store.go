// Package notifydb stores the users' notification feeds through bun.
package notifydb

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/feria/feria/adapters/sqlstore"
	"github.com/feria/feria/core/notify"
	"github.com/feria/feria/core/paging"
	"github.com/feria/feria/ports/notifyport"
)

// Store implements notifyport.Notifications.
type Store struct{ db bun.IDB }

var _ notifyport.Notifications = (*Store)(nil)

// New returns a store on db.
func New(db bun.IDB) *Store { return &Store{db: db} }

type notificationRow struct {
	bun.BaseModel `bun:"table:notifications"`

	ID          string     `bun:"id,pk"`
	UserID      int64      `bun:"user_id"`
	Kind        string     `bun:"kind"`
	PackID      int64      `bun:"pack_id"`
	Title       string     `bun:"title"`
	Text        string     `bun:"text"`
	DateCreated time.Time  `bun:"date_created"`
	MailedAt    *time.Time `bun:"mailed_at"`
}

func (r notificationRow) notification() notify.Notification {
	n := notify.Notification{ID: r.ID, UserID: r.UserID, Kind: r.Kind, PackID: r.PackID, Title: r.Title, Text: r.Text,
		DateCreated: r.DateCreated.UTC()}
	if r.MailedAt != nil {
		t := r.MailedAt.UTC()
		n.MailedAt = &t
	}
	return n
}

// Add stores n unless its id is stored; either way it returns the stored one.
func (s *Store) Add(ctx context.Context, n notify.Notification) (notify.Notification, bool, error) {
	r := notificationRow{ID: n.ID, UserID: n.UserID, Kind: n.Kind, PackID: n.PackID, Title: n.Title, Text: n.Text,
		DateCreated: n.DateCreated, MailedAt: n.MailedAt}
	db := sqlstore.IDB(ctx, s.db)
	res, err := db.NewInsert().Model(&r).On("CONFLICT (id) DO NOTHING").Exec(ctx)
	if err != nil {
		return n, false, fmt.Errorf("notifydb: add notification: %w", err)
	}
	affected, err := res.RowsAffected()
	if err != nil {
		return n, false, fmt.Errorf("notifydb: add notification: %w", err)
	}
	var stored notificationRow
	if err := db.NewSelect().Model(&stored).Where("id = ?", n.ID).Scan(ctx); err != nil {
		return n, false, fmt.Errorf("notifydb: read notification: %w", err)
	}
	return stored.notification(), affected == 1, nil
}

// MarkMailed records the e-mail of a notification as sent.
func (s *Store) MarkMailed(ctx context.Context, id string, at time.Time) error {
	if _, err := sqlstore.IDB(ctx, s.db).NewUpdate().Model((*notificationRow)(nil)).Set("mailed_at = ?", at).
		Where("id = ?", id).Exec(ctx); err != nil {
		return fmt.Errorf("notifydb: mark mailed: %w", err)
	}
	return nil
}

// ByUser returns one page of a user's feed, newest first.
func (s *Store) ByUser(ctx context.Context, userID int64, page paging.Request) ([]notify.Notification, int, error) {
	var rows []notificationRow
	total, err := sqlstore.IDB(ctx, s.db).NewSelect().Model(&rows).Where("user_id = ?", userID).
		OrderExpr("date_created DESC, id DESC").Limit(int64(page.Limit)).Offset(int64(page.Offset)).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, fmt.Errorf("notifydb: notifications of user %d: %w", userID, err)
	}
	out := make([]notify.Notification, len(rows))
	for i, r := range rows {
		out[i] = r.notification()
	}
	return out, int(total), nil
}
