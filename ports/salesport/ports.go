// Package salesport declares the ports of the sales module (orders, packs).
package salesport

import (
	"context"
	"errors"

	"github.com/feria/feria/core/sales"
)

// OrderObserver is told, inside the transaction that stores an order, that
// the order was stored; first is true the first time that order id is
// stored. The compatibilities module takes the order's snapshot then.
type OrderObserver interface {
	OrderStored(ctx context.Context, o sales.Order, first bool) error
}

// ErrNotFound is returned by stores for a missing row.
var ErrNotFound = errors.New("not found")

// Service is what HTTP, the sandbox and other modules call.
type Service interface {
	// PutOrder validates and upserts an order (sandbox); its users and items
	// must exist. Every OrderObserver runs in the same transaction.
	PutOrder(ctx context.Context, o sales.Order) (sales.Order, error)
	Order(ctx context.Context, id int64) (sales.Order, error)
	// OrderView is GET /orders/{id}: the order's public resource, for its
	// seller and buyer (the caller in ctx).
	OrderView(ctx context.Context, id int64) (sales.OrderView, error)
	// SearchOrders is GET /orders/search: the orders of the caller as
	// seller or buyer (the query's one user must be the caller).
	SearchOrders(ctx context.Context, q sales.OrderQuery) (sales.SearchAnswer, error)
	// AddNote and Notes are POST and GET /orders/{id}/notes, the seller's
	// private notes on its order.
	AddNote(ctx context.Context, orderID int64, text string) (sales.NoteAnswer, error)
	Notes(ctx context.Context, orderID int64) ([]sales.NotesAnswer, error)
}

// Orders persists orders.
type Orders interface {
	// UpsertOrder stores an order and reports whether its id was new; an
	// existing order keeps date_created.
	UpsertOrder(ctx context.Context, o sales.Order) (first bool, err error)
	Order(ctx context.Context, id int64) (sales.Order, error)
	// OrdersOfPack lists the orders of a pack, by id.
	OrdersOfPack(ctx context.Context, pack int64) ([]sales.Order, error)
	// OrdersOf lists the orders of a seller (buyer 0) or of a buyer (seller
	// 0), of one status unless status is "", by date_created then id.
	OrdersOf(ctx context.Context, seller, buyer int64, status string) ([]sales.Order, error)
}

// Notes persists the sellers' notes on orders.
type Notes interface {
	AddNote(ctx context.Context, n sales.Note) error
	// Notes lists an order's notes, oldest first.
	Notes(ctx context.Context, orderID int64) ([]sales.Note, error)
}
