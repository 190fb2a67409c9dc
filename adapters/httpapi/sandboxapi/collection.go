// Package sandboxapi serves the sandbox API of sandbox.md: the key check,
// one PUT/GET pair per collection, the atomic fixtures load, the reset and
// the clock. Collections come from the modules; this package only routes.
package sandboxapi

import "context"

// Collection is one kind of sandbox resource, provided by the module that
// owns it.
type Collection struct {
	// Name is the key of the collection in a fixtures body, e.g.
	// "flex_subscriptions".
	Name string
	// Path is its segment under /sandbox, e.g. "flex/subscriptions".
	Path string
	// Put validates and upserts one resource from its PUT body and returns it
	// as the public API shows it, plus its private fields. Validation
	// failures are kernel.Invalid errors whose causes name the field. It runs
	// inside the caller's transaction (sqlstore.IDB(ctx, ...)).
	Put func(ctx context.Context, id string, body []byte) (any, error)
	// Get returns the stored resource or a kernel.NotExist error.
	Get func(ctx context.Context, id string) (any, error)
	// Batch, when set, serves POST /sandbox/<Path> (contact events).
	Batch func(ctx context.Context, body []byte) (any, error)
}

// Deferred is returned by a Put whose effect lives outside the database
// (counters in Redis): the fixtures load applies it only once every entry
// has been validated and written, so a bad entry leaves nothing behind.
type Deferred interface {
	Apply(ctx context.Context) (any, error)
}

// Order is the order fixtures are applied in, as sandbox.md lists them.
var Order = []string{"users", "categories", "domains", "products", "items", "orders",
	"brands", "flex_subscriptions", "shipments", "contact_events"}
