// Package flexsvc implements the local delivery use cases: the sandbox's
// subscriptions (with default configuration) and shipments, and the public
// API of area E (subscriptions, configuration read and changes, the item
// option, driver assignments).
package flexsvc

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/feria/feria/core/flex"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/core/sales"
	"github.com/feria/feria/core/webhooks"
	"github.com/feria/feria/ports/accountport"
	"github.com/feria/feria/ports/catalogport"
	"github.com/feria/feria/ports/flexport"
	"github.com/feria/feria/ports/salesport"
	"github.com/feria/feria/ports/webhooksport"
)

// Deps is what the service needs.
type Deps struct {
	Store  flexport.Store
	Users  accountport.Service
	Orders salesport.Service
	// Catalog tells which items offer the option.
	Catalog catalogport.Service
	// Changes are the notifications to applications, told of shipments
	// (topics shipments and flex-handshakes).
	Changes webhooksport.Changes
	// Items is told of the item option, which changes the item's resource.
	Items catalogport.ItemWatch
	// Tx holds a write and what it tells Changes or Items in one
	// transaction.
	Tx    kernel.Tx
	Clock kernel.Clock
}

// Service implements flexport.Service.
type Service struct {
	store   flexport.Store
	users   accountport.Service
	orders  salesport.Service
	catalog catalogport.Service
	changes webhooksport.Changes
	items   catalogport.ItemWatch
	tx      kernel.Tx
	clock   kernel.Clock
}

var _ flexport.Service = (*Service)(nil)

// New returns the flex service; it panics when a required port is nil.
func New(d Deps) *Service {
	kernel.MustWire(d)
	return &Service{store: d.Store, users: d.Users, orders: d.Orders, catalog: d.Catalog, changes: d.Changes,
		items: d.Items, tx: d.Tx, clock: d.Clock}
}

// PutSubscription completes a subscription with defaults, validates it,
// checks its user and stores it unless it would leave a TURBO subscription
// without a FLEX one (checked by the store under a lock); creation_date is
// kept.
func (s *Service) PutSubscription(ctx context.Context, sub flex.Subscription) (flex.Subscription, error) {
	sub = sub.WithDefaults()
	sub.ID = sub.ServiceID
	if err := sub.Validate(); err != nil {
		return sub, err
	}
	if _, err := s.users.User(ctx, sub.UserID); kernel.KindOf(err) == kernel.NotExist {
		msg := fmt.Sprintf("user %d does not exist", sub.UserID)
		return sub, flex.ErrInvalidSubscription.With(msg).WithCause("user_id", msg)
	} else if err != nil {
		return sub, err
	}
	// The store keeps the creation_date of an existing subscription.
	sub.CreationDate = s.clock.Now()
	check := func(current []flex.Subscription) error { return flex.CheckTurbo(current, sub) }
	if err := s.store.UpsertSubscription(ctx, sub, check); err != nil {
		return sub, err
	}
	return s.Subscription(ctx, sub.ServiceID)
}

// Subscription returns a stored subscription.
func (s *Service) Subscription(ctx context.Context, serviceID int64) (flex.Subscription, error) {
	sub, err := s.store.Subscription(ctx, serviceID)
	if errors.Is(err, flexport.ErrNotFound) {
		return sub, flex.ErrSubscriptionNotFound.Wrap(err)
	}
	return sub, err
}

// SubscriptionsOfUser lists a user's subscriptions.
func (s *Service) SubscriptionsOfUser(ctx context.Context, userID int64) ([]flex.Subscription, error) {
	return s.store.SubscriptionsOfUser(ctx, userID)
}

// PutShipment validates a shipment, checks its order and stores it.
func (s *Service) PutShipment(ctx context.Context, sh flex.Shipment) (flex.Shipment, error) {
	if err := sh.Validate(); err != nil {
		return sh, err
	}
	o, err := s.orders.Order(ctx, sh.OrderID)
	if kernel.KindOf(err) == kernel.NotExist {
		msg := fmt.Sprintf("order %d does not exist", sh.OrderID)
		return sh, flex.ErrInvalidShipment.With(msg).WithCause("order_id", msg)
	}
	if err != nil {
		return sh, err
	}
	if o.SiteID != sh.SiteID {
		msg := fmt.Sprintf("order %d is of site %s, not %s", sh.OrderID, o.SiteID, sh.SiteID)
		return sh, flex.ErrInvalidShipment.With(msg).WithCause("site_id", msg)
	}
	err = s.tx.RunInTx(ctx, func(ctx context.Context) error {
		if err := s.store.UpsertShipment(ctx, sh); err != nil {
			return err
		}
		return s.shipmentChanged(ctx, sh, o.SellerID)
	})
	if err != nil {
		return sh, err
	}
	return s.Shipment(ctx, sh.ID)
}

// shipmentChanged tells the notifications what GET /shipments/{id} and the
// driver assignment show now, for the order's seller.
func (s *Service) shipmentChanged(ctx context.Context, sh flex.Shipment, sellerID int64) error {
	id := strconv.FormatInt(sh.ID, 10)
	if err := s.changes.Changed(ctx, webhooks.Change{Topic: webhooks.TopicShipments, Resource: "/shipments/" + id,
		UserID: sellerID, State: sh}); err != nil {
		return err
	}
	return s.changes.Changed(ctx, webhooks.Change{Topic: webhooks.TopicFlexHandshakes,
		Resource: "/flex/sites/" + sh.SiteID + "/shipments/" + id + "/assignment/v1", UserID: sellerID, State: sh.DriverID})
}

// Shipment returns a stored shipment.
func (s *Service) Shipment(ctx context.Context, id int64) (flex.Shipment, error) {
	sh, err := s.store.Shipment(ctx, id)
	if errors.Is(err, flexport.ErrNotFound) {
		return sh, flex.ErrShipmentNotFound.Wrap(err)
	}
	return sh, err
}

// ShipmentView returns a shipment to the seller or the buyer of its order;
// an unknown shipment is 404 before anybody's permission is read.
func (s *Service) ShipmentView(ctx context.Context, id int64) (flex.Shipment, error) {
	sh, _, err := s.shipmentOfCaller(ctx, id)
	return sh, err
}

// shipmentOfCaller reads a shipment and its order for the order's seller or
// buyer; an unknown shipment is 404 before anybody's permission is read.
func (s *Service) shipmentOfCaller(ctx context.Context, id int64) (flex.Shipment, sales.Order, error) {
	c, err := caller(ctx)
	if err != nil {
		return flex.Shipment{}, sales.Order{}, err
	}
	sh, err := s.Shipment(ctx, id)
	if err != nil {
		return sh, sales.Order{}, err
	}
	o, err := s.orders.Order(ctx, sh.OrderID)
	if err != nil {
		return flex.Shipment{}, sales.Order{}, err
	}
	if !o.Concerns(c.UserID) {
		return flex.Shipment{}, sales.Order{}, flex.ErrNotYourShipment.Withf("the caller is neither the seller nor the buyer of the order of shipment %d", id)
	}
	return sh, o, nil
}

// ShipmentItems lists the lines of a shipment's order, each described by
// its item's title (an item deleted since: its id).
func (s *Service) ShipmentItems(ctx context.Context, id int64) ([]flex.ShipmentItem, error) {
	_, o, err := s.shipmentOfCaller(ctx, id)
	if err != nil {
		return nil, err
	}
	out := make([]flex.ShipmentItem, len(o.Items))
	for i, line := range o.Items {
		title := line.ItemID
		it, err := s.catalog.Item(ctx, line.ItemID)
		switch {
		case err == nil:
			title = it.Title
		case kernel.KindOf(err) != kernel.NotExist:
			return nil, err
		}
		out[i] = flex.ShipmentItem{ItemID: line.ItemID, Description: title, Quantity: line.Quantity, SenderID: o.SellerID, OrderID: o.ID}
	}
	return out, nil
}
