package compatsvc

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/feria/feria/core/compat"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/core/sales"
	"github.com/feria/feria/ports/compatport"
)

// Snapshot reads the compatibility snapshot of an order with a claim.
func (s *Service) Snapshot(ctx context.Context, orderID int64) (compat.Snapshot, error) {
	snap, err := s.store.Snapshot(ctx, orderID)
	if errors.Is(err, compatport.ErrNotFound) {
		return snap, compat.ErrSnapshotNotFound
	}
	if err != nil {
		return snap, internal(err)
	}
	o, err := s.store.Order(ctx, orderID)
	if errors.Is(err, compatport.ErrNotFound) {
		return snap, compat.ErrSnapshotNotFound
	}
	if err != nil {
		return snap, internal(err)
	}
	c, ok := kernel.CallerFrom(ctx)
	if !ok || c.UserID != snap.SellerID {
		return snap, compat.ErrSnapshotSeller
	}
	if !o.HasClaim {
		return snap, compat.ErrSnapshotNoClaim
	}
	return snap, nil
}

// OrderStored takes the snapshot of a new order, in its storing transaction,
// from the compatibilities of its (first) item at that moment.
func (s *Service) OrderStored(ctx context.Context, o sales.Order, first bool) error {
	if !first || len(o.Items) == 0 {
		return nil
	}
	it, err := s.store.Item(ctx, o.Items[0].ItemID)
	if errors.Is(err, compatport.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	now := s.clock.Now()
	snap := compat.Snapshot{OrderID: o.ID, ItemID: it.ID, SellerID: it.SellerID, Status: compat.NoUserSelection,
		Restrictions: []compat.Restriction{}, DateCreated: now, DateUpdated: now}
	if sel := o.CompatibilitySelection; sel != nil {
		snap.ProductID = sel.ProductID
		lv := sel.LabelValues
		if lv == nil {
			lv = []sales.LabelValue{}
		}
		snap.UserSelection, _ = json.Marshal(lv)
		snap.Status = compat.Incompatible
		cs, err := s.store.Compatibilities(ctx, it.ID)
		if err != nil {
			return err
		}
		for _, c := range cs {
			if c.ProductID == sel.ProductID {
				snap.Status, snap.CompatibilityID = compat.Confirmed, c.ID
				if c.NoteStatus == compat.NoteApproved || c.NoteStatus == compat.NoteChecked {
					snap.Note = c.Note
				}
				snap.Restrictions = c.Restrictions
			}
		}
	}
	return s.store.AddSnapshot(ctx, snap)
}
