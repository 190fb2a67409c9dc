package migrations

import (
	"context"

	"github.com/uptrace/bun"
)

// The notifications to integrators' applications: the last state each
// watched resource showed (a change that changes nothing notifies nobody),
// the notifications in creation order (seq), with their last request and
// response for the missed feeds, and one row per attempt.
func init() {
	All.MustRegister(func(ctx context.Context, db *bun.DB) error {
		return Exec(ctx, db,
			`CREATE TABLE webhook_states (
				topic TEXT NOT NULL,
				resource TEXT NOT NULL,
				fingerprint TEXT NOT NULL,
				PRIMARY KEY (topic, resource)
			)`,
			`CREATE TABLE webhook_notifications (
				seq BIGSERIAL PRIMARY KEY,
				id TEXT NOT NULL UNIQUE,
				app_id BIGINT NOT NULL,
				topic TEXT NOT NULL,
				resource TEXT NOT NULL,
				user_id BIGINT NOT NULL,
				received_at TIMESTAMPTZ NOT NULL,
				state TEXT NOT NULL,
				attempts INTEGER NOT NULL,
				sent_at TIMESTAMPTZ,
				due_at TIMESTAMPTZ,
				missed_at TIMESTAMPTZ,
				last_request JSONB,
				last_response JSONB
			)`,
			`CREATE INDEX webhook_notifications_app ON webhook_notifications (app_id, seq)`,
			`CREATE INDEX webhook_notifications_missed ON webhook_notifications (app_id, missed_at) WHERE state = 'missed'`,
			`CREATE TABLE webhook_deliveries (
				notification_id TEXT NOT NULL REFERENCES webhook_notifications (id) ON DELETE CASCADE,
				attempt INTEGER NOT NULL,
				at TIMESTAMPTZ NOT NULL,
				wall TIMESTAMPTZ NOT NULL,
				http_code INTEGER,
				duration_ms BIGINT NOT NULL,
				error TEXT,
				done BOOLEAN NOT NULL,
				PRIMARY KEY (notification_id, attempt)
			)`,
		)
	}, func(ctx context.Context, db *bun.DB) error {
		return Exec(ctx, db, `DROP TABLE webhook_deliveries`, `DROP TABLE webhook_notifications`, `DROP TABLE webhook_states`)
	})
}
