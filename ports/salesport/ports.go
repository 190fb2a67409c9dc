// Package salesport declares the ports of the sales module (orders, packs).
package salesport

import (
	"context"

	"github.com/feria/feria/core/sales"
)

// OrderObserver is told, inside the transaction that stores an order, that
// the order was stored; first is true the first time that order id is
// stored. The compatibilities module takes the order's snapshot then.
type OrderObserver interface {
	OrderStored(ctx context.Context, o sales.Order, first bool) error
}
