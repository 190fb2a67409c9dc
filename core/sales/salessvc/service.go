// Package salessvc implements the sales use cases: storing orders (sandbox)
// and telling the observers of orders, in the same transaction.
package salessvc

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/core/sales"
	"github.com/feria/feria/core/webhooks"
	"github.com/feria/feria/ports/accountport"
	"github.com/feria/feria/ports/catalogport"
	"github.com/feria/feria/ports/salesport"
	"github.com/feria/feria/ports/webhooksport"
)

// Deps is what the service needs.
type Deps struct {
	Orders salesport.Orders
	Notes  salesport.Notes
	Users  accountport.Service
	Items  catalogport.Service
	// Observers are told of every stored order, in its transaction; none:
	// nobody is.
	Observers []salesport.OrderObserver
	// Changes are the notifications to applications (topic orders_v2),
	// told what GET /orders/{id} shows of every stored order.
	Changes webhooksport.Changes
	// Tx holds an order's row, its observers' writes and its notification
	// in one transaction.
	Tx    kernel.Tx
	Clock kernel.Clock
}

// Service implements salesport.Service.
type Service struct {
	orders    salesport.Orders
	notes     salesport.Notes
	users     accountport.Service
	items     catalogport.Service
	observers []salesport.OrderObserver
	changes   webhooksport.Changes
	tx        kernel.Tx
	clock     kernel.Clock
}

var _ salesport.Service = (*Service)(nil)

// New returns the sales service; it panics when a required port is nil.
func New(d Deps) *Service {
	kernel.MustWire(d)
	return &Service{orders: d.Orders, notes: d.Notes, users: d.Users, items: d.Items, observers: d.Observers, changes: d.Changes, tx: d.Tx, clock: d.Clock}
}

func invalid(field, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	return sales.ErrInvalidOrder.With(msg).WithCause(field, msg)
}

// PutOrder validates an order, checks its users and items, stores it and
// tells every observer, all in one transaction.
func (s *Service) PutOrder(ctx context.Context, o sales.Order) (sales.Order, error) {
	if o.Items == nil {
		o.Items = []sales.OrderItem{}
	}
	if sel := o.CompatibilitySelection; sel != nil && sel.LabelValues == nil {
		sel.LabelValues = []sales.LabelValue{}
	}
	if err := o.Validate(); err != nil {
		return o, err
	}
	for _, u := range []struct {
		field string
		id    int64
	}{{"seller_id", o.SellerID}, {"buyer_id", o.BuyerID}} {
		if _, err := s.users.User(ctx, u.id); kernel.KindOf(err) == kernel.NotExist {
			return o, invalid(u.field, "user %d does not exist", u.id)
		} else if err != nil {
			return o, err
		}
	}
	for i, line := range o.Items {
		it, err := s.items.Item(ctx, line.ItemID)
		if kernel.KindOf(err) == kernel.NotExist {
			return o, invalid(fmt.Sprintf("items[%d].item_id", i), "item %s does not exist", line.ItemID)
		}
		if err != nil {
			return o, err
		}
		if it.SellerID != o.SellerID {
			return o, invalid(fmt.Sprintf("items[%d].item_id", i), "item %s is not an item of seller %d", line.ItemID, o.SellerID)
		}
	}
	err := s.tx.RunInTx(ctx, func(ctx context.Context) error {
		o.DateCreated = s.clock.Now()
		if old, err := s.orders.Order(ctx, o.ID); err == nil {
			o.DateCreated = old.DateCreated
		} else if !errors.Is(err, salesport.ErrNotFound) {
			return err
		}
		first, err := s.orders.UpsertOrder(ctx, o)
		if err != nil {
			return err
		}
		for _, ob := range s.observers {
			if err := ob.OrderStored(ctx, o, first); err != nil {
				return err
			}
		}
		return s.changes.Changed(ctx, webhooks.Change{Topic: webhooks.TopicOrders,
			Resource: "/orders/" + strconv.FormatInt(o.ID, 10), UserID: o.SellerID, State: o.View()})
	})
	if err != nil {
		return o, err
	}
	return s.Order(ctx, o.ID)
}

// Order returns a stored order.
func (s *Service) Order(ctx context.Context, id int64) (sales.Order, error) {
	o, err := s.orders.Order(ctx, id)
	if errors.Is(err, salesport.ErrNotFound) {
		return o, sales.ErrOrderNotFound.Wrap(err)
	}
	return o, err
}

// OrderView returns the public resource of an order to its seller or
// buyer; an unknown order is 404 before anybody's permission is read.
func (s *Service) OrderView(ctx context.Context, id int64) (sales.OrderView, error) {
	caller, ok := kernel.CallerFrom(ctx)
	if !ok {
		return sales.OrderView{}, sales.ErrNoCaller
	}
	o, err := s.Order(ctx, id)
	if err != nil {
		return sales.OrderView{}, err
	}
	if !o.Concerns(caller.UserID) {
		return sales.OrderView{}, sales.ErrNotYourOrder.Withf("the caller is neither the seller nor the buyer of order %d", id)
	}
	return o.View(), nil
}
