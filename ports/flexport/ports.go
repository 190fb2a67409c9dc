// Package flexport declares the ports of the local delivery ('flex')
// module: subscriptions and shipments.
package flexport

import (
	"context"
	"errors"

	"github.com/feria/feria/core/flex"
)

// ErrNotFound is returned by stores for a missing row.
var ErrNotFound = errors.New("not found")

// Service is what HTTP, the sandbox and other modules call.
type Service interface {
	// PutSubscription validates, completes with defaults and upserts a
	// subscription (sandbox); its user must exist.
	PutSubscription(ctx context.Context, s flex.Subscription) (flex.Subscription, error)
	Subscription(ctx context.Context, serviceID int64) (flex.Subscription, error)
	SubscriptionsOfUser(ctx context.Context, userID int64) ([]flex.Subscription, error)
	// PutShipment validates and upserts a shipment; its order must exist.
	PutShipment(ctx context.Context, s flex.Shipment) (flex.Shipment, error)
	Shipment(ctx context.Context, id int64) (flex.Shipment, error)
}

// Store persists subscriptions and shipments.
type Store interface {
	// UpsertSubscription stores a subscription; an existing one keeps its
	// creation_date.
	UpsertSubscription(ctx context.Context, s flex.Subscription) error
	Subscription(ctx context.Context, serviceID int64) (flex.Subscription, error)
	SubscriptionsOfUser(ctx context.Context, userID int64) ([]flex.Subscription, error)
	UpsertShipment(ctx context.Context, s flex.Shipment) error
	Shipment(ctx context.Context, id int64) (flex.Shipment, error)
}
