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

type shipmentRow struct {
	bun.BaseModel `bun:"table:shipments"`
	flex.Shipment
}

// UpsertSubscription stores a subscription under its service id; an
// existing one keeps its creation_date.
func (s *Store) UpsertSubscription(ctx context.Context, sub flex.Subscription) error {
	row := subscriptionRow{ID: sub.ServiceID, SiteID: sub.SiteID, UserID: sub.UserID, Mode: sub.Mode,
		Status: sub.Status.ID, Body: sub, CreationDate: sub.CreationDate}
	_, err := sqlstore.IDB(ctx, s.db).NewInsert().Model(&row).On("CONFLICT (id) DO UPDATE").
		Set("site_id = EXCLUDED.site_id, user_id = EXCLUDED.user_id, mode = EXCLUDED.mode, status = EXCLUDED.status, body = EXCLUDED.body").
		Exec(ctx)
	if err != nil {
		return fmt.Errorf("flexdb: upsert subscription %d: %w", sub.ServiceID, err)
	}
	return nil
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
