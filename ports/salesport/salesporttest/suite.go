// Package salesporttest is the contract suite every salesport.Orders
// implementation must pass.
package salesporttest

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/feria/feria/core/sales"
	"github.com/feria/feria/ports/salesport"
)

// Env is a fresh store and a way to create the users orders reference.
type Env struct {
	Orders  salesport.Orders
	Notes   salesport.Notes
	AddUser func(ctx context.Context, id int64)
}

// Order returns a valid order for tests.
func Order(id int64, pack *int64) sales.Order {
	return sales.Order{ID: id, SiteID: "MLA", SellerID: 123, BuyerID: 456, PackID: pack, Status: "paid",
		Items:    []sales.OrderItem{{ItemID: "MLA1100", Quantity: 1, UnitPrice: 15000}},
		Shipping: sales.OrderShipping{ID: 40001, LogisticType: "drop_off"}, HasClaim: true,
		CompatibilitySelection: &sales.CompatibilitySelection{ProductID: "MLA15197901", LabelValues: []sales.LabelValue{
			{Label: "Marca", ValueName: "Ford", Values: []sales.AttributeValue{{AttributeID: "BRAND", ValueID: "9909"}}}}},
		DateCreated: time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)}
}

// TestOrders runs the contract suite.
func TestOrders(t *testing.T, newEnv func(t *testing.T) Env) {
	ctx := context.Background()
	e := newEnv(t)
	e.AddUser(ctx, 123)
	e.AddUser(ctx, 456)
	if _, err := e.Orders.Order(ctx, 1); !errors.Is(err, salesport.ErrNotFound) {
		t.Fatalf("missing order: %v", err)
	}
	pack := int64(2000001234)
	o := Order(2000001, &pack)
	first, err := e.Orders.UpsertOrder(ctx, o)
	if err != nil || !first {
		t.Fatalf("first upsert: first=%v err=%v", first, err)
	}
	got, err := e.Orders.Order(ctx, o.ID)
	if err != nil {
		t.Fatal(err)
	}
	got.DateCreated = got.DateCreated.UTC()
	if !reflect.DeepEqual(got, o) {
		t.Errorf("order:\n got %#v\nwant %#v", got, o)
	}
	o2 := o
	o2.HasClaim, o2.CompatibilitySelection = false, nil
	o2.DateCreated = o.DateCreated.Add(time.Hour)
	first, err = e.Orders.UpsertOrder(ctx, o2)
	if err != nil || first {
		t.Fatalf("second upsert: first=%v err=%v, want false", first, err)
	}
	got, _ = e.Orders.Order(ctx, o.ID)
	if got.HasClaim || got.CompatibilitySelection != nil || !got.DateCreated.Equal(o.DateCreated) {
		t.Errorf("after re-upsert: %+v: want the new fields and the first date_created", got)
	}
	// Stores of a new order at once: exactly one is the first (a read of
	// "absent" before the insert let several report first).
	var wg sync.WaitGroup
	var mu sync.Mutex
	firsts := 0
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			first, err := e.Orders.UpsertOrder(ctx, Order(2000009, nil))
			if err != nil {
				t.Error(err)
			}
			mu.Lock()
			defer mu.Unlock()
			if first {
				firsts++
			}
		}()
	}
	wg.Wait()
	if firsts != 1 {
		t.Errorf("%d concurrent stores of a new order reported first; want 1", firsts)
	}
	alone := Order(2000002, nil)
	if _, err := e.Orders.UpsertOrder(ctx, alone); err != nil {
		t.Fatal(err)
	}
	other := Order(2000003, &pack)
	if _, err := e.Orders.UpsertOrder(ctx, other); err != nil {
		t.Fatal(err)
	}
	ids := func(os []sales.Order) (out []int64) {
		for _, o := range os {
			out = append(out, o.ID)
		}
		return out
	}
	inPack, err := e.Orders.OrdersOfPack(ctx, pack)
	if err != nil || !reflect.DeepEqual(ids(inPack), []int64{2000001, 2000003}) {
		t.Errorf("orders of pack: %v %v", ids(inPack), err)
	}
	own, err := e.Orders.OrdersOfPack(ctx, 2000002)
	if err != nil || !reflect.DeepEqual(ids(own), []int64{2000002}) {
		t.Errorf("pack_id null: the order is its own pack: %v %v", ids(own), err)
	}

	// A user's orders: of the seller or of the buyer, one status or all,
	// by date_created then id.
	late := Order(2000004, nil)
	late.Status, late.DateCreated = "cancelled", o.DateCreated.Add(-time.Hour)
	if _, err := e.Orders.UpsertOrder(ctx, late); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		seller, buyer int64
		status        string
		want          []int64
	}{
		{123, 0, "", []int64{2000004, 2000001, 2000002, 2000003, 2000009}},
		{0, 456, "cancelled", []int64{2000004}},
		{0, 123, "", nil},
		{456, 0, "paid", nil},
	} {
		got, err := e.Orders.OrdersOf(ctx, c.seller, c.buyer, c.status)
		if err != nil || !reflect.DeepEqual(ids(got), c.want) {
			t.Errorf("OrdersOf(%d, %d, %q) = %v, %v; want %v", c.seller, c.buyer, c.status, ids(got), err, c.want)
		}
	}

	// Notes: an order's, oldest first, dates as written.
	if got, err := e.Notes.Notes(ctx, 2000001); err != nil || len(got) != 0 {
		t.Errorf("notes of an order with none: %v %v", got, err)
	}
	n1 := sales.Note{ID: "n1", OrderID: 2000001, Note: "first", DateCreated: o.DateCreated, DateLastUpdated: o.DateCreated}
	n2 := sales.Note{ID: "n2", OrderID: 2000001, Note: "second", DateCreated: o.DateCreated.Add(time.Second), DateLastUpdated: o.DateCreated.Add(time.Second)}
	n3 := sales.Note{ID: "n3", OrderID: 2000002, Note: "other order", DateCreated: o.DateCreated, DateLastUpdated: o.DateCreated}
	for _, n := range []sales.Note{n2, n1, n3} {
		if err := e.Notes.AddNote(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := e.Notes.Notes(ctx, 2000001); err != nil || !reflect.DeepEqual(got, []sales.Note{n1, n2}) {
		t.Errorf("notes: %+v %v; want %+v", got, err, []sales.Note{n1, n2})
	}
}
