// Package sandboxport declares what the sandbox reset (DELETE /sandbox) needs
// from storage: each storage adapter that keeps part of the sandbox's data
// empties itself, so that the sandbox routes never know which databases,
// buckets, keys or queues exist.
package sandboxport

import "context"

// Resetter empties one store of everything the sandbox put there:
// tables, files, counters or queued jobs. Emptying an empty store is no
// error.
type Resetter interface {
	Reset(ctx context.Context) error
}
