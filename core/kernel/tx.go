package kernel

import "context"

// Tx runs a unit of work in one database transaction, carried by the
// context fn receives: every store call made with that context joins it, a
// nested RunInTx joins the outer one, and fn's error rolls it all back.
// Use cases that write more than one row take it; the storage adapter
// (adapters/sqlstore) implements it.
type Tx interface {
	RunInTx(ctx context.Context, fn func(ctx context.Context) error) error
}
