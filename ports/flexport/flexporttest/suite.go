// Package flexporttest is the contract suite every flexport.Store
// implementation must pass.
package flexporttest

import (
	"context"
	"errors"
	"reflect"
	"sync"
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
	AddItem  func(ctx context.Context, id string, seller int64)
}

// accept is a check that accepts anything.
func accept([]flex.Subscription) error { return nil }

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
	e.AddItem(ctx, "MLA1100", 123)
	e.AddItem(ctx, "MLA1101", 123)

	t.Run("subscriptions", func(t *testing.T) {
		if _, err := e.Store.Subscription(ctx, 3001); !errors.Is(err, flexport.ErrNotFound) {
			t.Fatalf("missing subscription: %v", err)
		}
		s := Subscription(3001, 123)
		if err := e.Store.UpsertSubscription(ctx, s, accept); err != nil {
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
		if err := e.Store.UpsertSubscription(ctx, s2, accept); err != nil {
			t.Fatal(err)
		}
		if err := e.Store.UpsertSubscription(ctx, Subscription(3002, 123), accept); err != nil {
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

	t.Run("upsert check", func(t *testing.T) {
		e.AddUser(ctx, 789)
		if err := e.Store.UpsertSubscription(ctx, Subscription(5001, 789), accept); err != nil {
			t.Fatal(err)
		}
		// 3001 moves from 123 to 456: check sees both users' subscriptions.
		var seen []int64
		moved := Subscription(3001, 456)
		err := e.Store.UpsertSubscription(ctx, moved, func(current []flex.Subscription) error {
			for _, c := range current {
				seen = append(seen, c.ServiceID)
			}
			return nil
		})
		if err != nil || !reflect.DeepEqual(seen, []int64{3001, 3002}) {
			t.Fatalf("check saw %v (%v), want 3001 and 3002", seen, err)
		}
		refused := errors.New("refused")
		back := Subscription(3001, 789)
		back.Mode = "TURBO"
		if err := e.Store.UpsertSubscription(ctx, back, func([]flex.Subscription) error { return refused }); !errors.Is(err, refused) {
			t.Fatalf("refused upsert: %v", err)
		}
		if got, _ := e.Store.Subscription(ctx, 3001); got.UserID != 456 || got.Mode != "FLEX" {
			t.Errorf("a refused upsert wrote: %+v", got)
		}
	})

	t.Run("concurrent upserts pass the check one after the other", func(t *testing.T) {
		// Two FLEX subscriptions of one user turn TURBO at once: the check
		// lets one through, and only one may, or the TURBO is left alone.
		for round := range int64(5) {
			user := 10_000 + round
			e.AddUser(ctx, user)
			a, b := Subscription(user*10+1, user), Subscription(user*10+2, user)
			for _, s := range []flex.Subscription{a, b, Subscription(user*10+3, user)} {
				if s.ServiceID == user*10+3 {
					s.Mode = "TURBO"
				}
				if err := e.Store.UpsertSubscription(ctx, s, func(cur []flex.Subscription) error { return flex.CheckTurbo(cur, s) }); err != nil {
					t.Fatal(err)
				}
			}
			var wg sync.WaitGroup
			errs := make([]error, 2)
			for i, s := range []flex.Subscription{a, b} {
				s.Mode = "TURBO"
				wg.Go(func() {
					errs[i] = e.Store.UpsertSubscription(ctx, s, func(cur []flex.Subscription) error { return flex.CheckTurbo(cur, s) })
				})
			}
			wg.Wait()
			if (errs[0] == nil) == (errs[1] == nil) {
				t.Fatalf("round %d: both or neither passed: %v, %v", round, errs[0], errs[1])
			}
			for _, err := range errs {
				if err != nil && !errors.Is(err, flex.ErrTurboWithoutFlex) {
					t.Errorf("round %d: %v", round, err)
				}
			}
		}
	})

	t.Run("change subscription", func(t *testing.T) {
		if _, err := e.Store.ChangeSubscription(ctx, 9999, func(s flex.Subscription) (flex.Subscription, error) { return s, nil }); !errors.Is(err, flexport.ErrNotFound) {
			t.Fatalf("missing subscription: %v", err)
		}
		before, err := e.Store.Subscription(ctx, 3002)
		if err != nil {
			t.Fatal(err)
		}
		refused := errors.New("refused")
		_, err = e.Store.ChangeSubscription(ctx, 3002, func(s flex.Subscription) (flex.Subscription, error) {
			s.Configuration.DeliveryWindow = "next_day"
			return s, refused
		})
		if !errors.Is(err, refused) {
			t.Fatalf("refused change: %v", err)
		}
		if got, _ := e.Store.Subscription(ctx, 3002); got.Configuration.DeliveryWindow != before.Configuration.DeliveryWindow {
			t.Errorf("a refused change wrote: %+v", got.Configuration)
		}
		got, err := e.Store.ChangeSubscription(ctx, 3002, func(s flex.Subscription) (flex.Subscription, error) {
			s.Configuration.Zones[0].Selected = false
			s.Configuration.DeliveryWindow = "next_day"
			s.Status.ID = "out" // not a configuration field: not written
			return s, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		read, _ := e.Store.Subscription(ctx, 3002)
		read.CreationDate, got.CreationDate = read.CreationDate.UTC(), got.CreationDate.UTC()
		if !reflect.DeepEqual(got, read) || read.Configuration.DeliveryWindow != "next_day" || read.Configuration.Zones[0].Selected || read.Status.ID != "in" {
			t.Errorf("changed:\n answer %+v\n stored %+v", got, read)
		}
	})

	t.Run("concurrent changes are not lost", func(t *testing.T) {
		const n = 8
		var wg sync.WaitGroup
		for range n {
			wg.Go(func() {
				_, err := e.Store.ChangeSubscription(ctx, 3002, func(s flex.Subscription) (flex.Subscription, error) {
					s.Configuration.DeliveryRanges.Week[0].Capacity++
					return s, nil
				})
				if err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		got, _ := e.Store.Subscription(ctx, 3002)
		if c := got.Configuration.DeliveryRanges.Week[0].Capacity; c != flex.DefaultWeek[0].Capacity+n {
			t.Errorf("capacity after %d increments: %d, want %d", n, c, flex.DefaultWeek[0].Capacity+n)
		}
	})

	t.Run("items", func(t *testing.T) {
		at := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
		step := func(what string, got bool, err error, want bool) {
			t.Helper()
			if err != nil || got != want {
				t.Fatalf("%s: %v %v, want %v", what, got, err, want)
			}
		}
		ok, err := e.Store.ItemEnabled(ctx, "MLA1100")
		step("enabled before", ok, err, false)
		ok, err = e.Store.DisableItem(ctx, "MLA1100")
		step("disable before", ok, err, false)
		ok, err = e.Store.EnableItem(ctx, "MLA1100", at)
		step("enable", ok, err, true)
		ok, err = e.Store.EnableItem(ctx, "MLA1100", at)
		step("enable again", ok, err, false)
		ok, err = e.Store.ItemEnabled(ctx, "MLA1100")
		step("enabled", ok, err, true)
		ok, err = e.Store.ItemEnabled(ctx, "MLA1101")
		step("another item", ok, err, false)
		ok, err = e.Store.DisableItem(ctx, "MLA1100")
		step("disable", ok, err, true)
		ok, err = e.Store.ItemEnabled(ctx, "MLA1100")
		step("enabled after disable", ok, err, false)

		var wg sync.WaitGroup
		var mu sync.Mutex
		won := 0
		for range 6 {
			wg.Go(func() {
				ok, err := e.Store.EnableItem(ctx, "MLA1101", at)
				if err != nil {
					t.Error(err)
				}
				if ok {
					mu.Lock()
					won++
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		if won != 1 {
			t.Errorf("%d concurrent enables succeeded, want 1", won)
		}
	})
}
