package migrations

import (
	"context"

	"github.com/uptrace/bun"
)

// The authorization code grant: issued codes (hashed, as tokens are), each
// used once, and the redirect URIs an application registered, which an
// authorization request must name exactly. The URIs are rows of their own
// (like an application's topics and grants), keyed by application id without
// a foreign key so that this migration does not depend on the applications
// table's; the apps store writes them with the application.
func init() {
	All.MustRegister(func(ctx context.Context, db *bun.DB) error {
		return Exec(ctx, db,
			`CREATE TABLE oauth_codes (
				hash TEXT PRIMARY KEY,
				app_id BIGINT NOT NULL,
				user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
				redirect_uri TEXT NOT NULL,
				challenge TEXT NOT NULL,
				method TEXT NOT NULL,
				expires_at TIMESTAMPTZ NOT NULL,
				used_at TIMESTAMPTZ
			)`,
			`CREATE TABLE application_redirect_uris (
				app_id BIGINT NOT NULL,
				position INTEGER NOT NULL,
				uri TEXT NOT NULL,
				PRIMARY KEY (app_id, position)
			)`,
			`CREATE INDEX users_site ON users (site_id, id)`,
		)
	}, func(ctx context.Context, db *bun.DB) error {
		return Exec(ctx, db, `DROP INDEX users_site`, `DROP TABLE application_redirect_uris`, `DROP TABLE oauth_codes`)
	})
}
