package migrations

import (
	"context"

	"github.com/uptrace/bun"
)

// A message's read date (its recipient read the conversation with
// mark_as_read) and the files messages carry: a row per upload, given to
// its message when one is sent with it (message_id null until then).
func init() {
	All.MustRegister(func(ctx context.Context, db *bun.DB) error {
		return Exec(ctx, db,
			`ALTER TABLE messages ADD COLUMN date_read TIMESTAMPTZ`,
			`CREATE TABLE message_attachments (
				id TEXT PRIMARY KEY,
				user_id BIGINT NOT NULL,
				filename TEXT NOT NULL,
				content_type TEXT NOT NULL,
				size BIGINT NOT NULL,
				message_id TEXT,
				date_created TIMESTAMPTZ NOT NULL
			)`,
			`CREATE INDEX message_attachments_message ON message_attachments (message_id, date_created, id)`,
		)
	}, func(ctx context.Context, db *bun.DB) error {
		return Exec(ctx, db, `DROP TABLE message_attachments`, `ALTER TABLE messages DROP COLUMN date_read`)
	})
}
