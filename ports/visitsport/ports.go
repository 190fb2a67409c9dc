// Package visitsport declares the port of the visits module: the Service
// HTTP and the sandbox call. Its use cases read and write the contact
// statistics' counters (contactsport.Counters, an instance of their own)
// and ask contactsport.ItemOwners who sells an item.
package visitsport

import (
	"context"

	"github.com/feria/feria/core/contacts"
	"github.com/feria/feria/core/visits"
)

// WindowQuery asks for a trailing time window; every field is raw.
type WindowQuery struct {
	Last   string
	Unit   string
	Ending string
}

// Service is the visits module as its callers see it. Ids and dates are
// raw path or query values: the service decodes them.
type Service interface {
	// ItemTotals counts the visits of each item of ids (comma-separated)
	// between two dates, in the order given.
	ItemTotals(ctx context.Context, ids, dateFrom, dateTo string) ([]contacts.Total, error)
	// UserTotal counts the visits of all the caller's items; userID must
	// be the caller's.
	UserTotal(ctx context.Context, userID, dateFrom, dateTo string) (contacts.Total, error)
	ItemWindow(ctx context.Context, itemID string, q WindowQuery) (contacts.Window, error)
	// UserWindow is the window of all the caller's items; userID must be
	// the caller's.
	UserWindow(ctx context.Context, userID string, q WindowQuery) (contacts.Window, error)

	// Ingest counts a batch of visits, all or none; an id already counted
	// is a duplicate.
	Ingest(ctx context.Context, events []visits.EventInput) (contacts.Result, error)
	// Prepare validates one visit and resolves its seller; Count counts
	// prepared visits.
	Prepare(ctx context.Context, in visits.EventInput) (contacts.Event, error)
	Count(ctx context.Context, events []contacts.Event) (contacts.Result, error)
	// StoredEvent returns a counted visit by id.
	StoredEvent(ctx context.Context, id string) (contacts.Event, error)
	// Reset forgets every visit.
	Reset(ctx context.Context) error
}
