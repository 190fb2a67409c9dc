package salessvc_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/feria/feria/core/account"
	"github.com/feria/feria/core/catalog"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/core/kernel/kerneltest"
	"github.com/feria/feria/core/sales"
	"github.com/feria/feria/core/sales/salessvc"
	"github.com/feria/feria/ports/accountport/accountporttest"
	"github.com/feria/feria/ports/catalogport"
	"github.com/feria/feria/ports/salesport"
	"github.com/feria/feria/ports/webhooksport/webhooksporttest"
)

type orders struct{ m map[int64]sales.Order }

func (o *orders) UpsertOrder(_ context.Context, x sales.Order) (bool, error) {
	_, ok := o.m[x.ID]
	o.m[x.ID] = x
	return !ok, nil
}
func (o *orders) Order(_ context.Context, id int64) (sales.Order, error) {
	x, ok := o.m[id]
	if !ok {
		return x, salesport.ErrNotFound
	}
	return x, nil
}
func (o *orders) OrdersOfPack(context.Context, int64) ([]sales.Order, error) { return nil, nil }

// users knows the seller and the buyer of the test's orders.
var users = accountporttest.NewUsers(account.User{ID: 123, SiteID: "MLA"}, account.User{ID: 456, SiteID: "MLA"})

type items struct{ catalogport.Service }

func (items) Item(_ context.Context, id string) (catalog.Item, error) {
	if id != "MLA1100" {
		return catalog.Item{}, catalog.ErrItemNotFound
	}
	return catalog.Item{ID: id, SellerID: 123}, nil
}

type observer struct {
	firsts []bool
	fail   error
}

func (o *observer) OrderStored(_ context.Context, _ sales.Order, first bool) error {
	o.firsts = append(o.firsts, first)
	return o.fail
}

func TestPutOrderTellsObservers(t *testing.T) {
	ctx := context.Background()
	t0 := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	now := t0
	ob := &observer{}
	store := &orders{m: map[int64]sales.Order{}}
	svc := salessvc.New(salessvc.Deps{Orders: store, Users: users, Items: items{}, Observers: []salesport.OrderObserver{ob},
		Changes: &webhooksporttest.Changes{}, Tx: kerneltest.Tx{}, Clock: &kerneltest.Clock{At: now}})
	o := sales.Order{ID: 1, SiteID: "MLA", SellerID: 123, BuyerID: 456, Status: "paid", Items: []sales.OrderItem{{ItemID: "MLA1100", Quantity: 1}}}
	if _, err := svc.PutOrder(ctx, o); err != nil {
		t.Fatal(err)
	}
	now = t0.Add(time.Hour)
	got, err := svc.PutOrder(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(ob.firsts) != 2 || !ob.firsts[0] || ob.firsts[1] {
		t.Errorf("observer firsts: %v, want [true false]", ob.firsts)
	}
	if !got.DateCreated.Equal(t0) {
		t.Errorf("date_created: %v, want the first store's", got.DateCreated)
	}
	o.BuyerID = 999
	if _, err := svc.PutOrder(ctx, o); kernel.KindOf(err) != kernel.Invalid || len(ob.firsts) != 2 {
		t.Errorf("unknown buyer: %v; observers called %d times", err, len(ob.firsts))
	}
	o.BuyerID = 456
	ob.fail = errors.New("snapshot failed")
	if _, err := svc.PutOrder(ctx, o); err == nil {
		t.Error("an observer's failure must fail the put (and roll back its transaction)")
	}
}
