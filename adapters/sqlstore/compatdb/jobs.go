package compatdb

import (
	"context"
	"time"
)

// MarkJobDone records a job id; false when it was recorded before.
func (s *Store) MarkJobDone(ctx context.Context, id string, at time.Time) (bool, error) {
	res, err := s.idb(ctx).NewRaw(`INSERT INTO compat_jobs (id, done_at) VALUES (?, ?) ON CONFLICT (id) DO NOTHING`, id, at.UTC()).Exec(ctx)
	if err != nil {
		return false, wrap("mark job done", err)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}
