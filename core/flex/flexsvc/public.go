package flexsvc

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/feria/feria/core/catalog"
	"github.com/feria/feria/core/flex"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/ports/flexport"
)

// ErrNoCaller is a route without authentication calling a use case that
// needs the caller: a wiring fault, never the client's.
var ErrNoCaller = errors.New("flexsvc: no caller in context")

func caller(ctx context.Context) (kernel.Caller, error) {
	c, ok := kernel.CallerFrom(ctx)
	if !ok {
		return c, ErrNoCaller
	}
	return c, nil
}

// ownUser checks the path's site and user for the subscriptions and
// configuration reads: the user must exist (404 "user not found") and be the
// caller (400 "can't access to resource"). Existence comes first, so that
// the 404 row is reachable; user ids are not secret (brands show them).
func (s *Service) ownUser(ctx context.Context, siteID string, userID int64) error {
	if err := flex.CheckSite(siteID); err != nil {
		return err
	}
	c, err := caller(ctx)
	if err != nil {
		return err
	}
	if _, err := s.users.User(ctx, userID); kernel.KindOf(err) == kernel.NotExist {
		return flex.ErrUserNotFound.Withf("user not found: %d", userID)
	} else if err != nil {
		return err
	}
	if c.UserID != userID {
		return flex.ErrNoAccess.Withf("can't access to resource: user %d is not the caller", userID)
	}
	return nil
}

// Subscriptions lists the user's subscriptions on the site, by service id.
func (s *Service) Subscriptions(ctx context.Context, siteID string, userID int64) ([]flex.Subscription, error) {
	if err := s.ownUser(ctx, siteID, userID); err != nil {
		return nil, err
	}
	all, err := s.store.SubscriptionsOfUser(ctx, userID)
	if err != nil {
		return nil, err
	}
	out := []flex.Subscription{}
	for _, sub := range all {
		if sub.SiteID == siteID {
			out = append(out, sub)
		}
	}
	return out, nil
}

// Configuration returns the subscription of the pair on the site.
func (s *Service) Configuration(ctx context.Context, siteID string, userID, serviceID int64) (flex.Subscription, error) {
	if err := s.ownUser(ctx, siteID, userID); err != nil {
		return flex.Subscription{}, err
	}
	sub, err := s.store.Subscription(ctx, serviceID)
	if errors.Is(err, flexport.ErrNotFound) || err == nil && (sub.UserID != userID || sub.SiteID != siteID) {
		return flex.Subscription{}, flex.ErrNoSubscription.Withf("no subscription for the user_id %d and service_id %d pair on site %s", userID, serviceID, siteID)
	}
	return sub, err
}

// ChangeDelivery replaces the delivery ranges (and window) of the pair's
// configuration.
func (s *Service) ChangeDelivery(ctx context.Context, siteID string, userID, serviceID int64, ch flex.DeliveryChange) (flex.Configuration, error) {
	return s.change(ctx, siteID, userID, serviceID, func(c flex.Configuration) (flex.Configuration, error) {
		return flex.ApplyDelivery(c, ch)
	})
}

// ChangeZones adds zones to the selected ones of the pair's configuration.
func (s *Service) ChangeZones(ctx context.Context, siteID string, userID, serviceID int64, ch flex.ZoneChange) (flex.Configuration, error) {
	return s.change(ctx, siteID, userID, serviceID, func(c flex.Configuration) (flex.Configuration, error) {
		return flex.SelectZones(c, ch)
	})
}

// change applies a configuration change under the store's lock. The
// caller must be the user (400 "can't access to resource", checked first:
// the PUT rows have no "user not found", so another user's pairs are not
// probed); the pair must exist on the site (404 "can't update delivery
// custom"); an out subscription is refused (409); then the change's rules.
func (s *Service) change(ctx context.Context, siteID string, userID, serviceID int64, apply func(flex.Configuration) (flex.Configuration, error)) (flex.Configuration, error) {
	if err := flex.CheckSite(siteID); err != nil {
		return flex.Configuration{}, err
	}
	c, err := caller(ctx)
	if err != nil {
		return flex.Configuration{}, err
	}
	if c.UserID != userID {
		return flex.Configuration{}, flex.ErrNoAccess.Withf("can't access to resource: user %d is not the caller", userID)
	}
	noPair := flex.ErrCantUpdate.Withf("can't update delivery custom: no subscription for the user_id %d and service_id %d pair on site %s", userID, serviceID, siteID)
	sub, err := s.store.ChangeSubscription(ctx, serviceID, func(sub flex.Subscription) (flex.Subscription, error) {
		if sub.UserID != userID || sub.SiteID != siteID {
			return sub, noPair
		}
		if err := flex.CheckChangeable(sub); err != nil {
			return sub, err
		}
		conf, err := apply(sub.Configuration)
		sub.Configuration = conf
		return sub, err
	})
	if errors.Is(err, flexport.ErrNotFound) {
		return flex.Configuration{}, noPair
	}
	if err != nil {
		return flex.Configuration{}, err
	}
	return sub.Configuration, nil
}

// item finds the item of an option call and the facts that decide whether
// it offers the option. Unknown items and items of another site are 404
// "item not found"; only the item's seller may go further (403).
func (s *Service) item(ctx context.Context, siteID, itemID string) (flex.ItemFacts, error) {
	if err := flex.CheckSite(siteID); err != nil {
		return flex.ItemFacts{}, err
	}
	c, err := caller(ctx)
	if err != nil {
		return flex.ItemFacts{}, err
	}
	it, err := s.catalog.Item(ctx, itemID)
	if kernel.KindOf(err) == kernel.NotExist || err == nil && it.SiteID != siteID {
		return flex.ItemFacts{}, flex.ErrItemNotFound.Withf("item not found: %s", itemID)
	}
	if err != nil {
		return flex.ItemFacts{}, err
	}
	if c.UserID != it.SellerID {
		return flex.ItemFacts{}, flex.ErrNotItemSeller.Withf("only the seller of item %s may use its local delivery option", itemID)
	}
	cat, err := s.catalog.Category(ctx, it.CategoryID)
	if err != nil {
		return flex.ItemFacts{}, err
	}
	subs, err := s.store.SubscriptionsOfUser(ctx, it.SellerID)
	if err != nil {
		return flex.ItemFacts{}, err
	}
	return flex.ItemFacts{ItemID: it.ID, Status: it.Status, ShippingMode: it.Shipping.Mode,
		Me2Types: me2Types(cat), SellerFlexIn: flex.SellerFlexIn(subs, it.SiteID)}, nil
}

// me2Types are the logistic types a category offers with mode me2.
func me2Types(c catalog.Category) []string {
	var out []string
	for _, l := range c.ShippingPreferences.Logistics {
		if l.Mode == "me2" {
			out = append(out, l.Types...)
		}
	}
	return slices.Compact(out)
}

// ItemOption answers nil when the item offers the option and has it
// enabled; an item that no longer offers it is "item down" even when it was
// enabled.
func (s *Service) ItemOption(ctx context.Context, siteID, itemID string) error {
	f, err := s.item(ctx, siteID, itemID)
	if err != nil {
		return err
	}
	if err := flex.CheckItemOffers(f); err != nil {
		return err
	}
	on, err := s.store.ItemEnabled(ctx, itemID)
	if err != nil {
		return err
	}
	if !on {
		return flex.ErrOptionOff.Withf("item %s is not in flex", itemID)
	}
	return nil
}

// EnableItem enables the option on an item that offers it; the store's
// insert tells an item already enabled (400), also under concurrency.
func (s *Service) EnableItem(ctx context.Context, siteID, itemID string) error {
	f, err := s.item(ctx, siteID, itemID)
	if err != nil {
		return err
	}
	if err := flex.CheckItemOffers(f); err != nil {
		return err
	}
	return s.tx.RunInTx(ctx, func(ctx context.Context) error {
		added, err := s.store.EnableItem(ctx, itemID, s.clock.Now())
		if err != nil {
			return err
		}
		if !added {
			return flex.ErrAlreadyInFlex.Withf("item %s is already in flex", itemID)
		}
		return s.items.ItemTouched(ctx, itemID)
	})
}

// DisableItem disables the option of an enabled item, whether or not the
// item still offers it (the state table asks only that it exists). An item
// not enabled is "item down" when it does not offer the option, else 400
// "item is not in flex".
func (s *Service) DisableItem(ctx context.Context, siteID, itemID string) error {
	f, err := s.item(ctx, siteID, itemID)
	if err != nil {
		return err
	}
	removed := false
	err = s.tx.RunInTx(ctx, func(ctx context.Context) error {
		if removed, err = s.store.DisableItem(ctx, itemID); err != nil || !removed {
			return err
		}
		return s.items.ItemTouched(ctx, itemID)
	})
	if err != nil || removed {
		return err
	}
	if err := flex.CheckItemOffers(f); err != nil {
		return err
	}
	return flex.ErrNotInFlex.Withf("item %s is not in flex", itemID)
}

// Assignment answers the driver of a shipment of the site. Only the seller
// of the shipment's order may read it (403, checked before the driver so
// that others learn nothing of it); no driver is 404 "shipment_id not
// found" like an unknown shipment.
func (s *Service) Assignment(ctx context.Context, siteID string, shipmentID int64) (int64, error) {
	if err := flex.CheckSite(siteID); err != nil {
		return 0, err
	}
	c, err := caller(ctx)
	if err != nil {
		return 0, err
	}
	notFound := flex.ErrNoAssignment.Withf("shipment_id not found: %d", shipmentID)
	sh, err := s.store.Shipment(ctx, shipmentID)
	if errors.Is(err, flexport.ErrNotFound) || err == nil && sh.SiteID != siteID {
		return 0, notFound
	}
	if err != nil {
		return 0, err
	}
	o, err := s.orders.Order(ctx, sh.OrderID)
	if err != nil {
		return 0, fmt.Errorf("flexsvc: order %d of shipment %d: %w", sh.OrderID, shipmentID, err)
	}
	if o.SellerID != c.UserID {
		return 0, flex.ErrNotOrderSeller.Withf("only the seller of the order of shipment %d may read its assignment", shipmentID)
	}
	if sh.DriverID == nil {
		return 0, notFound
	}
	return *sh.DriverID, nil
}
