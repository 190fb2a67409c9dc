// Package flexport declares the ports of the local delivery ('flex')
// module: subscriptions, shipments and the items the option is enabled on.
package flexport

import (
	"context"
	"errors"
	"time"

	"github.com/feria/feria/core/flex"
)

// ErrNotFound is returned by stores for a missing row.
var ErrNotFound = errors.New("not found")

// Service is what HTTP, the sandbox and other modules call.
type Service interface {
	// PutSubscription validates, completes with defaults and upserts a
	// subscription (sandbox); its user must exist, and a TURBO one needs a
	// FLEX one of the same user and site.
	PutSubscription(ctx context.Context, s flex.Subscription) (flex.Subscription, error)
	Subscription(ctx context.Context, serviceID int64) (flex.Subscription, error)
	SubscriptionsOfUser(ctx context.Context, userID int64) ([]flex.Subscription, error)
	// PutShipment validates and upserts a shipment; its order must exist.
	PutShipment(ctx context.Context, s flex.Shipment) (flex.Shipment, error)
	Shipment(ctx context.Context, id int64) (flex.Shipment, error)
	// ShipmentView is GET /shipments/{id}, for the seller and the buyer of
	// the shipment's order (the caller in ctx).
	ShipmentView(ctx context.Context, id int64) (flex.Shipment, error)
	// ShipmentItems is GET /shipments/{id}/items: the lines of the
	// shipment's order, for the same callers as ShipmentView.
	ShipmentItems(ctx context.Context, id int64) ([]flex.ShipmentItem, error)

	// The public API of area E; every call needs the caller in ctx.

	// Subscriptions lists the subscriptions of a user on a site; the caller
	// must be that user.
	Subscriptions(ctx context.Context, siteID string, userID int64) ([]flex.Subscription, error)
	// Configuration is the subscription of the user and service pair on the
	// site, whose configuration the configuration read answers; the caller
	// must be that user.
	Configuration(ctx context.Context, siteID string, userID, serviceID int64) (flex.Subscription, error)
	// ChangeDelivery and ChangeZones apply a configuration change of the
	// caller's subscription and answer the configuration as stored.
	ChangeDelivery(ctx context.Context, siteID string, userID, serviceID int64, ch flex.DeliveryChange) (flex.Configuration, error)
	ChangeZones(ctx context.Context, siteID string, userID, serviceID int64, ch flex.ZoneChange) (flex.Configuration, error)
	// ItemOption answers nil when local delivery is enabled on the item;
	// EnableItem and DisableItem change it. The caller must be the item's
	// seller.
	ItemOption(ctx context.Context, siteID, itemID string) error
	EnableItem(ctx context.Context, siteID, itemID string) error
	DisableItem(ctx context.Context, siteID, itemID string) error
	// Assignment answers the driver assigned to a shipment; the caller must
	// be the seller of the shipment's order.
	Assignment(ctx context.Context, siteID string, shipmentID int64) (int64, error)
}

// Store persists subscriptions, shipments and the items local delivery is
// enabled on.
type Store interface {
	// UpsertSubscription stores a subscription after check accepts the
	// stored subscriptions of its user and of the user it belonged to (its
	// own stored version included). They are read under a lock held until
	// the write, so that two writers cannot both pass a check that only one
	// of them may; check's error is returned as is and nothing is written.
	// An existing subscription keeps its creation_date.
	UpsertSubscription(ctx context.Context, s flex.Subscription, check func(current []flex.Subscription) error) error
	// ChangeSubscription reads a subscription under a lock, stores what
	// change makes of it and returns that; an error of change is returned
	// as is and nothing is written. ErrNotFound for a missing subscription.
	ChangeSubscription(ctx context.Context, serviceID int64, change func(flex.Subscription) (flex.Subscription, error)) (flex.Subscription, error)
	Subscription(ctx context.Context, serviceID int64) (flex.Subscription, error)
	SubscriptionsOfUser(ctx context.Context, userID int64) ([]flex.Subscription, error)
	UpsertShipment(ctx context.Context, s flex.Shipment) error
	Shipment(ctx context.Context, id int64) (flex.Shipment, error)
	// EnableItem records that local delivery is enabled on an item; false
	// when it already was (nothing changes then).
	EnableItem(ctx context.Context, itemID string, at time.Time) (bool, error)
	// DisableItem removes the record; false when there was none.
	DisableItem(ctx context.Context, itemID string) (bool, error)
	// ItemEnabled reports whether local delivery is enabled on an item.
	ItemEnabled(ctx context.Context, itemID string) (bool, error)
}
