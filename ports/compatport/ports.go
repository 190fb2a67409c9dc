// Package compatport declares the ports of the compatibilities module (area
// B): the Service HTTP calls, the Jobs workers call, and the Store and
// NoteChecker the use cases need (beside kernel.Tx).
package compatport

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/feria/feria/core/compat"
)

// ErrNotFound is what a Store returns for a row that does not exist.
var ErrNotFound = errors.New("compatport: not found")

// Task types written to the outbox; workers/tasks re-exports them.
const (
	TaskCopy         = "compat:copy"
	TaskModerateNote = "compat:moderate_note"
)

// CopyJob is the payload of a copy task. ID makes it idempotent.
type CopyJob struct {
	ID       string `json:"id"`
	ItemID   string `json:"item_id"`
	SourceID string `json:"source_item_id"`
	Extended bool   `json:"extended_information"`
}

// NoteJob is the payload of a note moderation task.
type NoteJob struct {
	CompatibilityID string `json:"compatibility_id"`
	ItemID          string `json:"item_id"`
	Note            string `json:"note"`
}

// Entry is one compatibility as listed, with its reputation.
type Entry struct {
	compat.Compatibility
	Reputation compat.Reputation
}

// Claimed is a compatibility with its count of Claims.
type Claimed struct {
	compat.Compatibility
	Claims int
}

// Listing is what the list of an item's compatibilities reads.
type Listing struct {
	SellerID int64
	// UniversalDomainIDs is non-nil for a universal item.
	UniversalDomainIDs []string
	Compatibilities    []Claimed
	// Derived goes with Compatibilities while the store keeps them (nil
	// when they were read for this call alone).
	Derived *Derived
}

// Derived holds what readers derive from a kept list (its encoding as an
// answer), by key: made once per list rather than once per read, and
// gone with the list when it changes or leaves the store's cache. Nil
// holds nothing.
type Derived struct{ m sync.Map }

// Load returns the value kept under key.
func (d *Derived) Load(key any) (any, bool) {
	if d == nil {
		return nil, false
	}
	return d.m.Load(key)
}

// Store keeps v under key.
func (d *Derived) Store(key, v any) {
	if d != nil {
		d.m.Store(key, v)
	}
}

// List is the list answer of an item's compatibilities.
type List struct {
	// Entries are shared with the store's kept listing (Listing's
	// Compatibilities): read, never written. Copying hundreds of entries
	// into another type was a twelfth of the list's time under load.
	Entries []Claimed
	// UniversalDomains is non-nil for a universal item.
	UniversalDomains []string
	// Derived is the kept listing's (Listing's Derived).
	Derived *Derived
}

// Card is one cards entry.
type Card struct {
	Title    string `json:"title"`
	Subtitle string `json:"subtitle"`
	Filter   string `json:"filter"`
	Quantity int    `json:"quantity"`
}

// PutResult is the answer of a PUT: what was applied, or the copied list.
type PutResult struct {
	Created   int
	Updated   int
	Deleted   []string
	Copied    *List
	Universal bool
}

// Service is what the HTTP adapter calls. Every method that addresses an
// item checks that the caller (kernel.CallerFrom) is its seller.
type Service interface {
	Dump(ctx context.Context, siteID string) ([]compat.Domain, error)
	CountFamily(ctx context.Context, sel compat.Selector) (int, error)
	Cards(ctx context.Context, domainID, itemID, productID string, filters []string) ([]Card, error)
	RestrictionValues(ctx context.Context, mainDomainID, secondaryDomainID string) ([]compat.RestrictionValue, error)
	Create(ctx context.Context, itemID string, n compat.Nodes) (int, error)
	CopyLater(ctx context.Context, itemID string, req compat.CopyRequest) error
	Put(ctx context.Context, itemID string, req compat.PutRequest) (PutResult, error)
	Summary(ctx context.Context, domainID string, itemIDs []string) ([]compat.Summary, error)
	List(ctx context.Context, itemID string) (List, error)
	Get(ctx context.Context, itemID, compatID string) (Entry, error)
	ExtendedCheck(ctx context.Context, itemID string) (note, restrictions bool, err error)
	Note(ctx context.Context, itemID, compatID string) (string, error)
	DeleteOne(ctx context.Context, itemID, compatID string) ([]string, error)
	// Delete removes every compatibility (and the universal state) when
	// families is empty, or those of the families.
	Delete(ctx context.Context, itemID string, families []compat.Selector) ([]string, error)
	ReportException(ctx context.Context, itemID string, comment *string) error
	Exception(ctx context.Context, itemID string) (bool, error)
	Snapshot(ctx context.Context, orderID int64) (compat.Snapshot, error)
}

// Jobs is what the workers call.
type Jobs interface {
	Copy(ctx context.Context, j CopyJob) error
	ModerateNote(ctx context.Context, j NoteJob) error
}

// NoteChecker checks a note against the messaging rules; a non-nil error
// means the note breaks one (its message says which).
type NoteChecker interface {
	CheckNote(ctx context.Context, siteID, note string) error
}

// NoteCheckFunc adapts a function to NoteChecker.
type NoteCheckFunc func(ctx context.Context, siteID, note string) error

// CheckNote calls f.
func (f NoteCheckFunc) CheckNote(ctx context.Context, siteID, note string) error {
	return f(ctx, siteID, note)
}

// Store keeps compatibilities, item states, snapshots and done jobs, and
// reads other modules' tables (items, categories, domains, products,
// orders). Every
// method joins the transaction carried by ctx.
type Store interface {
	// Item returns the item with its category's settings, or ErrNotFound.
	Item(ctx context.Context, id string) (compat.Item, error)
	Domain(ctx context.Context, id string) (compat.Domain, error)
	Domains(ctx context.Context, siteID string) ([]compat.Domain, error)
	// Products returns those of ids that exist.
	Products(ctx context.Context, ids []string) (map[string]compat.Product, error)
	// FamilyProducts returns up to limit child products of the family, by id.
	FamilyProducts(ctx context.Context, sel compat.Selector, limit int) ([]compat.Product, error)
	// CountFamily counts the child products of the family; ErrNotFound
	// when its domain does not exist.
	CountFamily(ctx context.Context, sel compat.Selector) (int, error)

	// Compatibilities lists an item's compatibilities by creation.
	Compatibilities(ctx context.Context, itemID string) ([]compat.Compatibility, error)
	Compatibility(ctx context.Context, itemID, id string) (compat.Compatibility, error)
	// AddCompatibilities inserts those whose (item, product) is not stored
	// yet and returns the ones inserted.
	AddCompatibilities(ctx context.Context, cs []compat.Compatibility) ([]compat.Compatibility, error)
	UpdateCompatibility(ctx context.Context, c compat.Compatibility) error
	// SetNoteStatus moves a compatibility's note to status when its note is
	// still note; it reports whether it did.
	SetNoteStatus(ctx context.Context, id, note, status string, at time.Time) (bool, error)
	// DeleteCompatibilities deletes ids of the item (all when ids is nil)
	// and returns the ids deleted.
	DeleteCompatibilities(ctx context.Context, itemID string, ids []string) ([]string, error)

	// LockItem holds the item's compatibilities and state for the rest of
	// the transaction carried by ctx: changes of one item that check its
	// state before they write (universal, compatibilities, exception) run
	// one after the other, so that no check is stale when its write lands.
	LockItem(ctx context.Context, itemID string) error

	// State returns the item's state (the zero state when none is stored).
	State(ctx context.Context, itemID string) (compat.State, error)
	PutState(ctx context.Context, s compat.State) error

	// Claims counts, per compatibility, the orders with a claim whose
	// snapshot confirmed it.
	Claims(ctx context.Context, compatIDs []string) (map[string]int, error)
	// Listing reads what the list of an item's compatibilities answers, in
	// one read: the item's seller, its universal domains and its
	// compatibilities as Compatibilities lists them, each with its Claims
	// count; ErrNotFound when there is no such item.
	Listing(ctx context.Context, itemID string) (Listing, error)
	// Suggestions returns the product ids compatible with other active items
	// sharing the item's catalog_product_id or part_number that the item
	// lacks, with the domain of each.
	Suggestions(ctx context.Context, item compat.Item) ([]compat.Product, error)
	// Counts returns, per item, the counts of the summary (compatibilities of
	// vehicle domain domainID; every domain when "").
	Counts(ctx context.Context, domainID string, itemIDs []string) (map[string]compat.Summary, error)

	Order(ctx context.Context, id int64) (compat.Order, error)
	// AddSnapshot stores a snapshot unless the order has one.
	AddSnapshot(ctx context.Context, s compat.Snapshot) error
	Snapshot(ctx context.Context, orderID int64) (compat.Snapshot, error)
	MarkSnapshotsDeleted(ctx context.Context, compatIDs []string, at time.Time) error

	// MarkJobDone records a job id; false when it was recorded before.
	MarkJobDone(ctx context.Context, id string, at time.Time) (bool, error)
}
