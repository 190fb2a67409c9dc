package migrations

import (
	"context"

	"github.com/uptrace/bun"
)

// Integrators' applications (docs/sandbox.md, "Applications and notifications"):
// the application as put, and the two lists a change is matched against, so
// that finding the subscribers of (topic, user) is two index lookups.
func init() {
	All.MustRegister(func(ctx context.Context, db *bun.DB) error {
		return Exec(ctx, db,
			`CREATE TABLE applications (
				id BIGINT PRIMARY KEY,
				name TEXT NOT NULL,
				owner_id BIGINT NOT NULL REFERENCES users (id),
				client_secret TEXT NOT NULL,
				callback_url TEXT NOT NULL,
				topics JSONB NOT NULL,
				users JSONB NOT NULL,
				ack_timeout_ms BIGINT NOT NULL,
				retry_delays_ms JSONB
			)`,
			// The users who granted an application, its owner included.
			`CREATE TABLE application_grants (
				app_id BIGINT NOT NULL REFERENCES applications (id) ON DELETE CASCADE,
				user_id BIGINT NOT NULL REFERENCES users (id),
				PRIMARY KEY (app_id, user_id)
			)`,
			`CREATE INDEX application_grants_user ON application_grants (user_id, app_id)`,
			`CREATE TABLE application_topics (
				app_id BIGINT NOT NULL REFERENCES applications (id) ON DELETE CASCADE,
				topic TEXT NOT NULL,
				PRIMARY KEY (app_id, topic)
			)`,
			`CREATE INDEX application_topics_topic ON application_topics (topic, app_id)`,
		)
	}, func(ctx context.Context, db *bun.DB) error {
		return Exec(ctx, db, `DROP TABLE application_topics`, `DROP TABLE application_grants`, `DROP TABLE applications`)
	})
}
