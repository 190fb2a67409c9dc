// Package flexdb stores local delivery subscriptions and shipments through
// bun.
package flexdb

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/feria/feria/adapters/sqlstore"
	"github.com/feria/feria/core/flex"
	"github.com/feria/feria/ports/flexport"
)

// Store implements flexport.Store on bun.
type Store struct{ db bun.IDB }

var _ flexport.Store = (*Store)(nil)

// New returns a store on db.
func New(db bun.IDB) *Store { return &Store{db: db} }

type subscriptionRow struct {
	bun.BaseModel `bun:"table:flex_subscriptions"`

	ID           int64             `bun:"id,pk"`
	SiteID       string            `bun:"site_id"`
	UserID       int64             `bun:"user_id"`
	Mode         string            `bun:"mode"`
	Status       string            `bun:"status"`
	Body         flex.Subscription `bun:"body"`
	CreationDate time.Time         `bun:"creation_date"`
}

func (r subscriptionRow) subscription() flex.Subscription {
	s := r.Body
	s.CreationDate = r.CreationDate
	return s
}

type itemRow struct {
	bun.BaseModel `bun:"table:flex_items"`

	ItemID    string    `bun:"item_id,pk"`
	EnabledAt time.Time `bun:"enabled_at"`
}

type shipmentRow struct {
	bun.BaseModel `bun:"table:shipments"`
	flex.Shipment
}

// UpsertSubscription stores a subscription under its service id after
// check accepts the stored subscriptions of its user and of its former user,
// read with FOR UPDATE on PostgreSQL (SQLite transactions take the database
// lock at BEGIN) so that a concurrent writer waits for the write; an
// existing subscription keeps its creation_date.
func (s *Store) UpsertSubscription(ctx context.Context, sub flex.Subscription, check func([]flex.Subscription) error) error {
	return sqlstore.Tx{DB: s.db}.RunInTx(ctx, func(ctx context.Context) error {
		db := sqlstore.IDB(ctx, s.db)
		var rows []subscriptionRow
		q := db.NewSelect().Model(&rows).
			Where("user_id = ? OR user_id IN (SELECT user_id FROM flex_subscriptions WHERE id = ?)", sub.UserID, sub.ServiceID).
			OrderExpr("id")
		if sqlstore.IsPostgres(db) {
			q = q.For("UPDATE")
		}
		if err := q.Scan(ctx); err != nil {
			return fmt.Errorf("flexdb: lock subscriptions of user %d: %w", sub.UserID, err)
		}
		current := make([]flex.Subscription, len(rows))
		for i, r := range rows {
			current[i] = r.subscription()
		}
		if err := check(current); err != nil {
			return err
		}
		row := subscriptionRow{ID: sub.ServiceID, SiteID: sub.SiteID, UserID: sub.UserID, Mode: sub.Mode,
			Status: sub.Status.ID, Body: sub, CreationDate: sub.CreationDate}
		_, err := db.NewInsert().Model(&row).On("CONFLICT (id) DO UPDATE").
			Set("site_id = EXCLUDED.site_id, user_id = EXCLUDED.user_id, mode = EXCLUDED.mode, status = EXCLUDED.status, body = EXCLUDED.body").
			Exec(ctx)
		if err != nil {
			return fmt.Errorf("flexdb: upsert subscription %d: %w", sub.ServiceID, err)
		}
		return nil
	})
}

// ChangeSubscription reads a subscription with FOR UPDATE (PostgreSQL; the
// SQLite transaction holds the database lock), applies change and stores the
// result in the same transaction, so that concurrent changes apply one after
// the other and none is lost.
func (s *Store) ChangeSubscription(ctx context.Context, serviceID int64, change func(flex.Subscription) (flex.Subscription, error)) (flex.Subscription, error) {
	var out flex.Subscription
	err := sqlstore.Tx{DB: s.db}.RunInTx(ctx, func(ctx context.Context) error {
		db := sqlstore.IDB(ctx, s.db)
		var row subscriptionRow
		q := db.NewSelect().Model(&row).Where("id = ?", serviceID)
		if sqlstore.IsPostgres(db) {
			q = q.For("UPDATE")
		}
		err := q.Scan(ctx)
		if sqlstore.IsNoRows(err) {
			return fmt.Errorf("flexdb: subscription %d: %w", serviceID, flexport.ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("flexdb: subscription %d: %w", serviceID, err)
		}
		changed, err := change(row.subscription())
		if err != nil {
			return err
		}
		// Only the configuration changes here: the columns queries filter
		// on stay as they are.
		row.Body.Configuration = changed.Configuration
		if _, err := db.NewUpdate().Model(&row).Column("body").WherePK().Exec(ctx); err != nil {
			return fmt.Errorf("flexdb: change subscription %d: %w", serviceID, err)
		}
		out = row.subscription()
		return nil
	})
	return out, err
}

// Subscription returns a subscription or flexport.ErrNotFound.
func (s *Store) Subscription(ctx context.Context, serviceID int64) (flex.Subscription, error) {
	var row subscriptionRow
	err := sqlstore.IDB(ctx, s.db).NewSelect().Model(&row).Where("id = ?", serviceID).Scan(ctx)
	if sqlstore.IsNoRows(err) {
		return flex.Subscription{}, fmt.Errorf("flexdb: subscription %d: %w", serviceID, flexport.ErrNotFound)
	}
	if err != nil {
		return flex.Subscription{}, fmt.Errorf("flexdb: subscription %d: %w", serviceID, err)
	}
	return row.subscription(), nil
}

// SubscriptionsOfUser lists a user's subscriptions by service id.
func (s *Store) SubscriptionsOfUser(ctx context.Context, userID int64) ([]flex.Subscription, error) {
	var rows []subscriptionRow
	if err := sqlstore.IDB(ctx, s.db).NewSelect().Model(&rows).Where("user_id = ?", userID).OrderExpr("id").Scan(ctx); err != nil {
		return nil, fmt.Errorf("flexdb: subscriptions of user %d: %w", userID, err)
	}
	out := make([]flex.Subscription, len(rows))
	for i, r := range rows {
		out[i] = r.subscription()
	}
	return out, nil
}

// UpsertShipment stores a shipment.
func (s *Store) UpsertShipment(ctx context.Context, sh flex.Shipment) error {
	_, err := sqlstore.IDB(ctx, s.db).NewInsert().Model(&shipmentRow{Shipment: sh}).On("CONFLICT (id) DO UPDATE").
		Set("site_id = EXCLUDED.site_id, order_id = EXCLUDED.order_id, driver_id = EXCLUDED.driver_id").Exec(ctx)
	if err != nil {
		return fmt.Errorf("flexdb: upsert shipment %d: %w", sh.ID, err)
	}
	return nil
}

// Shipment returns a shipment or flexport.ErrNotFound.
func (s *Store) Shipment(ctx context.Context, id int64) (flex.Shipment, error) {
	var row shipmentRow
	err := sqlstore.IDB(ctx, s.db).NewSelect().Model(&row).Where("id = ?", id).Scan(ctx)
	if sqlstore.IsNoRows(err) {
		return flex.Shipment{}, fmt.Errorf("flexdb: shipment %d: %w", id, flexport.ErrNotFound)
	}
	if err != nil {
		return flex.Shipment{}, fmt.Errorf("flexdb: shipment %d: %w", id, err)
	}
	return row.Shipment, nil
}

// EnableItem inserts the item's row; an existing row is left alone and
// answers false, so that of two concurrent enables only one succeeds.
func (s *Store) EnableItem(ctx context.Context, itemID string, at time.Time) (bool, error) {
	res, err := sqlstore.IDB(ctx, s.db).NewInsert().Model(&itemRow{ItemID: itemID, EnabledAt: at}).
		On("CONFLICT (item_id) DO NOTHING").Exec(ctx)
	if err != nil {
		return false, fmt.Errorf("flexdb: enable item %s: %w", itemID, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("flexdb: enable item %s: %w", itemID, err)
	}
	return n == 1, nil
}

// DisableItem deletes the item's row; false when there was none.
func (s *Store) DisableItem(ctx context.Context, itemID string) (bool, error) {
	res, err := sqlstore.IDB(ctx, s.db).NewDelete().Model((*itemRow)(nil)).Where("item_id = ?", itemID).Exec(ctx)
	if err != nil {
		return false, fmt.Errorf("flexdb: disable item %s: %w", itemID, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("flexdb: disable item %s: %w", itemID, err)
	}
	return n == 1, nil
}

// ItemEnabled reports whether the item has a row. (GET /items/{id} reads
// the same row in its own statement: catalogdb's selfServiceSQL.)
func (s *Store) ItemEnabled(ctx context.Context, itemID string) (bool, error) {
	var ok bool
	err := sqlstore.QueryRow(ctx, s.db, `SELECT EXISTS (SELECT 1 FROM flex_items WHERE item_id = $1)`, itemID).Scan(&ok)
	if err != nil {
		return false, fmt.Errorf("flexdb: item %s: %w", itemID, err)
	}
	return ok, nil
}
