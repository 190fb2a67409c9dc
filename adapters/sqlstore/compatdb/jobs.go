package compatdb

import (
	"context"
	"time"

	"github.com/uptrace/bun"
)

type jobRow struct {
	bun.BaseModel `bun:"table:compat_jobs"`

	ID     string    `bun:"id,pk"`
	DoneAt time.Time `bun:"done_at"`
}

// MarkJobDone records a job id; false when it was recorded before.
func (s *Store) MarkJobDone(ctx context.Context, id string, at time.Time) (bool, error) {
	r := jobRow{ID: id, DoneAt: at.UTC()}
	res, err := s.idb(ctx).NewInsert().Model(&r).On("CONFLICT (id) DO NOTHING").Exec(ctx)
	if err != nil {
		return false, wrap("mark job done", err)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// Prune removes the records of copy jobs done before before: a record only
// keeps a retried job from copying twice, and a job is retried within
// minutes, not days (the outbox row that queued it is kept as long).
func (s *Store) Prune(ctx context.Context, before time.Time) (int, error) {
	res, err := s.idb(ctx).NewDelete().Model((*jobRow)(nil)).Where("done_at < ?", before.UTC()).Exec(ctx)
	if err != nil {
		return 0, wrap("prune jobs", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}
