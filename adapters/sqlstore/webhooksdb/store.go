// Package webhooksdb stores the notifications to integrators' applications
// through bun: the watched resources' last states, the notifications and
// their attempts.
package webhooksdb

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/feria/feria/adapters/sqlstore"
	"github.com/feria/feria/core/paging"
	"github.com/feria/feria/core/webhooks"
	"github.com/feria/feria/ports/outboxport"
	"github.com/feria/feria/ports/webhooksport"
)

// Store implements webhooksport.Store on bun.
type Store struct{ db bun.IDB }

var (
	_ webhooksport.Store = (*Store)(nil)
	_ outboxport.Pruner  = (*Store)(nil)
)

// New returns a store on db.
func New(db bun.IDB) *Store { return &Store{db: db} }

type stateRow struct {
	bun.BaseModel `bun:"table:webhook_states"`

	Topic       string `bun:"topic,pk"`
	Resource    string `bun:"resource,pk"`
	Fingerprint string `bun:"fingerprint"`
}

type noteRow struct {
	bun.BaseModel `bun:"table:webhook_notifications"`

	Seq          int64              `bun:"seq,pk,autoincrement"`
	ID           string             `bun:"id"`
	AppID        int64              `bun:"app_id"`
	Topic        string             `bun:"topic"`
	Resource     string             `bun:"resource"`
	UserID       int64              `bun:"user_id"`
	ReceivedAt   time.Time          `bun:"received_at"`
	State        string             `bun:"state"`
	Attempts     int                `bun:"attempts"`
	SentAt       *time.Time         `bun:"sent_at"`
	DueAt        *time.Time         `bun:"due_at"`
	MissedAt     *time.Time         `bun:"missed_at"`
	LastRequest  *webhooks.Request  `bun:"last_request,type:jsonb"`
	LastResponse *webhooks.Response `bun:"last_response,type:jsonb"`
}

type deliveryRow struct {
	bun.BaseModel `bun:"table:webhook_deliveries"`

	NotificationID string    `bun:"notification_id,pk"`
	Attempt        int       `bun:"attempt,pk"`
	At             time.Time `bun:"at"`
	Wall           time.Time `bun:"wall"`
	HTTPCode       *int      `bun:"http_code"`
	DurationMS     int64     `bun:"duration_ms"`
	Error          *string   `bun:"error"`
	Done           bool      `bun:"done"`
}

func (r noteRow) notification() webhooks.Notification {
	return webhooks.Notification{ID: r.ID, AppID: r.AppID, Topic: r.Topic, Resource: r.Resource, UserID: r.UserID,
		Received: r.ReceivedAt, State: r.State, Attempts: r.Attempts, Sent: r.SentAt, Due: r.DueAt, MissedAt: r.MissedAt,
		Request: r.LastRequest, Response: r.LastResponse}
}

func (r deliveryRow) delivery() webhooks.Delivery {
	return webhooks.Delivery{Attempt: r.Attempt, At: webhooks.Stamp(r.At), Wall: r.Wall, HTTPCode: r.HTTPCode,
		DurationMS: r.DurationMS, Error: r.Error, Done: r.Done}
}

func (s *Store) idb(ctx context.Context) bun.IDB { return sqlstore.IDB(ctx, s.db) }

// SwapState inserts the resource's first state, or else replaces a
// different one; each statement locks the row, so two concurrent changes
// of one resource are told apart against each other's committed state.
func (s *Store) SwapState(ctx context.Context, topic, resource, fp string) (created, changed bool, err error) {
	row := stateRow{Topic: topic, Resource: resource, Fingerprint: fp}
	res, err := s.idb(ctx).NewInsert().Model(&row).On("CONFLICT (topic, resource) DO NOTHING").Exec(ctx)
	if err != nil {
		return false, false, fmt.Errorf("webhooksdb: state of %s %s: %w", topic, resource, err)
	}
	if n, _ := res.RowsAffected(); n == 1 {
		return true, false, nil
	}
	res, err = s.idb(ctx).NewUpdate().Model((*stateRow)(nil)).Set("fingerprint = ?", fp).
		Where("topic = ? AND resource = ? AND fingerprint <> ?", topic, resource, fp).Exec(ctx)
	if err != nil {
		return false, false, fmt.Errorf("webhooksdb: state of %s %s: %w", topic, resource, err)
	}
	n, _ := res.RowsAffected()
	return false, n == 1, nil
}

// Add stores new notifications in their order.
func (s *Store) Add(ctx context.Context, ns []webhooks.Notification) error {
	if len(ns) == 0 {
		return nil
	}
	rows := make([]noteRow, len(ns))
	for i, n := range ns {
		rows[i] = noteRow{ID: n.ID, AppID: n.AppID, Topic: n.Topic, Resource: n.Resource, UserID: n.UserID,
			ReceivedAt: n.Received, State: n.State}
	}
	if _, err := s.idb(ctx).NewInsert().Model(&rows).ExcludeColumn("seq").Exec(ctx); err != nil {
		return fmt.Errorf("webhooksdb: add notifications: %w", err)
	}
	return nil
}

// Notification returns a notification with its deliveries.
func (s *Store) Notification(ctx context.Context, id string) (webhooks.Notification, error) {
	var row noteRow
	err := s.idb(ctx).NewSelect().Model(&row).Where("id = ?", id).Scan(ctx)
	if sqlstore.IsNoRows(err) {
		return webhooks.Notification{}, fmt.Errorf("webhooksdb: notification %s: %w", id, webhooksport.ErrNotFound)
	}
	if err != nil {
		return webhooks.Notification{}, fmt.Errorf("webhooksdb: notification %s: %w", id, err)
	}
	out, err := s.withDeliveries(ctx, []noteRow{row})
	if err != nil {
		return webhooks.Notification{}, err
	}
	return out[0], nil
}

// withDeliveries reads the deliveries of the rows' notifications in one
// query.
func (s *Store) withDeliveries(ctx context.Context, rows []noteRow) ([]webhooks.Notification, error) {
	out := make([]webhooks.Notification, len(rows))
	if len(rows) == 0 {
		return out, nil
	}
	at := make(map[string]int, len(rows))
	ids := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.notification()
		at[r.ID], ids[i] = i, r.ID
	}
	var ds []deliveryRow
	err := s.idb(ctx).NewSelect().Model(&ds).Where("notification_id IN (?)", bun.In(ids)).
		OrderExpr("notification_id, attempt").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("webhooksdb: deliveries: %w", err)
	}
	for _, d := range ds {
		i := at[d.NotificationID]
		out[i].Deliveries = append(out[i].Deliveries, d.delivery())
	}
	return out, nil
}

// StartAttempt moves the notification to attempt d.Attempt and adds its
// delivery, in one transaction; the conditional update locks the row, so
// that two jobs of one notification cannot both start the attempt.
func (s *Store) StartAttempt(ctx context.Context, id string, d webhooks.Delivery, req webhooks.Request) (bool, error) {
	started := false
	err := sqlstore.Tx{DB: s.db}.RunInTx(ctx, func(ctx context.Context) error {
		sent := time.Time(d.At)
		res, err := s.idb(ctx).NewUpdate().Model((*noteRow)(nil)).
			Set("attempts = ?", d.Attempt).Set("sent_at = ?", sent).Set("due_at = NULL").Set("last_request = ?", &req).
			Where("id = ? AND attempts = ? AND state IN (?)", id, d.Attempt-1, bun.In([]string{webhooks.Pending, webhooks.Retrying})).
			Where("NOT EXISTS (SELECT 1 FROM webhook_deliveries WHERE notification_id = ? AND NOT done)", id).
			Exec(ctx)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return nil
		}
		row := deliveryRow{NotificationID: id, Attempt: d.Attempt, At: sent, Wall: d.Wall}
		if _, err := s.idb(ctx).NewInsert().Model(&row).Exec(ctx); err != nil {
			return err
		}
		started = true
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("webhooksdb: start attempt %d of %s: %w", d.Attempt, id, err)
	}
	return started, nil
}

// FinishAttempt records the attempt's result and the notification's new
// state, in one transaction, if the attempt is still running.
func (s *Store) FinishAttempt(ctx context.Context, n webhooks.Notification, d webhooks.Delivery) (bool, error) {
	finished := false
	err := sqlstore.Tx{DB: s.db}.RunInTx(ctx, func(ctx context.Context) error {
		res, err := s.idb(ctx).NewUpdate().Model((*deliveryRow)(nil)).
			Set("http_code = ?", d.HTTPCode).Set("duration_ms = ?", d.DurationMS).Set("error = ?", d.Error).Set("done = ?", true).
			Where("notification_id = ? AND attempt = ? AND NOT done", n.ID, d.Attempt).Exec(ctx)
		if err != nil {
			return err
		}
		if k, _ := res.RowsAffected(); k != 1 {
			return nil
		}
		res, err = s.idb(ctx).NewUpdate().Model((*noteRow)(nil)).
			Set("state = ?", n.State).Set("due_at = ?", n.Due).Set("missed_at = ?", n.MissedAt).Set("last_response = ?", n.Response).
			Where("id = ? AND attempts = ?", n.ID, d.Attempt).Exec(ctx)
		if err != nil {
			return err
		}
		k, _ := res.RowsAffected()
		finished = k == 1
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("webhooksdb: finish attempt %d of %s: %w", d.Attempt, n.ID, err)
	}
	return finished, nil
}

func filter(q *bun.SelectQuery, f webhooksport.Filter) *bun.SelectQuery {
	if f.AppID != 0 {
		q = q.Where("app_id = ?", f.AppID)
	}
	if f.Topic != "" {
		q = q.Where("topic = ?", f.Topic)
	}
	return q
}

// List returns the newest limit notifications that match, oldest first.
func (s *Store) List(ctx context.Context, f webhooksport.Filter, limit int) ([]webhooks.Notification, error) {
	var rows []noteRow
	err := filter(s.idb(ctx).NewSelect().Model(&rows), f).OrderExpr("seq DESC").Limit(int64(limit)).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("webhooksdb: list: %w", err)
	}
	for i, j := 0, len(rows)-1; i < j; i, j = i+1, j-1 {
		rows[i], rows[j] = rows[j], rows[i]
	}
	return s.withDeliveries(ctx, rows)
}

// Missed returns a page of missed notifications missed after since.
func (s *Store) Missed(ctx context.Context, f webhooksport.Filter, since time.Time, page paging.Request) ([]webhooks.Notification, int, error) {
	var rows []noteRow
	q := filter(s.idb(ctx).NewSelect().Model(&rows), f).Where("state = ?", webhooks.Missed).Where("missed_at > ?", since)
	n, err := q.Clone().Count(ctx)
	total := int(n)
	if err != nil {
		return nil, 0, fmt.Errorf("webhooksdb: missed count: %w", err)
	}
	out := []webhooks.Notification{}
	if page.Limit > 0 && page.Offset < total {
		if err := q.OrderExpr("seq").Limit(int64(page.Limit)).Offset(int64(page.Offset)).Scan(ctx); err != nil {
			return nil, 0, fmt.Errorf("webhooksdb: missed: %w", err)
		}
		for _, r := range rows {
			out = append(out, r.notification())
		}
	}
	return out, total, nil
}

// Counts is one grouped count over the notifications: hand-written SQL,
// the fast path of a scrape.
func (s *Store) Counts(ctx context.Context) ([]webhooks.Count, error) {
	var rows []struct {
		Topic     string `bun:"topic"`
		Created   int    `bun:"created"`
		Delivered int    `bun:"delivered"`
		Missed    int    `bun:"missed"`
		Retried   int    `bun:"retried"`
	}
	err := s.idb(ctx).NewRaw(`SELECT topic, COUNT(*) AS created,
		SUM(CASE WHEN state = ? THEN 1 ELSE 0 END) AS delivered,
		SUM(CASE WHEN state = ? THEN 1 ELSE 0 END) AS missed,
		SUM(CASE WHEN attempts > 1 THEN attempts - 1 ELSE 0 END) AS retried
		FROM webhook_notifications GROUP BY topic ORDER BY topic`, webhooks.Delivered, webhooks.Missed).Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("webhooksdb: counts: %w", err)
	}
	out := make([]webhooks.Count, len(rows))
	for i, r := range rows {
		out[i] = webhooks.Count{Topic: r.Topic, Created: r.Created, Delivered: r.Delivered, Missed: r.Missed, Retried: r.Retried}
	}
	return out, nil
}

// Prune removes the notifications delivered or missed before before (the
// time of their last attempt), with their attempts (ON DELETE CASCADE).
// Notifications still to be tried stay. The retention is at least
// webhooks.KeepMissed (app's configuration), so that a missed feed is
// listed its two days.
func (s *Store) Prune(ctx context.Context, before time.Time) (int, error) {
	res, err := s.idb(ctx).NewDelete().Model((*noteRow)(nil)).WhereGroup(" AND ", func(q *bun.DeleteQuery) *bun.DeleteQuery {
		return q.Where("state = ? AND sent_at < ?", webhooks.Delivered, before.UTC()).
			WhereOr("state = ? AND missed_at < ?", webhooks.Missed, before.UTC())
	}).Exec(ctx)
	if err != nil {
		return 0, fmt.Errorf("webhooksdb: prune: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}
