package migrations

import (
	"context"

	"github.com/uptrace/bun"
)

// Fiscal documents of packs (one per type per pack, by a unique index) and
// the packs that ever held one. (The after-sale messages and the
// notification feeds were first created here too; they have migrations of
// their own now, 20261128000100_messaging and 20261128000200_notify.)
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
		)
	}, func(ctx context.Context, db *bun.DB) error {
		return Exec(ctx, db, `DROP TABLE fiscal_packs`, `DROP TABLE fiscal_documents`)
	})
}
