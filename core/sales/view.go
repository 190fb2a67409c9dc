package sales

import (
	"math"
	"time"

	"github.com/feria/feria/core/kernel"
)

// OrderView is an order as GET /orders/{id} shows it: the marketplace's
// order fields that a sandbox order holds, under the marketplace's names
// (docs/decisions.md).
type OrderView struct {
	ID          int64           `json:"id"`
	Status      string          `json:"status"`
	DateCreated time.Time       `json:"date_created"`
	PackID      *int64          `json:"pack_id"`
	OrderItems  []OrderItemView `json:"order_items"`
	TotalAmount float64         `json:"total_amount"`
	CurrencyID  string          `json:"currency_id"`
	Buyer       UserRef         `json:"buyer"`
	Seller      UserRef         `json:"seller"`
	Shipping    ShippingRef     `json:"shipping"`
}

// OrderItemView is one line of an order as the marketplace shows it.
type OrderItemView struct {
	Item       ItemRef `json:"item"`
	Quantity   int     `json:"quantity"`
	UnitPrice  float64 `json:"unit_price"`
	CurrencyID string  `json:"currency_id"`
}

// ItemRef names an item.
type ItemRef struct {
	ID string `json:"id"`
}

// UserRef names a user.
type UserRef struct {
	ID int64 `json:"id"`
}

// ShippingRef names an order's shipment; null when it has none.
type ShippingRef struct {
	ID *int64 `json:"id"`
}

// View is the order's public resource. Its currency is its site's; its
// total is the sum of its lines, to the cent.
func (o Order) View() OrderView {
	site, _ := kernel.LookupSite(o.SiteID)
	v := OrderView{ID: o.ID, Status: o.Status, DateCreated: o.DateCreated, PackID: o.PackID,
		OrderItems: make([]OrderItemView, len(o.Items)), CurrencyID: site.Currency,
		Buyer: UserRef{ID: o.BuyerID}, Seller: UserRef{ID: o.SellerID}}
	total := 0.0
	for i, line := range o.Items {
		v.OrderItems[i] = OrderItemView{Item: ItemRef{ID: line.ItemID}, Quantity: line.Quantity, UnitPrice: line.UnitPrice, CurrencyID: site.Currency}
		total += float64(line.Quantity) * line.UnitPrice
	}
	v.TotalAmount = math.Round(total*100) / 100
	if o.Shipping.ID != 0 {
		id := o.Shipping.ID
		v.Shipping.ID = &id
	}
	return v
}

// Concerns reports whether the user is the order's seller or buyer, the
// users who may read it.
func (o Order) Concerns(userID int64) bool { return userID == o.SellerID || userID == o.BuyerID }
