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
	"github.com/feria/feria/core/paging"
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
func (o *orders) OrdersOf(_ context.Context, seller, buyer int64, status string) ([]sales.Order, error) {
	var out []sales.Order
	for _, x := range o.m {
		if (seller != 0 && x.SellerID == seller || buyer != 0 && x.BuyerID == buyer) && (status == "" || x.Status == status) {
			out = append(out, x)
		}
	}
	return out, nil
}

type notes struct{ added []sales.Note }

func (n *notes) AddNote(_ context.Context, x sales.Note) error {
	n.added = append(n.added, x)
	return nil
}
func (n *notes) Notes(_ context.Context, id int64) ([]sales.Note, error) {
	var out []sales.Note
	for _, x := range n.added {
		if x.OrderID == id {
			out = append(out, x)
		}
	}
	return out, nil
}

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
	svc := salessvc.New(salessvc.Deps{Orders: store, Notes: &notes{}, Users: users, Items: items{}, Observers: []salesport.OrderObserver{ob},
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

// The search answers the caller's own orders only; notes are the seller's.
func TestSearchAndNotesAreTheCallers(t *testing.T) {
	t0 := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	store := &orders{m: map[int64]sales.Order{
		1: {ID: 1, SellerID: 123, BuyerID: 456, Status: "paid", DateCreated: t0.Add(time.Hour)},
		2: {ID: 2, SellerID: 123, BuyerID: 456, Status: "cancelled", DateCreated: t0},
		3: {ID: 3, SellerID: 124, BuyerID: 456, Status: "paid", DateCreated: t0}}}
	n := &notes{}
	svc := salessvc.New(salessvc.Deps{Orders: store, Notes: n, Users: users, Items: items{},
		Changes: &webhooksporttest.Changes{}, Tx: kerneltest.Tx{}, Clock: &kerneltest.Clock{At: t0}})
	as := func(id int64) context.Context {
		return kernel.WithCaller(context.Background(), kernel.Caller{UserID: id, SiteID: "MLA"})
	}
	a, err := svc.SearchOrders(as(123), sales.OrderQuery{Seller: 123, Sort: sales.SortDateAsc, Page: paging.Request{Limit: 51}})
	if err != nil || len(a.Results) != 2 || a.Results[0].ID != 2 || a.Results[1].ID != 1 {
		t.Errorf("seller's search: %+v, %v", a, err)
	}
	if _, err := svc.SearchOrders(as(124), sales.OrderQuery{Seller: 123}); !errors.Is(err, sales.ErrNotYourSearch) {
		t.Errorf("another seller's search: %v", err)
	}
	if _, err := svc.SearchOrders(as(123), sales.OrderQuery{Buyer: 456}); !errors.Is(err, sales.ErrNotYourSearch) {
		t.Errorf("another buyer's search: %v", err)
	}
	if _, err := svc.SearchOrders(context.Background(), sales.OrderQuery{Seller: 123}); !errors.Is(err, sales.ErrNoCaller) {
		t.Errorf("no caller: %v", err)
	}
	if _, err := svc.AddNote(as(456), 1, "x"); !errors.Is(err, sales.ErrNotYourNotes) || len(n.added) != 0 {
		t.Errorf("the buyer's note: %v, %d stored", err, len(n.added))
	}
	if _, err := svc.AddNote(as(123), 1, " "); !errors.Is(err, sales.ErrNoteEmpty) || len(n.added) != 0 {
		t.Errorf("an empty note: %v, %d stored", err, len(n.added))
	}
	if _, err := svc.AddNote(as(123), 9, "x"); !errors.Is(err, sales.ErrOrderNotFound) {
		t.Errorf("an unknown order's note: %v", err)
	}
	got, err := svc.AddNote(as(123), 1, "llamar al comprador")
	if err != nil || got.OrderID != "1" || got.Note.Note != "llamar al comprador" || !got.Note.DateCreated.Equal(t0) {
		t.Errorf("note: %+v, %v", got, err)
	}
}
