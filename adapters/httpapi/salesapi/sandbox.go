// Package salesapi serves the sales module: the sandbox collection of
// orders (packs are orders that share a pack_id).
package salesapi

import (
	"context"

	"github.com/feria/feria/adapters/httpapi/sandboxapi"
	"github.com/feria/feria/core/sales"
	"github.com/feria/feria/ports/salesport"
)

// Collections are the sales module's sandbox collections.
func Collections(svc salesport.Service) []sandboxapi.Collection {
	return []sandboxapi.Collection{
		sandboxapi.ByNumber("orders", "orders", "order_id", func(ctx context.Context, id int64, o sales.Order) (sales.Order, error) {
			o.ID = id
			return svc.PutOrder(ctx, o)
		}, svc.Order),
	}
}
