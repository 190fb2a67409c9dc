// Package compatsvc runs the use cases of area B on the compatport ports:
// validation against the catalog, the item state table, notes sent to
// moderation and copies sent to the bulk queue through the outbox, reads with
// reputation and suggestions, and the order snapshots.
package compatsvc

import (
	"context"
	"errors"

	"github.com/feria/feria/core/compat"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/ports/catalogport"
	"github.com/feria/feria/ports/compatport"
	"github.com/feria/feria/ports/outboxport"
	"github.com/feria/feria/ports/salesport"
)

// Deps is what the service needs.
type Deps struct {
	Store compatport.Store
	// Tx holds every check-then-write on an item's compatibilities, with
	// its outbox rows and what it tells Items, in one transaction.
	Tx     kernel.Tx
	Outbox outboxport.Outbox
	Notes  compatport.NoteChecker
	// Items is told, in the write's transaction, that an item's public
	// resource (tags, HAS_COMPATIBILITIES) may have changed: the
	// notifications compare it.
	Items catalogport.ItemWatch
	Clock kernel.Clock
}

// Service implements compatport.Service, compatport.Jobs and the order
// observer that takes snapshots.
type Service struct {
	store  compatport.Store
	tx     kernel.Tx
	outbox outboxport.Outbox
	notes  compatport.NoteChecker
	clock  kernel.Clock
	items  catalogport.ItemWatch
}

var (
	_ compatport.Service      = (*Service)(nil)
	_ compatport.Jobs         = (*Service)(nil)
	_ salesport.OrderObserver = (*Service)(nil)
)

// New returns the service; it panics when a required port is nil.
func New(d Deps) *Service {
	kernel.MustWire(d)
	return &Service{store: d.Store, tx: d.Tx, outbox: d.Outbox, notes: d.Notes, clock: d.Clock, items: d.Items}
}

// internal turns a store fault into a 500, but lets a *kernel.Error through
// untouched: it already carries the contract's answer.
func internal(err error) error {
	var ke *kernel.Error
	if errors.As(err, &ke) {
		return err
	}
	return &kernel.Error{Kind: kernel.Internal, Err: err}
}

// internal0 is internal for call sites that return a nil error as is, since
// internal(nil) would be a 500.
func internal0(err error) error {
	if err == nil {
		return nil
	}
	return internal(err)
}

// inItem runs fn in a transaction that first locks the item's
// compatibility state: every check-then-write on an item's state
// (universal or not, has compatibilities, has an exception) goes through it,
// and ends by telling the item watch.
func (s *Service) inItem(ctx context.Context, itemID string, fn func(ctx context.Context) error) error {
	return s.tx.RunInTx(ctx, func(ctx context.Context) error {
		if err := s.store.LockItem(ctx, itemID); err != nil {
			return internal(err)
		}
		if err := fn(ctx); err != nil {
			return err
		}
		return internal0(s.items.ItemTouched(ctx, itemID))
	})
}

// item reads an item by its path id: 400 badly formatted, 404 absent.
func (s *Service) item(ctx context.Context, id string) (compat.Item, error) {
	if err := validItemID(id); err != nil {
		return compat.Item{}, err
	}
	it, err := s.store.Item(ctx, id)
	return it, itemErr(id, err)
}

// itemErr is 404 for an item the store does not have.
func itemErr(id string, err error) error {
	if errors.Is(err, compatport.ErrNotFound) {
		return compat.ErrItemNotFound.Withf("item %s not found", id)
	}
	return internal0(err)
}

func validItemID(id string) error {
	if !compat.ValidItemID(id) {
		return compat.ErrBadFormat.WithCause("item_id", "item id "+id+" is badly formatted")
	}
	return nil
}

// owned reads an item and checks that the caller sells it (403 otherwise).
func (s *Service) owned(ctx context.Context, id string) (compat.Item, error) {
	it, err := s.item(ctx, id)
	if err != nil {
		return it, err
	}
	return it, sells(ctx, id, it.SellerID)
}

// sells checks that the caller is the item's seller: 403 otherwise.
func sells(ctx context.Context, itemID string, sellerID int64) error {
	if c, ok := kernel.CallerFrom(ctx); !ok || c.UserID != sellerID {
		return compat.ErrNotSeller.Withf("the caller has no permission on item %s", itemID)
	}
	return nil
}

// domain reads a catalog domain: 404 absent.
func (s *Service) domain(ctx context.Context, id string) (compat.Domain, error) {
	d, err := s.store.Domain(ctx, id)
	if errors.Is(err, compatport.ErrNotFound) {
		return d, compat.ErrDomainNotFound.Withf("domain %s not found", id)
	}
	if err != nil {
		return d, internal(err)
	}
	return d, nil
}

// state reads an item's state with its compatibilities: the universal and
// exception rules depend on both.
func (s *Service) state(ctx context.Context, itemID string) (compat.State, []compat.Compatibility, error) {
	st, err := s.store.State(ctx, itemID)
	if err != nil {
		return st, nil, internal(err)
	}
	cs, err := s.store.Compatibilities(ctx, itemID)
	if err != nil {
		return st, nil, internal(err)
	}
	return st, cs, nil
}
