package catalogapi

import (
	"github.com/feria/feria/adapters/httpapi/sandboxapi"
	"github.com/feria/feria/core/catalog"
	"github.com/feria/feria/ports/catalogport"
)

// Collections are the catalog's sandbox collections, in fixtures order.
func Collections(svc catalogport.Service) []sandboxapi.Collection {
	return []sandboxapi.Collection{
		sandboxapi.ByKey("categories", "categories", func(c *catalog.Category, id string) { c.ID = id }, svc.PutCategory, svc.Category),
		sandboxapi.ByKey("domains", "domains", func(d *catalog.Domain, id string) { d.ID = id }, svc.PutDomain, svc.Domain),
		sandboxapi.ByKey("products", "products", func(p *catalog.Product, id string) { p.ID = id }, svc.PutProduct, svc.Product),
		sandboxapi.ByKey("items", "items", func(it *catalog.Item, id string) { it.ID = id }, svc.PutItem, svc.ItemView),
	}
}
