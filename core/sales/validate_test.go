package sales_test

import (
	"testing"

	"github.com/feria/feria/core/sales"
)

func TestValidateOrder(t *testing.T) {
	o := sales.Order{ID: 1, SiteID: "MLA", SellerID: 123, BuyerID: 456, Status: "paid",
		Items: []sales.OrderItem{{ItemID: "MLA1100", Quantity: 1}}}
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	if o.Pack() != 1 {
		t.Errorf("pack of an order without pack_id: %d", o.Pack())
	}
	cases := map[string]func(*sales.Order){
		`buyer_id must not be the seller`:                             func(o *sales.Order) { o.BuyerID = 123 },
		`items must name at least one item`:                           func(o *sales.Order) { o.Items = nil },
		`items[0].quantity must be a positive integer`:                func(o *sales.Order) { o.Items[0].Quantity = 0 },
		`items[0].item_id must be an item id of site MLA, got "MLB1"`: func(o *sales.Order) { o.Items[0].ItemID = "MLB1" },
		`pack_id must be a positive integer or null`:                  func(o *sales.Order) { p := int64(-1); o.PackID = &p },
		`status must be one of confirmed, payment_required, payment_in_process, partially_paid, paid, partially_refunded, pending_cancel, cancelled, got "sold"`: func(o *sales.Order) { o.Status = "sold" },
	}
	for want, edit := range cases {
		c := o
		c.Items = append([]sales.OrderItem(nil), o.Items...)
		edit(&c)
		if err := c.Validate(); err == nil || err.Error() != want {
			t.Errorf("got %v, want %q", err, want)
		}
	}
}
