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
