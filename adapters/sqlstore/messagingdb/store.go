// Package messagingdb stores the messages of packs' after-sale
// conversations through bun.
package messagingdb

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/feria/feria/adapters/sqlstore"
	"github.com/feria/feria/core/messaging"
	"github.com/feria/feria/core/paging"
	"github.com/feria/feria/ports/messagingport"
)

// Store implements messagingport.Messages.
type Store struct{ db bun.IDB }

var _ messagingport.Messages = (*Store)(nil)

// New returns a store on db.
func New(db bun.IDB) *Store { return &Store{db: db} }

type messageRow struct {
	bun.BaseModel `bun:"table:messages"`

	ID          string    `bun:"id,pk"`
	PackID      int64     `bun:"pack_id"`
	FromUserID  int64     `bun:"from_user_id"`
	ToUserID    int64     `bun:"to_user_id"`
	Kind        string    `bun:"kind"`
	Text        string    `bun:"text"`
	DateCreated time.Time `bun:"date_created"`
}

// Add stores a message.
func (s *Store) Add(ctx context.Context, m messaging.Message) error {
	r := messageRow{ID: m.ID, PackID: m.PackID, FromUserID: m.FromUserID, ToUserID: m.ToUserID, Kind: m.Kind, Text: m.Text, DateCreated: m.DateCreated}
	if _, err := sqlstore.IDB(ctx, s.db).NewInsert().Model(&r).Exec(ctx); err != nil {
		return fmt.Errorf("messagingdb: add message: %w", err)
	}
	return nil
}

// Message returns a message or messagingport.ErrNotFound.
func (s *Store) Message(ctx context.Context, id string) (messaging.Message, error) {
	var r messageRow
	err := sqlstore.IDB(ctx, s.db).NewSelect().Model(&r).Where("id = ?", id).Scan(ctx)
	if sqlstore.IsNoRows(err) {
		return messaging.Message{}, fmt.Errorf("messagingdb: message %s: %w", id, messagingport.ErrNotFound)
	}
	if err != nil {
		return messaging.Message{}, fmt.Errorf("messagingdb: message %s: %w", id, err)
	}
	return r.message(), nil
}

func (r messageRow) message() messaging.Message {
	return messaging.Message{ID: r.ID, PackID: r.PackID, FromUserID: r.FromUserID, ToUserID: r.ToUserID,
		Kind: r.Kind, Text: r.Text, DateCreated: r.DateCreated.UTC()}
}

// ByPack returns a page of a pack's messages, oldest first.
func (s *Store) ByPack(ctx context.Context, packID int64, page paging.Request) ([]messaging.Message, int, error) {
	var rows []messageRow
	q := sqlstore.IDB(ctx, s.db).NewSelect().Model(&rows).Where("pack_id = ?", packID).OrderExpr("date_created, id")
	total, err := q.Limit(int64(page.Limit)).Offset(int64(page.Offset)).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, fmt.Errorf("messagingdb: messages of pack %d: %w", packID, err)
	}
	out := make([]messaging.Message, len(rows))
	for i, r := range rows {
		out[i] = r.message()
	}
	return out, int(total), nil
}
