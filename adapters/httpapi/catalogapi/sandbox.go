package catalogapi

import (
	"context"

	"github.com/feria/feria/adapters/httpapi/sandboxapi"
	"github.com/feria/feria/core/catalog"
	"github.com/feria/feria/ports/catalogport"
)

// Collections are the catalog's sandbox collections, in fixtures order.
func Collections(svc catalogport.Service) []sandboxapi.Collection {
	return []sandboxapi.Collection{
		sandboxapi.ByKey("categories", "categories", func(ctx context.Context, id string, c catalog.Category) (catalog.Category, error) {
			c.ID = id
			return svc.PutCategory(ctx, c)
		}, svc.Category),
		sandboxapi.ByKey("domains", "domains", func(ctx context.Context, id string, d catalog.Domain) (catalog.Domain, error) {
			d.ID = id
			return svc.PutDomain(ctx, d)
		}, svc.Domain),
		sandboxapi.ByKey("products", "products", func(ctx context.Context, id string, p catalog.Product) (catalog.Product, error) {
			p.ID = id
			return svc.PutProduct(ctx, p)
		}, svc.Product),
		sandboxapi.ByKey("items", "items", func(ctx context.Context, id string, it catalog.Item) (catalog.ItemView, error) {
			it.ID = id
			return svc.PutItem(ctx, it)
		}, svc.ItemView),
	}
}
