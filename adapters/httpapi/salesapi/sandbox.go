// Package salesapi serves the sales module: the sandbox collection of
// orders (packs are orders that share a pack_id) and the public read of an
// order.
package salesapi

import (
	"github.com/feria/feria/adapters/httpapi/sandboxapi"
	"github.com/feria/feria/core/sales"
	"github.com/feria/feria/ports/salesport"
)

// Collections are the sales module's sandbox collections.
func Collections(svc salesport.Service) []sandboxapi.Collection {
	named := func(o *sales.Order, id int64) { o.ID = id }
	return []sandboxapi.Collection{sandboxapi.ByNumber("orders", "orders", "order_id", named, svc.PutOrder, svc.Order)}
}
