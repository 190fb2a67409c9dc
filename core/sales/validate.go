package sales

import (
	"fmt"
	"slices"
	"strings"

	"github.com/feria/feria/core/kernel"
)

// Errors of the module.
var (
	ErrInvalidOrder  = kernel.E(kernel.Invalid, "bad_request", "invalid order")
	ErrOrderNotFound = kernel.E(kernel.NotExist, "not_found", "order not found")
	ErrNotYourOrder  = kernel.E(kernel.Permission, "forbidden", "the caller is neither the seller nor the buyer of the order")
	ErrNoCaller      = kernel.E(kernel.Unauthenticated, "unauthorized", "access token required")
)

// OrderStatuses are the order statuses the sandbox accepts.
var OrderStatuses = []string{"confirmed", "payment_required", "payment_in_process", "partially_paid", "paid", "partially_refunded", "pending_cancel", "cancelled"}

// Validate checks an order to be stored (not its references: users, items).
func (o Order) Validate() error {
	var p kernel.Problems
	if o.ID <= 0 {
		p.Add("order_id", "order_id must be a positive integer")
	}
	siteOK := p.Site("site_id", o.SiteID)
	if o.SellerID <= 0 {
		p.Add("seller_id", "seller_id must be a positive integer")
	}
	if o.BuyerID <= 0 {
		p.Add("buyer_id", "buyer_id must be a positive integer")
	}
	if o.SellerID > 0 && o.SellerID == o.BuyerID {
		p.Add("buyer_id", "buyer_id must not be the seller")
	}
	if o.PackID != nil && *o.PackID <= 0 {
		p.Add("pack_id", "pack_id must be a positive integer or null")
	}
	if !slices.Contains(OrderStatuses, o.Status) {
		p.Add("status", "status must be one of %s, got %q", strings.Join(OrderStatuses, ", "), o.Status)
	}
	if len(o.Items) == 0 {
		p.Add("items", "items must name at least one item")
	}
	for i, it := range o.Items {
		field := fmt.Sprintf("items[%d]", i)
		if siteOK && kernel.SiteOf(it.ItemID) != o.SiteID {
			p.Add(field+".item_id", "%s.item_id must be an item id of site %s, got %q", field, o.SiteID, it.ItemID)
		}
		if it.Quantity <= 0 {
			p.Add(field+".quantity", "%s.quantity must be a positive integer", field)
		}
		if it.UnitPrice < 0 {
			p.Add(field+".unit_price", "%s.unit_price must not be negative", field)
		}
	}
	if o.Shipping.ID < 0 {
		p.Add("shipping.id", "shipping.id must be a positive integer")
	}
	if sel := o.CompatibilitySelection; sel != nil {
		if siteOK && kernel.SiteOf(sel.ProductID) != o.SiteID {
			p.Add("compatibility_selection.product_id", "compatibility_selection.product_id must be a product id of site %s, got %q", o.SiteID, sel.ProductID)
		}
	}
	return p.Err(ErrInvalidOrder)
}
