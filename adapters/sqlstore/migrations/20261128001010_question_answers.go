package migrations

import (
	"context"

	"github.com/uptrace/bun"
)

// A question's answer, null until its seller answers it.
func init() {
	All.MustRegister(func(ctx context.Context, db *bun.DB) error {
		return Exec(ctx, db,
			`ALTER TABLE questions ADD COLUMN answer_text TEXT`,
			`ALTER TABLE questions ADD COLUMN answer_date TIMESTAMPTZ`,
		)
	}, func(ctx context.Context, db *bun.DB) error {
		return Exec(ctx, db, `ALTER TABLE questions DROP COLUMN answer_text`, `ALTER TABLE questions DROP COLUMN answer_date`)
	})
}
