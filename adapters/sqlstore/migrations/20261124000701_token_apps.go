package migrations

import (
	"context"

	"github.com/uptrace/bun"
)

// Tokens may belong to an application: an access token names it, and a user
// keeps one refresh token per application (app_id 0: tokens without one),
// so that a token issued for one application leaves another's refresh token
// usable. SQLite cannot change a primary key, so refresh_tokens is rebuilt,
// its rows kept.
func init() {
	All.MustRegister(func(ctx context.Context, db *bun.DB) error {
		return Exec(ctx, db,
			`ALTER TABLE tokens ADD COLUMN app_id BIGINT`,
			`CREATE TABLE refresh_tokens_by_app (
				user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
				app_id BIGINT NOT NULL DEFAULT 0,
				hash TEXT NOT NULL UNIQUE,
				PRIMARY KEY (user_id, app_id)
			)`,
			`INSERT INTO refresh_tokens_by_app (user_id, app_id, hash) SELECT user_id, 0, hash FROM refresh_tokens`,
			`DROP TABLE refresh_tokens`,
			`ALTER TABLE refresh_tokens_by_app RENAME TO refresh_tokens`,
		)
	}, func(ctx context.Context, db *bun.DB) error {
		return Exec(ctx, db,
			`CREATE TABLE refresh_tokens_by_user (
				user_id BIGINT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
				hash TEXT NOT NULL UNIQUE
			)`,
			`INSERT INTO refresh_tokens_by_user (user_id, hash) SELECT user_id, hash FROM refresh_tokens WHERE app_id = 0`,
			`DROP TABLE refresh_tokens`,
			`ALTER TABLE refresh_tokens_by_user RENAME TO refresh_tokens`,
			`ALTER TABLE tokens DROP COLUMN app_id`,
		)
	})
}
