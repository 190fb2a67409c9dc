// Package outboxdb stores the transactional outbox through bun.
package outboxdb

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/feria/feria/adapters/sqlstore"
	"github.com/feria/feria/ports/outboxport"
)

// Store implements the outbox ports.
type Store struct{ db bun.IDB }

var (
	_ outboxport.Outbox  = (*Store)(nil)
	_ outboxport.Pending = (*Store)(nil)
	_ outboxport.Pruner  = (*Store)(nil)
)

// New returns a store on db.
func New(db bun.IDB) *Store { return &Store{db: db} }

type row struct {
	bun.BaseModel `bun:"table:outbox"`

	ID        string     `bun:"id,pk"`
	TaskType  string     `bun:"task_type"`
	Payload   string     `bun:"payload"`
	CreatedAt time.Time  `bun:"created_at"`
	RelayedAt *time.Time `bun:"relayed_at"`
}

// Add writes a message in the caller's transaction; adding the same id again
// is a no-op, which keeps retried use cases from queuing twice.
func (s *Store) Add(ctx context.Context, m outboxport.Message) error {
	r := row{ID: m.ID, TaskType: m.Type, Payload: string(m.Payload), CreatedAt: m.CreatedAt}
	if _, err := sqlstore.IDB(ctx, s.db).NewInsert().Model(&r).On("CONFLICT (id) DO NOTHING").Exec(ctx); err != nil {
		return fmt.Errorf("outboxdb: add %s: %w", m.ID, err)
	}
	return nil
}

// Pending returns the oldest messages not relayed yet.
func (s *Store) Pending(ctx context.Context, limit int) ([]outboxport.Message, error) {
	var rows []row
	err := sqlstore.IDB(ctx, s.db).NewSelect().Model(&rows).
		Where("relayed_at IS NULL").OrderExpr("created_at, id").Limit(int64(limit)).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("outboxdb: pending: %w", err)
	}
	out := make([]outboxport.Message, len(rows))
	for i, r := range rows {
		out[i] = outboxport.Message{ID: r.ID, Type: r.TaskType, Payload: []byte(r.Payload), CreatedAt: r.CreatedAt}
	}
	return out, nil
}

// MarkRelayed acknowledges messages that are now in the queue.
func (s *Store) MarkRelayed(ctx context.Context, ids []string, at time.Time) error {
	if len(ids) == 0 {
		return nil
	}
	_, err := sqlstore.IDB(ctx, s.db).NewUpdate().Model((*row)(nil)).
		Set("relayed_at = ?", at).Where("id IN (?)", bun.In(ids)).Exec(ctx)
	if err != nil {
		return fmt.Errorf("outboxdb: mark relayed: %w", err)
	}
	return nil
}

// Prune removes the messages relayed before before: once in the queue, a
// message's row only keeps a retried use case from queuing it twice, which
// a retention of days covers. Messages not relayed yet stay, however old.
func (s *Store) Prune(ctx context.Context, before time.Time) (int, error) {
	res, err := sqlstore.IDB(ctx, s.db).NewDelete().Model((*row)(nil)).
		Where("relayed_at IS NOT NULL").Where("relayed_at < ?", before.UTC()).Exec(ctx)
	if err != nil {
		return 0, fmt.Errorf("outboxdb: prune: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}
