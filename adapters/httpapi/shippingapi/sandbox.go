package shippingapi

import (
	"github.com/feria/feria/adapters/httpapi/sandboxapi"
	"github.com/feria/feria/core/shipping"
	"github.com/feria/feria/ports/shippingport"
)

// Collections are the shipping module's sandbox collections: the rate table
// of a site, "shipping_rates", whose id is the site id (docs/sandbox.md,
// "Shipping costs"). A site never put answers its default table.
func Collections(svc shippingport.Service) []sandboxapi.Collection {
	return []sandboxapi.Collection{
		sandboxapi.ByKey("shipping_rates", "shipping_rates", func(r *shipping.Rates, site string) { r.SiteID = site }, svc.PutRates, svc.Rates),
	}
}
