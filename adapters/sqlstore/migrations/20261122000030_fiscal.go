package migrations

import (
	"context"

	"github.com/uptrace/bun"
)

// Fiscal documents of packs (one per type per pack, by a unique index), the
// packs that ever held one, the after-sale conversation messages and the
// users' notification feeds.
func init() {
	All.MustRegister(func(ctx context.Context, db *bun.DB) error {
		return Exec(ctx, db,
			`CREATE TABLE fiscal_documents (
				id TEXT PRIMARY KEY,
				pack_id BIGINT NOT NULL,
				seller_id BIGINT NOT NULL,
				file_type TEXT NOT NULL,
				filename TEXT NOT NULL,
				content_type TEXT NOT NULL,
				size BIGINT NOT NULL,
				blob_key TEXT NOT NULL,
				date_created TIMESTAMPTZ NOT NULL
			)`,
			`CREATE UNIQUE INDEX fiscal_documents_pack_type ON fiscal_documents (pack_id, file_type)`,
			`CREATE TABLE fiscal_packs (
				pack_id BIGINT PRIMARY KEY,
				first_upload TIMESTAMPTZ NOT NULL
			)`,
			`CREATE TABLE messages (
				id TEXT PRIMARY KEY,
				pack_id BIGINT NOT NULL,
				from_user_id BIGINT NOT NULL,
				to_user_id BIGINT NOT NULL,
				kind TEXT NOT NULL,
				text TEXT NOT NULL,
				date_created TIMESTAMPTZ NOT NULL
			)`,
			`CREATE INDEX messages_pack ON messages (pack_id, date_created, id)`,
			`CREATE TABLE notifications (
				id TEXT PRIMARY KEY,
				user_id BIGINT NOT NULL,
				kind TEXT NOT NULL,
				pack_id BIGINT NOT NULL,
				title TEXT NOT NULL,
				text TEXT NOT NULL,
				date_created TIMESTAMPTZ NOT NULL,
				mailed_at TIMESTAMPTZ
			)`,
			`CREATE INDEX notifications_user ON notifications (user_id, date_created, id)`,
		)
	}, func(ctx context.Context, db *bun.DB) error {
		return Exec(ctx, db, `DROP TABLE notifications`, `DROP TABLE messages`, `DROP TABLE fiscal_packs`, `DROP TABLE fiscal_documents`)
	})
}
