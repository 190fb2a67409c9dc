package kerneltest

import "context"

// Tx runs fn directly: the fakes of the ports have no transactions. A
// failing fn leaves what it wrote, so use-case tests check ordering, not
// rollback (a fake with a rollback of its own, such as compatporttest's
// Memory, is its own Tx).
type Tx struct{}

// RunInTx implements kernel.Tx: it calls fn.
func (Tx) RunInTx(ctx context.Context, fn func(ctx context.Context) error) error { return fn(ctx) }
