// Package flexporttest is the contract suite every flexport.Store
// implementation must pass.
package flexporttest

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/feria/feria/core/flex"
	"github.com/feria/feria/ports/flexport"
)

// Env is a fresh store and ways to create what subscriptions and shipments
// reference.
type Env struct {
	Store    flexport.Store
	AddUser  func(ctx context.Context, id int64)
	AddOrder func(ctx context.Context, id, seller, buyer int64)
}

// Subscription returns a valid subscription with defaults, for tests.
func Subscription(serviceID, user int64) flex.Subscription {
	return flex.Subscription{ID: serviceID, ServiceID: serviceID, SiteID: "MLA", UserID: user, Mode: "FLEX",
		Status: flex.Status{ID: "in"}, CreationDate: time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC),
		Configuration: flex.Configuration{
			Address: flex.Address{ID: 1, AddressLine: "Av. Corrientes 1000", City: flex.City{ID: "TUxBQ0NBUGZlZG1sYQ", Name: "Capital Federal"}, ZipCode: "1043"},
			Zones: []flex.Zone{{Enabled: true, ID: "Z1", IsMandatory: true, Label: "CABA", Neighborhoods: []string{"Palermo"}, Selected: true,
				Price: flex.Price{Cents: "00", CurrencyID: "ARS", DecimalSeparator: ",", Fraction: "1500", Symbol: "$"}}},
		}}.WithDefaults()
}

// TestStore runs the contract suite.
func TestStore(t *testing.T, newEnv func(t *testing.T) Env) {
	ctx := context.Background()
	e := newEnv(t)
	e.AddUser(ctx, 123)
	e.AddUser(ctx, 456)
	e.AddOrder(ctx, 9001, 123, 456)

	t.Run("subscriptions", func(t *testing.T) {
		if _, err := e.Store.Subscription(ctx, 3001); !errors.Is(err, flexport.ErrNotFound) {
			t.Fatalf("missing subscription: %v", err)
		}
		s := Subscription(3001, 123)
		if err := e.Store.UpsertSubscription(ctx, s); err != nil {
			t.Fatal(err)
		}
		got, err := e.Store.Subscription(ctx, 3001)
		if err != nil {
			t.Fatal(err)
		}
		got.CreationDate = got.CreationDate.UTC()
		if !reflect.DeepEqual(got, s) {
			t.Errorf("subscription:\n got %#v\nwant %#v", got, s)
		}
		s2 := s
		s2.Status.ID = "out"
		s2.CreationDate = s.CreationDate.Add(time.Hour)
		if err := e.Store.UpsertSubscription(ctx, s2); err != nil {
			t.Fatal(err)
		}
		if err := e.Store.UpsertSubscription(ctx, Subscription(3002, 123)); err != nil {
			t.Fatal(err)
		}
		list, err := e.Store.SubscriptionsOfUser(ctx, 123)
		if err != nil || len(list) != 2 || list[0].ServiceID != 3001 || list[1].ServiceID != 3002 {
			t.Fatalf("subscriptions of user: %+v %v", list, err)
		}
		if list[0].Status.ID != "out" || !list[0].CreationDate.Equal(s.CreationDate) {
			t.Errorf("re-upsert: %+v: want status out and the first creation_date", list[0])
		}
		if list, _ := e.Store.SubscriptionsOfUser(ctx, 456); len(list) != 0 {
			t.Errorf("subscriptions of another user: %+v", list)
		}
	})

	t.Run("shipments", func(t *testing.T) {
		if _, err := e.Store.Shipment(ctx, 40001); !errors.Is(err, flexport.ErrNotFound) {
			t.Fatalf("missing shipment: %v", err)
		}
		driver := int64(777)
		sh := flex.Shipment{ID: 40001, SiteID: "MLA", OrderID: 9001, DriverID: &driver}
		if err := e.Store.UpsertShipment(ctx, sh); err != nil {
			t.Fatal(err)
		}
		got, err := e.Store.Shipment(ctx, 40001)
		if err != nil || !reflect.DeepEqual(got, sh) {
			t.Errorf("shipment: %+v %v", got, err)
		}
		sh.DriverID = nil
		if err := e.Store.UpsertShipment(ctx, sh); err != nil {
			t.Fatal(err)
		}
		got, _ = e.Store.Shipment(ctx, 40001)
		if got.DriverID != nil {
			t.Errorf("driver_id after unassigning: %v, want null", *got.DriverID)
		}
	})
}
