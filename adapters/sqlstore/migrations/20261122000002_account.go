package migrations

import (
	"context"

	"github.com/uptrace/bun"
)

// Users, and their access and refresh tokens, stored only as hashes.
func init() {
	All.MustRegister(func(ctx context.Context, db *bun.DB) error {
		return Exec(ctx, db,
			`CREATE TABLE users (
				id BIGINT PRIMARY KEY,
				nickname TEXT NOT NULL,
				site_id TEXT NOT NULL,
				user_type TEXT NOT NULL,
				reputation TEXT,
				tags JSONB NOT NULL,
				messaging_allowed BOOLEAN NOT NULL,
				date_created TIMESTAMPTZ NOT NULL
			)`,
			`CREATE TABLE tokens (
				hash TEXT PRIMARY KEY,
				user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
				expires_at TIMESTAMPTZ NOT NULL,
				revoked_at TIMESTAMPTZ
			)`,
			`CREATE INDEX tokens_user ON tokens (user_id)`,
			`CREATE TABLE refresh_tokens (
				user_id BIGINT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
				hash TEXT NOT NULL UNIQUE
			)`,
		)
	}, func(ctx context.Context, db *bun.DB) error {
		return Exec(ctx, db, `DROP TABLE refresh_tokens`, `DROP TABLE tokens`, `DROP TABLE users`)
	})
}
