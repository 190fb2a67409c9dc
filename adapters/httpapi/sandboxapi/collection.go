// Package sandboxapi serves the sandbox API of docs/sandbox.md: the key check,
// one PUT/GET pair per collection, the atomic fixtures load, the reset and
// the clock. Collections come from the modules; this package only routes.
package sandboxapi

import (
	"context"

	"github.com/feria/feria/adapters/httpapi"
)

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
	// Batch, when set, serves POST /sandbox/<Path> (contact events),
	// outside any transaction: it opens its own if it needs one.
	Batch func(ctx context.Context, body []byte) (any, error)
	// LockKey, when set, orders a fixtures load's entries of this collection
	// (ascending, ties in body order): entries whose writes lock rows beyond
	// their own (an order locks its first item's compatibility version) are
	// written in one order by every load, so that two loads at once wait for
	// each other instead of deadlocking. The key of an entry that does not
	// decode is "" (its Put refuses it).
	LockKey func(entry []byte) string
}

// Deferred is returned by a Put whose effect lives outside the database
// (counters in Redis): the fixtures load applies it only once every entry
// has been validated and written, so a bad entry leaves nothing behind.
type Deferred interface {
	Apply(ctx context.Context) (any, error)
}

// ByKey is a collection of resources named by a string id: Put decodes the
// body into a T, names it with the path's id (named) and stores it with
// put; Get reads by id.
func ByKey[T, P, G any](name, path string, named func(*T, string), put func(context.Context, T) (P, error), get func(context.Context, string) (G, error)) Collection {
	ident := func(id string) (string, error) { return id, nil }
	return collection(name, path, ident, named, put, get)
}

// ByNumber is ByKey for resources named by a positive integer; field names
// the id in the error of a path id that is not one, which is checked before
// the body is read.
func ByNumber[T, P, G any](name, path, field string, named func(*T, int64), put func(context.Context, T) (P, error), get func(context.Context, int64) (G, error)) Collection {
	number := func(raw string) (int64, error) { return httpapi.PositiveID(field, raw) }
	return collection(name, path, number, named, put, get)
}

func collection[K, T, P, G any](name, path string, parse func(string) (K, error), named func(*T, K), put func(context.Context, T) (P, error), get func(context.Context, K) (G, error)) Collection {
	return Collection{
		Name: name, Path: path,
		Put: func(ctx context.Context, raw string, body []byte) (any, error) {
			id, err := parse(raw)
			if err != nil {
				return nil, err
			}
			var v T
			if err := httpapi.DecodeJSON(body, &v); err != nil {
				return nil, err
			}
			named(&v, id)
			return put(ctx, v)
		},
		Get: func(ctx context.Context, raw string) (any, error) {
			id, err := parse(raw)
			if err != nil {
				return nil, err
			}
			return get(ctx, id)
		},
	}
}
