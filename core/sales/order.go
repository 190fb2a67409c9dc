// Package sales holds orders and the packs that group them.
package sales

import "time"

// Order is a purchase of one or more items from one seller by one buyer.
type Order struct {
	ID       int64  `json:"id"`
	SiteID   string `json:"site_id"`
	SellerID int64  `json:"seller_id"`
	BuyerID  int64  `json:"buyer_id"`
	// PackID is the pack as sent; nil means the order is its own pack.
	PackID                 *int64                  `json:"pack_id"`
	Status                 string                  `json:"status"`
	Items                  []OrderItem             `json:"items"`
	Shipping               OrderShipping           `json:"shipping"`
	HasClaim               bool                    `json:"has_claim"`
	CompatibilitySelection *CompatibilitySelection `json:"compatibility_selection"`
	DateCreated            time.Time               `json:"date_created"`
}

// Pack is the pack id of the order: pack_id, or the order id when pack_id is
// null (as the contract says).
func (o Order) Pack() int64 {
	if o.PackID != nil {
		return *o.PackID
	}
	return o.ID
}

// OrderItem is one line of an order.
type OrderItem struct {
	ItemID    string  `json:"item_id"`
	Quantity  int     `json:"quantity"`
	UnitPrice float64 `json:"unit_price"`
}

// OrderShipping is the shipment of an order.
type OrderShipping struct {
	ID           int64  `json:"id"`
	LogisticType string `json:"logistic_type"`
}

// CompatibilitySelection is the vehicle the buyer chose before purchase.
type CompatibilitySelection struct {
	ProductID   string       `json:"product_id"`
	LabelValues []LabelValue `json:"label_values"`
}

// LabelValue is one attribute of the buyer's vehicle selection.
type LabelValue struct {
	Label     string           `json:"label"`
	ValueName string           `json:"value_name"`
	Values    []AttributeValue `json:"values"`
}

// AttributeValue names one attribute value of a selection.
type AttributeValue struct {
	AttributeID string `json:"attribute_id"`
	ValueID     string `json:"value_id"`
}
